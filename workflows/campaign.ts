import { condition, continueAsNew, proxyActivities, proxyLocalActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { createCampaignActivities } from '../activities/campaigns';
import { cancelSchedule, cancelSend, CampaignProgress, cardsDecided, progress } from './campaignMessages';

type Activities = ReturnType<typeof createCampaignActivities>;

const { snapshotAudience, dispatchBatch } = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  // A worker that died mid-batch is noticed within 10 s; the retried batch skips whom it already reached.
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});
const { returnToDraft, failRemaining, finishCampaign } = proxyLocalActivities<Activities>({ startToCloseTimeout: '1 minute' });

export interface CampaignRunArgs {
  campaignId: string;
  teamId: string;
  run: number;
  /** A future send time (the API decided it is in the future); null: now. */
  scheduledAt: string | null;
  /** A retry run dispatches the recipients the API reset; it takes no new snapshot. */
  retry: boolean;
  batchSize: number;
  /** Set when the run continues as new: the schedule and the snapshot are behind it. */
  dispatching?: boolean;
  dispatched?: number;
  /** Events before continuing as new (default 2 000; tests make it small). */
  continueAfterEvents?: number;
}

/** Each run continues as new after this many events, far below Temporal's limits at any audience size. */
const CONTINUE_AFTER_EVENTS = 2000;

/**
 * One send (or retry) of a campaign, as the spec's state table: Scheduled (a durable timer;
 * `cancelSchedule` → Draft) → Sending (snapshot the audience, dispatch in batches; `cancelSend` →
 * the rest failed, Failed) → Completed (no failures) or Failed.
 */
export async function campaignWorkflow(args: CampaignRunArgs): Promise<{ status: string }> {
  const state: CampaignProgress = { phase: args.dispatching ? 'sending' : args.scheduledAt ? 'scheduled' : 'snapshot', dispatched: args.dispatched ?? 0 };
  let scheduleCancelled = false;
  let sendCancelled = false;
  let decided = false;
  setHandler(cancelSchedule, () => { scheduleCancelled = state.phase === 'scheduled'; });
  setHandler(cancelSend, () => { sendCancelled = true; });
  setHandler(cardsDecided, () => { decided = true; });
  setHandler(progress, () => state);

  if (!args.dispatching) {
    if (args.scheduledAt) {
      const wait = Math.max(0, new Date(args.scheduledAt).getTime() - Date.now());
      if (await condition(() => scheduleCancelled, wait)) {
        await returnToDraft(args.campaignId);
        state.phase = 'done';
        return { status: 'draft' };
      }
    }
    state.phase = 'snapshot';
    if (!args.retry) await snapshotAudience(args.campaignId, args.run);
  }

  state.phase = 'sending';
  for (;;) {
    if (sendCancelled) {
      await failRemaining(args.campaignId);
      break;
    }
    const batch = await dispatchBatch({ campaignId: args.campaignId, attempt: args.run, batchSize: args.batchSize });
    state.dispatched += batch.processed;
    if (batch.remaining === 0) break;
    if (batch.processed === 0 && batch.remaining === batch.awaitingApproval) {
      // Only open approval cards are left (a manual-mode agent): wait for a person, or a cancel.
      state.phase = 'awaiting_approval';
      await condition(() => decided || sendCancelled);
      decided = false;
      state.phase = 'sending';
    }
    if (workflowInfo().historyLength > (args.continueAfterEvents ?? CONTINUE_AFTER_EVENTS)) {
      await continueAsNew<typeof campaignWorkflow>({ ...args, dispatching: true, dispatched: state.dispatched });
    }
  }
  state.phase = 'finishing';
  const result = await finishCampaign(args.campaignId, sendCancelled);
  state.phase = 'done';
  return result;
}
