import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  startChild,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import { BusinessIdKey, JobTypeKey, TeamSlugKey } from './contracts/searchAttributeKeys';
import type { ErrorBody } from './contracts/errorBody';
import { RoomActivities, TurnArgs, TurnProgress, turnProgress, TurnResult, TurnWorkflow } from './contracts/room';
import { warpExecutionWorkflowName, type WarpExecutionWorkflow } from './contracts/warpExecution';

/** Model calls a turn may make; the last one is asked for words, not tools, so every turn ends in an answer. */
export const MAX_STEPS = 8;

const bookkeeping = proxyActivities<RoomActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 20 },
});

/**
 * A model call streams for as long as the model talks; it heartbeats, so a dead worker is noticed
 * in seconds. A 429 names its own wait (the activity's `nextRetryDelay`); a model that refuses the
 * request (400, 401) fails at once, since a retry would only bill again.
 */
const model = proxyActivities<RoomActivities>({
  startToCloseTimeout: '10 minutes',
  // A cancelled turn ends only once its call has stopped: the next turn never overlaps it.
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
});

/** A tool runs once: a retry after a crash finds its ledger row (or rolls back and runs it again). */
const tools = proxyActivities<RoomActivities>({
  startToCloseTimeout: '5 minutes',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  heartbeatTimeout: '5 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 10 },
});

/** A turn's state as its `progress` query shows it, when it starts. */
export const startingTurn = (): TurnProgress => ({
  status: 'running',
  step: 0,
  toolInFlight: null,
  executionId: null,
  promptTokens: 0,
  completionTokens: 0,
});

/**
 * A turn that a room ran as its child `turn-<turnId>`, before turns ran in the room itself
 * (workflows/room.ts): kept so that such turns finish, and their histories replay.
 */
export async function turnWorkflow(args: TurnArgs): Promise<TurnResult> {
  const state = startingTurn();
  setHandler(turnProgress, () => state);
  return runTurn(args, state);
}
turnWorkflow satisfies TurnWorkflow;

/**
 * One turn: model → tool calls → model … until the model answers without tools or the step limit.
 * A sensitive write of an agent in manual mode waits, as a child `warp-<executionId>`, for the
 * same `approve` update / `decline` signal / expiry every approval uses; the turn goes on with
 * the outcome. A cancelled turn (an operator's `cancelTurn`) is recorded as failed.
 */
export async function runTurn({ turnId, teamSlug }: TurnArgs, state: TurnProgress): Promise<TurnResult> {
  try {
    for (let step = 1; step <= MAX_STEPS; step++) {
      state.step = step;
      const planned = await model.modelStep(turnId, step, step < MAX_STEPS);
      state.promptTokens += planned.promptTokens;
      state.completionTokens += planned.completionTokens;
      if (planned.toolCalls.length === 0) break;
      for (const call of planned.toolCalls) {
        state.toolInFlight = call.name;
        if (call.approval) await waitForApproval(turnId, call.id, teamSlug, state);
        else await tools.runToolCall(call.id);
        state.toolInFlight = null;
      }
    }
  } catch (err) {
    state.status = 'failed';
    // An operator's cancel ends the turn too: it is recorded (and streamed) before the turn ends.
    await CancellationScope.nonCancellable(() =>
      bookkeeping.finishTurn(turnId, { status: 'failed', error: turnError(err) }),
    );
    return { status: 'failed', steps: state.step };
  }
  state.status = 'completed';
  // The answer is in: a cancel that comes now changes nothing.
  await CancellationScope.nonCancellable(() => bookkeeping.finishTurn(turnId, { status: 'completed' }));
  return { status: 'completed', steps: state.step };
}

async function waitForApproval(
  turnId: string,
  toolCallId: string,
  teamSlug: string,
  state: TurnProgress,
): Promise<void> {
  const opened = await bookkeeping.openToolApproval(toolCallId);
  if (!opened) return tools.runToolCall(toolCallId);
  const approval = await startChild<WarpExecutionWorkflow>(warpExecutionWorkflowName, {
    workflowId: `warp-${opened.executionId}`,
    args: [{ executionId: opened.executionId, warp: opened.warp, approvalTimeoutMs: opened.approvalTimeoutMs }],
    typedSearchAttributes: [
      { key: TeamSlugKey, value: teamSlug },
      { key: JobTypeKey, value: opened.warp },
      { key: BusinessIdKey, value: opened.executionId },
    ],
    staticSummary: `${opened.warp} ${opened.executionId} asked for by turn ${turnId}: ${opened.summary} (waiting for approval)`,
  });
  state.status = 'waiting_approval';
  state.executionId = opened.executionId;
  await bookkeeping.announceToolApproval(toolCallId);
  try {
    await approval.result();
  } catch {
    // The approved write gave up (or the approval was terminated): settled from the execution's
    // record all the same, so the model hears the outcome and the turn goes on.
  }
  await CancellationScope.nonCancellable(() => bookkeeping.settleToolApproval(toolCallId));
  state.status = 'running';
  state.executionId = null;
}

/** The error a failed turn reports on its stream: the model's own message when a model call gave up. */
export function turnError(err: unknown): ErrorBody {
  if (isCancellation(err))
    return { error: { code: 'turn_cancelled', message: 'The turn was cancelled by an operator' } };
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure && cause.type === 'ModelError')
    return { error: { code: 'model_error', message: cause.message } };
  return { error: { code: 'turn_failed', message: cause instanceof Error ? cause.message : String(cause) } };
}
