import { condition, setHandler } from '@temporalio/workflow';
import { approve, ApprovalEdits, ApprovalOutcome, decline } from './contracts/approval';

export interface ApprovalGateOptions<Answer> {
  /** Whether this run waits for a person at all (a delivery in auto mode does not): else `approve` is refused and `decline` ignored. */
  waitsForApproval?: boolean;
  /** Names where the workflow stands, in the refusal of an `approve` that comes when nothing is pending. */
  status(): string;
  /** Throws to refuse an approval's edits (the update fails; the gate stays open). */
  validateEdits?(edits: ApprovalEdits): void;
  /**
   * Runs inside the `approve` update before the gate opens: it may wait (a delivery waits for its
   * draft) and apply the edits; what it answers is the update's answer to the approver.
   */
  onApprove(edits: ApprovalEdits): Answer | Promise<Answer>;
}

export interface ApprovalGate {
  /** Waits for `approve`, `decline` or `timeoutMs` (a durable timer), whichever comes first; after it the gate is shut. */
  outcome(timeoutMs: number): Promise<ApprovalOutcome>;
}

/**
 * The one wait for a person: the `approve` update (with its validator, so a second or late
 * approval fails as an update and the API answers 409), the `decline` signal, or expiry.
 *
 * Open the gate before the workflow's first await, so an approval that arrives early (the API
 * answers `pending` at once) finds its handler; call `outcome` where the workflow waits. Later
 * waits for a person (a room's turn, an MCP `permission.request`) open a gate the same way and
 * get the same approve/decline messages, so the one approval endpoint and signed link serve them.
 *
 * Replay: the handlers keep the names `approve` and `decline`, and `outcome` is the single
 * `condition(…, timeoutMs)` the delivery and warp-execution workflows always made, so their
 * histories replay unchanged.
 */
export function openApprovalGate<Answer>(options: ApprovalGateOptions<Answer>): ApprovalGate {
  let decision: ApprovalOutcome | undefined;
  // An approval in flight (waiting inside `onApprove`) holds the gate: a decline meanwhile is ignored.
  let approving = false;
  let shut = false;
  const pending = () => options.waitsForApproval !== false && !shut && decision === undefined && !approving;

  setHandler(
    approve,
    async (edits) => {
      approving = true;
      const answer = await options.onApprove(edits);
      decision = { status: 'approved', edits };
      return answer;
    },
    {
      validator: (edits) => {
        if (!pending()) throw new Error(`Not waiting for approval (status ${options.status()})`);
        options.validateEdits?.(edits);
      },
    },
  );
  setHandler(decline, ({ reason }) => {
    if (pending()) decision = { status: 'declined', reason };
  });

  return {
    async outcome(timeoutMs) {
      const decided = await condition(() => decision !== undefined, timeoutMs);
      shut = true;
      return decided ? decision! : { status: 'expired' };
    },
  };
}

/** The execution's error for an approval that did not come: declined (with the reason) or expired. */
export function refusalError(
  outcome: Exclude<ApprovalOutcome, { status: 'approved' }>,
  words: { declined: string; expired: string },
) {
  return outcome.status === 'declined'
    ? { error: { code: 'declined', message: outcome.reason ? `Declined: ${outcome.reason}` : words.declined } }
    : { error: { code: 'approval_expired', message: words.expired } };
}
