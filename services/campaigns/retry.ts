import { z } from 'zod';
import type { Channel } from '../../channels/types';
import { addressColumn } from '../contacts/channelAddress';
import type { AppContext, TeamRef } from '../platform/context';
import { errorBody, invalidState } from '../platform/errors';
import { CampaignRow, findCampaign } from './campaignRow';
import { recountCampaign } from './recordChunk';
import { ENDED_STATES } from './stateTable';
import { startRun } from './workflowRun';

export const campaignRetrySchema = z.strictObject({
  contactIds: z.array(z.string().min(1).max(100)).min(1).max(10_000).optional(),
});

export const retriedSchema = z.object({ retried: z.number().int().describe('How many recipients are sent again') });

/**
 * The spec's retry rules, as SQL over `campaign_recipients`: failed always; skipped for
 * approval_skipped, and for missing_channel only once the contact has an address on the channel.
 */
export const retryableSql = (channel: Channel) => `(campaign_recipients.status = 'failed'
  OR (campaign_recipients.status = 'skipped' AND (campaign_recipients.skip_reason = 'approval_skipped'
    OR (campaign_recipients.skip_reason = 'missing_channel' AND EXISTS (
      SELECT 1 FROM contacts WHERE contacts.id = campaign_recipients.contact_id
        AND coalesce(${addressColumn(channel)}, '') <> '')))))`;

export async function retryCampaign(
  ctx: AppContext,
  team: TeamRef,
  campaignId: string,
  input: z.infer<typeof campaignRetrySchema>,
): Promise<{ retried: number }> {
  const { db } = ctx;
  const { row, run, retried } = await db.transaction(async (trx) => {
    const current = await findCampaign(trx, team.id, campaignId, true);
    if (!ENDED_STATES.includes(current.status))
      throw invalidState('Only a Completed or Failed campaign can be retried', { status: current.status });
    if (current.archived_at) throw invalidState('Unarchive the campaign before retrying it');
    const nextRun = current.run + 1;
    const reset = trx('campaign_recipients').where({ campaign_id: current.id }).whereRaw(retryableSql(current.channel));
    if (input.contactIds) reset.whereIn('contact_id', input.contactIds);
    // A retried approval_skipped recipient counts as approved ("retryable after approval").
    const count = await reset.update({
      status: 'pending',
      skip_reason: null,
      error: null,
      attempt: nextRun,
      card: trx.raw("CASE WHEN card IS NULL THEN NULL ELSE 'approved' END"),
    });
    if (count === 0) return { row: current, run: nextRun, retried: 0 };
    // The counters move as the retry's chunks are recorded: the recipients it takes count as pending again.
    await recountCampaign(trx, current.id);
    const [updated] = await trx('campaigns')
      .where({ id: current.id })
      .update({
        status: 'sending',
        run: nextRun,
        finished_at: null,
        cancel_requested_at: null,
        updated_at: trx.fn.now(),
      })
      .returning('*');
    return { row: updated as CampaignRow, run: nextRun, retried: count };
  });
  if (retried > 0) {
    // The recipients it took fail again (failed is always retryable) and the campaign returns to
    // its ended state, so the retry can simply be asked for again.
    await startRun(ctx, team, row, run, { scheduledAt: null, retry: true }, () =>
      db.transaction(async (trx) => {
        await trx('campaign_recipients')
          .where({ campaign_id: row.id, status: 'pending', attempt: run })
          .update({
            status: 'failed',
            error: JSON.stringify(errorBody('retry_not_started', 'The retry could not be started; retry again')),
          });
        await trx('campaigns')
          .where({ id: row.id, run, status: 'sending' })
          .update({ status: 'failed', finished_at: trx.fn.now(), updated_at: trx.fn.now() });
        await recountCampaign(trx, row.id);
      }),
    );
  }
  return { retried };
}
