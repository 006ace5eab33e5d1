import {
  allHandlersFinished,
  condition,
  continueAsNew,
  executeChild,
  ParentClosePolicy,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { BusinessIdKey, JobTypeKey, TeamSlugKey } from './contracts/searchAttributeKeys';
import {
  queueTurn,
  RoomArgs,
  RoomProgress,
  roomProgress,
  RoomWorkflow,
  turnWorkflowId,
  turnWorkflowName,
  type RoomActivities,
  type TurnWorkflow,
} from './contracts/room';

const bookkeeping = proxyActivities<RoomActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/** A room with nothing to do closes; the next message starts it again (Update-with-Start). */
const IDLE_CLOSE_AFTER = '1 day';
/** Each turn is a child (its history holds the model and tool calls), so a room's own history grows by a few events a turn. */
const TURNS_PER_RUN = 200;

/** A turn id is `<roomId>:<seq of its message>`. */
const messageSeq = (turnId: string) => Number(turnId.slice(turnId.lastIndexOf(':') + 1));

/**
 * A room: an entity that takes turns one at a time. A message queues its turn (the `queueTurn`
 * update); the loop runs the oldest queued turn as a child workflow and waits for it before the
 * next, so two turns never run at once and no turn ever runs inside a handler.
 */
export async function roomWorkflow(args: RoomArgs): Promise<void> {
  const state: RoomProgress = { current: null, queued: [...(args.queued ?? [])], turnsRun: 0 };
  setHandler(roomProgress, () => state);
  setHandler(queueTurn, ({ turnId }) => {
    if (state.current !== turnId && !state.queued.includes(turnId)) {
      // Messages posted at once reach the room in any order: turns run in the order they were posted.
      const later = state.queued.findIndex((queued) => messageSeq(queued) > messageSeq(turnId));
      state.queued.splice(later < 0 ? state.queued.length : later, 0, turnId);
    }
    return { position: state.queued.indexOf(turnId) + 1 };
  });

  for (;;) {
    const busy = await condition(() => state.queued.length > 0, IDLE_CLOSE_AFTER);
    if (!busy) {
      await condition(allHandlersFinished);
      if (state.queued.length === 0) return;
    }
    const turnId = state.queued.shift()!;
    state.current = turnId;
    try {
      await executeChild<TurnWorkflow>(turnWorkflowName, {
        workflowId: turnWorkflowId(turnId),
        args: [{ turnId, roomId: args.roomId, teamSlug: args.teamSlug }],
        parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
        typedSearchAttributes: [
          { key: TeamSlugKey, value: args.teamSlug },
          { key: JobTypeKey, value: 'agent.turn' },
          { key: BusinessIdKey, value: turnId },
        ],
        staticSummary: `Turn ${turnId} of room ${args.roomId} (team ${args.teamSlug})`,
      });
    } catch (err) {
      // A turn an operator terminated (or one that broke) ends failed; the room takes the next one.
      const message = err instanceof Error ? err.message : String(err);
      await bookkeeping.finishTurn(turnId, { status: 'failed', error: { error: { code: 'turn_failed', message } } });
    }
    state.current = null;
    state.turnsRun++;
    if (state.turnsRun >= TURNS_PER_RUN || workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      await continueAsNew<RoomWorkflow>({ ...args, queued: state.queued });
    }
  }
}
roomWorkflow satisfies RoomWorkflow;
