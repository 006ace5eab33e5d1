import { WorkflowNotFoundError } from '@temporalio/client';
import type { Db } from '../../db/knex';
import type { AppContext } from '../platform/context';
import { invalidState } from '../platform/errors';
import { findCampaign, presentCampaign } from './campaignRow';
import type { CampaignJson } from './schemas';
import { ENDED_STATES } from './stateTable';
import { removeTemplate, whatsappTemplateWorkflowId } from './whatsappTemplate';
import { campaignWorkflowId } from './workflowRun';

export async function archiveCampaign(
  db: Db,
  teamId: string,
  campaignId: string,
  archived: boolean,
): Promise<CampaignJson> {
  const row = await findCampaign(db, teamId, campaignId);
  if (archived && !ENDED_STATES.includes(row.status))
    throw invalidState('Only a Completed or Failed campaign can be archived', { status: row.status });
  const guarded = db('campaigns').where({ id: row.id });
  if (archived) guarded.whereIn('status', ENDED_STATES);
  const [updated] = await guarded
    .update({ archived_at: archived ? (row.archived_at ?? db.fn.now()) : null, updated_at: db.fn.now() })
    .returning('*');
  if (!updated)
    throw invalidState('The campaign changed meanwhile; only a Completed or Failed campaign can be archived');
  return presentCampaign(updated);
}

export async function deleteCampaign(ctx: AppContext, teamId: string, campaignId: string): Promise<void> {
  const row = await findCampaign(ctx.db, teamId, campaignId);
  if (row.status === 'sending') throw invalidState('A Sending campaign cannot be deleted; cancel the send first');
  const endWorkflow = (workflowId: string) =>
    ctx.temporal
      .call((client) => client.workflow.getHandle(workflowId).terminate('campaign deleted'))
      // A run that already ended is fine; Temporal not answering is not (the timer would fire later).
      .catch((err) => {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
      });
  if (row.status === 'scheduled') await endWorkflow(campaignWorkflowId(row.id, row.run));
  // A Pending template's approval workflow waits no more; then the template goes, even one still being submitted.
  if (row.channel === 'whatsapp' && row.status === 'pending') await endWorkflow(whatsappTemplateWorkflowId(row.id));
  if (row.channel === 'whatsapp' && (row.whatsapp_template_id || row.status === 'pending'))
    await removeTemplate(ctx, row).catch((err) =>
      ctx.logger.warn({ err, campaignId: row.id }, 'WhatsApp template cleanup failed'),
    );
  // Its recipients go with it (no foreign key cascades them: migration 031). The campaign's row
  // first: a snapshot holding it commits before this goes on, and none starts after.
  await ctx.db.transaction(async (trx) => {
    await trx('campaigns').where({ id: row.id }).delete();
    await trx('campaign_recipients').where({ campaign_id: row.id }).delete();
  });
}
