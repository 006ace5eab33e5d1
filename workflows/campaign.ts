import {
  condition,
  continueAsNew,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  type WorkflowInfo,
} from '@temporalio/workflow';
import {
  CampaignActivities,
  CampaignProgress,
  CampaignResult,
  CampaignRunArgs,
  CampaignWorkflow,
  cancelSchedule,
  cancelSend,
  cardsDecided,
  progress,
  SUPERSEDED_RUN,
} from './contracts/campaign';
import { shouldContinueAsNew } from './continueAsNew';

const { snapshotAudience, dispatchBatch } = proxyActivities<CampaignActivities>({
  startToCloseTimeout: '10 minutes',
  // A worker that died mid-batch is noticed within 10 s; the retried batch skips whom it already reached.
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});
const { returnToDraft, failRemaining, finishCampaign } = proxyLocalActivities<CampaignActivities>({
  startToCloseTimeout: '1 minute',
});

/**
 * What the Temporal UI and CLI show as the run's current details (no history events, so replay
 * is unaffected): the phase, how far the dispatch is, and what it waits for.
 */
function describeRun(
  campaignId: string,
  phase: CampaignProgress['phase'],
  detail: {
    dispatched: number;
    toDispatch: number | null;
    scheduledAt: string | null;
    openCards: number;
    status?: string;
  },
): string {
  const progressLine = `Dispatched ${detail.dispatched}${detail.toDispatch !== null ? ` of ${detail.toDispatch}` : ''} recipients.`;
  switch (phase) {
    case 'scheduled':
      return `Campaign ${campaignId}: scheduled until ${detail.scheduledAt}. Waiting for that time, or for cancelSchedule (back to Draft).`;
    case 'snapshot':
      return `Campaign ${campaignId}: snapshotting the audience into recipients.`;
    case 'sending':
      return `Campaign ${campaignId}: sending. ${progressLine}`;
    case 'awaiting_approval':
      return `Campaign ${campaignId}: waiting for ${detail.openCards} approval card${detail.openCards === 1 ? '' : 's'} (the agent is in manual mode): a person approves or skips them at POST /v1/campaigns/${campaignId}/cards, or cancels the send. ${progressLine}`;
    case 'finishing':
      return `Campaign ${campaignId}: finishing. ${progressLine}`;
    case 'done':
      return `Campaign ${campaignId}: done (${detail.status}). ${progressLine}`;
  }
}

/**
 * One send (or retry) of a campaign, as the spec's state table: Scheduled (a durable timer;
 * `cancelSchedule` → Draft) → Sending (snapshot the audience, dispatch in batches; `cancelSend` →
 * the rest failed, Failed) → Completed (no failures) or Failed.
 */
export async function campaignWorkflow(args: CampaignRunArgs): Promise<CampaignResult> {
  const state: CampaignProgress = {
    phase: args.dispatching ? 'sending' : args.scheduledAt ? 'scheduled' : 'snapshot',
    dispatched: args.dispatched ?? 0,
  };
  let scheduleCancelled = false;
  let sendCancelled = false;
  let decided = false;
  setHandler(cancelSchedule, () => {
    scheduleCancelled = state.phase === 'scheduled';
  });
  setHandler(cancelSend, () => {
    sendCancelled = true;
  });
  setHandler(cardsDecided, () => {
    decided = true;
  });
  setHandler(progress, () => state);
  let toDispatch: number | null = null;
  let openCards = 0;
  const show = (status?: string) =>
    setCurrentDetails(
      describeRun(args.campaignId, state.phase, {
        dispatched: state.dispatched,
        toDispatch,
        scheduledAt: args.scheduledAt,
        openCards,
        status,
      }),
    );
  show();

  if (!args.dispatching) {
    if (args.scheduledAt) {
      const wait = Math.max(0, new Date(args.scheduledAt).getTime() - Date.now());
      if (await condition(() => scheduleCancelled, wait)) {
        await returnToDraft(args.campaignId);
        state.phase = 'done';
        show('back to draft');
        return { status: 'draft' };
      }
    }
    state.phase = 'snapshot';
    show();
    if (!args.retry && (await snapshotAudience(args.campaignId, args.run)) === SUPERSEDED_RUN) {
      state.phase = 'done';
      show('superseded: the campaign names another run, so this one sends nothing');
      return { status: 'superseded' };
    }
  }

  state.phase = 'sending';
  show();
  let afterSeq = args.afterSeq ?? 0;
  for (;;) {
    if (sendCancelled) {
      await failRemaining(args.campaignId);
      break;
    }
    const batch = await dispatchBatch({
      campaignId: args.campaignId,
      attempt: args.run,
      batchSize: args.batchSize,
      afterSeq,
    });
    afterSeq = batch.continueAfterSeq ?? 0;
    state.dispatched += batch.processed;
    toDispatch = state.dispatched + batch.remaining;
    show();
    if (batch.remaining === 0) break;
    if (batch.processed === 0 && batch.remaining === batch.awaitingApproval) {
      // Only open approval cards are left (a manual-mode agent): wait for a person, or a cancel.
      state.phase = 'awaiting_approval';
      openCards = batch.awaitingApproval;
      show();
      await condition(() => decided || sendCancelled);
      decided = false;
      state.phase = 'sending';
      show();
    }
    const before = (info: WorkflowInfo) => info.historyLength > (args.continueAfterEvents ?? 2_000);
    if (shouldContinueAsNew(args.continueAfterEvents, before))
      await continueAsNew<CampaignWorkflow>({ ...args, dispatching: true, dispatched: state.dispatched, afterSeq });
  }
  state.phase = 'finishing';
  show();
  const result = await finishCampaign(args.campaignId, sendCancelled);
  state.phase = 'done';
  show(result.status);
  return result;
}
campaignWorkflow satisfies CampaignWorkflow;
