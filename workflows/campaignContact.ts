import { proxyActivities, proxyLocalActivities, setHandler, sleep } from '@temporalio/workflow';
import { openApprovalGate, refusalError } from './approvalGate';
import type { ExecutionActivities } from './contracts/execution';
import {
  CampaignContactActivities,
  CampaignContactArgs,
  CampaignContactProgress,
  CampaignContactWorkflow,
  progress,
} from './contracts/campaignContact';

const { sendCampaignToContact } = proxyActivities<CampaignContactActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 10 },
});
const { recordExecution } = proxyLocalActivities<ExecutionActivities>({ startToCloseTimeout: '30 seconds' });

/**
 * `svc-campaign-send-contact`: waits for a person when the agent is in manual mode, then for the
 * delay (a durable timer), then sends the campaign's message to the one contact, once.
 */
export async function campaignContactWorkflow(args: CampaignContactArgs): Promise<CampaignContactProgress> {
  const state: CampaignContactProgress = { status: args.waitsForApproval ? 'pending_approval' : 'running' };
  setHandler(progress, () => state);
  const gate = openApprovalGate({
    waitsForApproval: args.waitsForApproval,
    status: () => state.status,
    validateEdits: (edits) => {
      if (edits.message !== undefined || edits.subject !== undefined)
        throw new Error('svc-campaign-send-contact takes no edits: approve it as it is, or decline it');
    },
    onApprove: (): CampaignContactProgress => ({ status: 'running' }),
  });
  if (args.waitsForApproval) {
    const outcome = await gate.outcome(args.approvalTimeoutMs);
    if (outcome.status !== 'approved') {
      state.status = outcome.status;
      const error = refusalError(outcome, {
        declined: 'svc-campaign-send-contact was declined',
        expired: 'Nobody approved svc-campaign-send-contact in time',
      });
      await recordExecution(args.executionId, { status: state.status, error });
      return { status: state.status };
    }
    state.status = 'running';
    await recordExecution(args.executionId, { status: 'running' });
  }
  if (args.delayMs > 0) await sleep(args.delayMs);
  try {
    state.status = await sendCampaignToContact(args.executionId);
  } catch (err) {
    state.status = 'failed';
    await recordExecution(args.executionId, {
      status: 'failed',
      error: { error: { code: 'send_failed', message: err instanceof Error ? err.message : String(err) } },
    });
  }
  return { status: state.status };
}
campaignContactWorkflow satisfies CampaignContactWorkflow;
