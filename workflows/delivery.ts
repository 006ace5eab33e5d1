import { ActivityFailure, ApplicationFailure, condition, proxyActivities, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type { createDeliveryActivities } from '../activities/deliveries';
import type { DeliveryDraft, DeliveryInput, DeliveryOutcome, DeliveryResult, DeliveryState } from '../services/deliveryTypes';
import { approve, decline, progress } from './deliveryMessages';

type Activities = ReturnType<typeof createDeliveryActivities>;

const { draftDelivery, sendDeliveryMessage } = proxyActivities<Activities>({
  // A provider call is cut at 10 s; a worker that died mid-send is noticed after 20 s.
  startToCloseTimeout: '20 seconds',
  // A provider's 5xx, 429 or timeout is retried with backoff; a permanent 4xx comes back as an outcome.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
});
const { recordExecution, recordSendFailure, completeDelivery } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
});

export { approve, decline, progress };

/** The message the recipients get: the sender's text, then the deliverables. */
export const composeBody = (draft: DeliveryDraft) => (draft.links ? `${draft.message}\n\n${draft.links}` : draft.message);

/**
 * Artifact delivery as the spec's state machine: draft the message, one editable approval step
 * (auto mode passes through; manual mode waits for `approve`, `decline` or expiry), then one
 * message per recipient covering every artifact, then the artifacts are `sent`.
 */
export async function deliveryWorkflow(input: DeliveryInput): Promise<DeliveryResult> {
  const state: DeliveryState = { status: input.mode === 'manual' ? 'pending_approval' : 'running', outcomes: [] };
  let decision: { approved: true } | { approved: false; reason?: string } | undefined;

  setHandler(progress, () => state);
  // An approval can arrive before the draft is written (the API answers pending at once): it
  // waits for the draft, applies its edits, and only then lets the delivery go.
  let approving = false;
  setHandler(approve, async (edits) => {
    approving = true;
    await condition(() => state.draft !== undefined);
    state.draft = { ...state.draft!, ...edits };
    decision = { approved: true };
    return state.draft;
  }, {
    validator: (edits) => {
      if (state.status !== 'pending_approval' || decision !== undefined || approving) throw new Error(`Not waiting for approval (status ${state.status})`);
      if (edits.message !== undefined && edits.message.trim() === '') throw new Error('message cannot be empty');
    },
  });
  setHandler(decline, ({ reason }) => {
    if (state.status === 'pending_approval' && decision === undefined && !approving) decision = { approved: false, reason };
  });

  state.draft = await draftDelivery(input);
  if (input.mode === 'manual') {
    await recordExecution(input.executionId, { status: 'pending_approval', draft: state.draft });
    const decided = await condition(() => decision !== undefined, input.approvalTimeoutMs);
    if (!decided || !decision!.approved) {
      state.status = decided ? 'declined' : 'expired';
      const reason = decision && !decision.approved ? decision.reason : undefined;
      const error = decided
        ? { error: { code: 'declined', message: reason ? `Declined: ${reason}` : 'The delivery was declined' } }
        : { error: { code: 'approval_expired', message: 'Nobody approved the delivery in time' } };
      await recordExecution(input.executionId, { status: state.status, error });
      return { status: state.status, deliveries: [] };
    }
    state.status = 'running';
    await recordExecution(input.executionId, { status: 'running', draft: state.draft });
  }

  const draft = state.draft;
  state.outcomes = await Promise.all(input.recipients.map(async (recipient): Promise<DeliveryOutcome> => {
    try {
      return await sendDeliveryMessage({ ...input, recipient, subject: draft.subject, body: composeBody(draft) });
    } catch (err) {
      // Retries ran out: the recipient's record says why, and the others still go.
      const cause = err instanceof ActivityFailure && err.cause instanceof ApplicationFailure ? err.cause.message : String((err as Error).message);
      return recordSendFailure({ ...input, recipient, subject: draft.subject, body: composeBody(draft), reason: cause });
    }
  }));
  const result = await completeDelivery(input, state.outcomes);
  state.status = result.status;
  return result;
}
