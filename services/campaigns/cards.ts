import type { Knex } from 'knex';
import { z } from 'zod';
import { cardsDecided as cardsDecidedSignal } from '../../workflows/contracts/campaign';
import type { Db } from '../../db/knex';
import type { AppContext } from '../platform/context';
import { invalidState } from '../platform/errors';
import { keysetPage } from '../platform/pagination';
import { findCampaign } from './campaignRow';
import type { recipientQuerySchema } from './recipients';
import { signalRun } from './workflowRun';

/** Approval cards: in manual mode each sendable recipient waits on a card a person approves or skips. */
export const cardDecisionSchema = z.strictObject({
  /** Contact ids to approve, or "all" open cards. */
  approve: z.union([z.literal('all'), z.array(z.string().min(1).max(100)).max(10_000)]).optional(),
  /** Contact ids to skip (they end `skipped` with `approval_skipped`), or "all". */
  skip: z.union([z.literal('all'), z.array(z.string().min(1).max(100)).max(10_000)]).optional(),
});

export const cardSchema = z.object({ contactId: z.string(), address: z.string().nullable() });
export const cardsDecidedSchema = z.object({ approved: z.number().int(), skipped: z.number().int() });

/** The open approval cards of a Sending campaign whose agent is in manual mode. */
export async function listCards(
  db: Db,
  teamId: string,
  campaignId: string,
  query: z.infer<typeof recipientQuerySchema>,
) {
  await findCampaign(db, teamId, campaignId);
  const q = db('campaign_recipients').where({ campaign_id: campaignId, status: 'pending', card: 'open' });
  return keysetPage(
    q.select('seq', 'contact_id', 'address'),
    { cursor: query.cursor, limit: query.perPage },
    (r: { seq: number; contact_id: string; address: string | null }) => ({
      contactId: r.contact_id,
      address: r.address,
    }),
  );
}

/**
 * Approves or skips approval cards; approved recipients are sent, skipped ones end
 * `approval_skipped` (retryable, once approved). The workflow hears a signal and goes on.
 */
export async function decideCards(
  ctx: AppContext,
  teamId: string,
  campaignId: string,
  input: z.infer<typeof cardDecisionSchema>,
) {
  const row = await findCampaign(ctx.db, teamId, campaignId);
  if (row.status !== 'sending')
    throw invalidState('Approval cards are decided while the campaign is Sending', { status: row.status });
  const open = () => ctx.db('campaign_recipients').where({ campaign_id: campaignId, status: 'pending', card: 'open' });
  const pick = (q: Knex.QueryBuilder, ids: 'all' | string[]) => (ids === 'all' ? q : q.whereIn('contact_id', ids));
  const approved = input.approve ? await pick(open(), input.approve).update({ card: 'approved' }) : 0;
  const skipped = input.skip
    ? await pick(open(), input.skip).update({ card: 'skipped', status: 'skipped', skip_reason: 'approval_skipped' })
    : 0;
  if (approved + skipped > 0) await signalRun(ctx, row, cardsDecidedSignal);
  return { approved, skipped };
}
