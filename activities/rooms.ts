import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { inputJsonSchema, TOOLS, toolsFor } from '../mcp/tools';
import { ModelError } from '../services/agents/models/chatModel';
import type { AppContext } from '../services/platform/context';
import { runModelStep } from '../services/rooms/modelStep';
import { announceToolApproval, openToolApproval, runToolCall, settleToolApproval } from '../services/rooms/toolLedger';
import { finishTurn } from '../services/rooms/turnRecord';
import type { ToolRegistry } from '../services/rooms/turnTools';
import type { RoomActivities } from '../workflows/contracts/room';

export interface RoomActivityDeps {
  /** A turn's tools run the same service functions the MCP surface does. */
  appContext: AppContext;
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

export function createRoomActivities({ appContext }: RoomActivityDeps) {
  const registry: ToolRegistry = {
    toolsFor: (installed) => toolsFor(installed),
    all: TOOLS,
    inputSchema: inputJsonSchema,
  };
  return {
    async modelStep(turnId, step, allowTools) {
      const { attempt } = Context.current().info;
      const signal = Context.current().cancellationSignal;
      try {
        return await whileHeartbeating((heartbeat) =>
          runModelStep(appContext, registry, turnId, step, allowTools, attempt, heartbeat, signal),
        );
      } catch (err) {
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
