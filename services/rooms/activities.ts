import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { ModelError } from '../agents/models/chatModel';
import type { AppContext } from '../platform/context';
import { runModelStep } from './modelStep';
import { announceToolApproval, openToolApproval, runToolCall, settleToolApproval } from './toolLedger';
import { finishTurn } from './turnRecord';
import type { ToolRegistry } from './turnTools';
import type { RoomActivities } from '../../workflows/contracts/room';

export interface RoomActivityDeps {
  /** A turn's tools run the same service functions the MCP surface does. */
  appContext: AppContext;
  /** The MCP surface's registry, handed in by the worker (activities/index.ts): services never import the MCP layer. */
  tools: ToolRegistry;
}

/** How often a long activity tells Temporal it is alive, whatever it is waiting on (a model's first token, a slow tool). */
const HEARTBEAT_EVERY_MS = 1_000;

async function whileHeartbeating<T>(work: (heartbeat: () => void) => Promise<T>): Promise<T> {
  const activity = Context.current();
  const heartbeat = () => activity.heartbeat();
  const timer = setInterval(heartbeat, HEARTBEAT_EVERY_MS);
  try {
    return await work(heartbeat);
  } finally {
    clearInterval(timer);
  }
}

/** A model's refusal is final (a retry would bill again); its 429 names the wait before the next attempt. */
function asFailure(err: unknown): unknown {
  if (!(err instanceof ModelError)) return err;
  return ApplicationFailure.create({
    type: 'ModelError',
    message: err.message,
    nonRetryable: !err.retryable,
    ...(err.retryAfterSeconds ? { nextRetryDelay: `${err.retryAfterSeconds} seconds` } : {}),
  });
}

export function createRoomActivities({ appContext, tools: registry }: RoomActivityDeps) {
  return {
    async modelStep(turnId, step, allowTools) {
      const { attempt } = Context.current().info;
      const signal = Context.current().cancellationSignal;
      try {
        return await whileHeartbeating((heartbeat) =>
          runModelStep(appContext, registry, turnId, step, allowTools, attempt, heartbeat, signal),
        );
      } catch (err) {
        // Aborted because the turn was cancelled (cancelTurn): the cancellation, not a model error.
        if (signal.aborted) throw signal.reason ?? err;
        throw asFailure(err);
      }
    },
    runToolCall: (toolCallId) => whileHeartbeating(() => runToolCall(appContext, registry, toolCallId)),
    openToolApproval: (toolCallId) => openToolApproval(appContext, registry, toolCallId),
    announceToolApproval: (toolCallId) => announceToolApproval(appContext, toolCallId),
    settleToolApproval: (toolCallId) => settleToolApproval(appContext, toolCallId),
    finishTurn: (turnId, outcome) => finishTurn(appContext.db, turnId, outcome),
  } satisfies RoomActivities;
}
