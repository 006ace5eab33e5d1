import {
  cancelSchedule as cancelScheduleSignal,
  cancelSend as cancelSendSignal,
} from '../../workflows/contracts/campaign';
import type { AppContext } from '../platform/context';
import { invalidState } from '../platform/errors';
import { findCampaign } from './campaignRow';
import type { CampaignJson } from './schemas';
import { settled, signalRun } from './workflowRun';

export async function cancelSchedule(ctx: AppContext, teamId: string, campaignId: string): Promise<CampaignJson> {
  const row = await findCampaign(ctx.db, teamId, campaignId);
  if (row.status !== 'scheduled')
    throw invalidState('Only a Scheduled campaign can have its schedule cancelled', { status: row.status });
  await signalRun(ctx, row, cancelScheduleSignal);
  return settled(ctx.db, teamId, campaignId, 'scheduled');
}

export async function cancelSend(ctx: AppContext, teamId: string, campaignId: string): Promise<CampaignJson> {
  const row = await findCampaign(ctx.db, teamId, campaignId);
  if (row.status !== 'sending')
    throw invalidState('Only a Sending campaign can have its send cancelled', { status: row.status });
  // The batch in flight sees the mark within a moment and stops; the signal ends the run.
  await ctx
    .db('campaigns')
    .where({ id: row.id, status: 'sending' })
    .update({ cancel_requested_at: ctx.db.raw('coalesce(cancel_requested_at, now())') });
  await signalRun(ctx, row, cancelSendSignal);
  return settled(ctx.db, teamId, campaignId, 'sending');
}
