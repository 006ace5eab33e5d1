import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
} from '@temporalio/workflow';
import { openApprovalGate, refusalError } from './approvalGate';
import {
  DeliveryActivities,
  DeliveryDraft,
  DeliveryInput,
  DeliveryOutcome,
  DeliveryResult,
  DeliveryState,
  DeliveryWorkflow,
  progress,
} from './contracts/delivery';

const { draftDelivery, sendDeliveryMessage } = proxyActivities<DeliveryActivities>({
  // A provider call is cut at 10 s; a worker that died mid-send is noticed after 20 s.
  startToCloseTimeout: '20 seconds',
  // A provider's 5xx, 429 or timeout is retried with backoff; a permanent 4xx comes back as an outcome.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
});
const { recordExecution, recordSendFailure, completeDelivery } = proxyLocalActivities<DeliveryActivities>({
  startToCloseTimeout: '30 seconds',
});

/** The message the recipients get: the sender's text, then the deliverables. */
export const composeBody = (draft: DeliveryDraft) =>
  draft.links ? `${draft.message}\n\n${draft.links}` : draft.message;

/**
 * Artifact delivery as the spec's state machine: draft the message, one editable approval step
 * (auto mode passes through; manual mode waits for `approve`, `decline` or expiry), then one
 * message per recipient covering every artifact, then the artifacts are `sent`.
 */
export async function deliveryWorkflow(input: DeliveryInput): Promise<DeliveryResult> {
  const state: DeliveryState = { status: input.mode === 'manual' ? 'pending_approval' : 'running', outcomes: [] };

  setHandler(progress, () => state);
  const gate = openApprovalGate({
    waitsForApproval: input.mode === 'manual',
    status: () => state.status,
    validateEdits: (edits) => {
      if (edits.message !== undefined && edits.message.trim() === '') throw new Error('message cannot be empty');
    },
    // An approval can arrive before the draft is written (the API answers pending at once): it
    // waits for the draft, applies its edits, and only then lets the delivery go.
    onApprove: async (edits): Promise<DeliveryDraft> => {
      await condition(() => state.draft !== undefined);
      state.draft = { ...state.draft!, ...edits };
      return state.draft;
    },
  });

  state.draft = await draftDelivery(input);
  if (input.mode === 'manual') {
    await recordExecution(input.executionId, { status: 'pending_approval', draft: state.draft });
    const outcome = await gate.outcome(input.approvalTimeoutMs);
    if (outcome.status !== 'approved') {
      state.status = outcome.status;
      const error = refusalError(outcome, {
        declined: 'The delivery was declined',
        expired: 'Nobody approved the delivery in time',
      });
      await recordExecution(input.executionId, { status: state.status, error });
      return { status: state.status, deliveries: [] };
    }
    state.status = 'running';
    await recordExecution(input.executionId, { status: 'running', draft: state.draft });
  }

  const draft = state.draft;
  state.outcomes = await Promise.all(
    input.recipients.map(async (recipient): Promise<DeliveryOutcome> => {
      try {
        return await sendDeliveryMessage({ ...input, recipient, subject: draft.subject, body: composeBody(draft) });
      } catch (err) {
        // Retries ran out: the recipient's record says why, and the others still go.
        const cause =
          err instanceof ActivityFailure && err.cause instanceof ApplicationFailure
            ? err.cause.message
            : String((err as Error).message);
        return recordSendFailure({
          ...input,
          recipient,
          subject: draft.subject,
          body: composeBody(draft),
          reason: cause,
        });
      }
    }),
  );
  const result = await completeDelivery(input, state.outcomes);
  state.status = result.status;
  return result;
}
deliveryWorkflow satisfies DeliveryWorkflow;
