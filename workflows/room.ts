import {
  allHandlersFinished,
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  executeChild,
  ParentClosePolicy,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { BusinessIdKey, JobTypeKey, TeamSlugKey } from './contracts/searchAttributeKeys';
import { runTurn, startingTurn, turnError } from './turn';
import {
  cancelTurn,
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
/** A turn run in the room adds a dozen events or so (more with tools): a run stays well under Temporal's history limits. */
const TURNS_RUN_IN_ROOM_PER_RUN = 50;
/** Runs from before TURNS_RUN_IN_ROOM continued as new after this many turns; their replays must too. */
const TURNS_PER_RUN = 200;
/**
 * Rooms once ran each turn as a child workflow; a turn now runs in the room, which spares a
 * workflow start and a cold workflow task before the model is asked (the time to first token).
 */
const TURNS_RUN_IN_ROOM = 'turns-run-in-room';

/**
 * A run due to continue as new waits for the next message and carries it over. One that continued
 * right after its last turn made a message posted at that moment wait for seconds: the server
 * refuses an update to a run that is closing, and it is retried until the next run takes it.
 */
const CONTINUE_AS_NEW_WITH_THE_NEXT_MESSAGE = 'continue-as-new-with-the-next-message';

/** A turn id is `<roomId>:<seq of its message>`. */
const messageSeq = (turnId: string) => Number(turnId.slice(turnId.lastIndexOf(':') + 1));

/**
 * A room: an entity that takes turns one at a time. A message queues its turn (the `queueTurn`
 * update); the loop runs the oldest queued turn to its end before the next, so two turns never
 * run at once and no turn ever runs inside a handler.
 */
export async function roomWorkflow(args: RoomArgs): Promise<void> {
  const state: RoomProgress = { current: null, turn: null, queued: [...(args.queued ?? [])], turnsRun: 0 };
  let turnScope: CancellationScope | null = null;
  let turnsRunInRoom = 0;
  let continueWithTheNextMessage = false;
  const continueAsNewWithQueued = async () => {
    await condition(allHandlersFinished);
    await continueAsNew<RoomWorkflow>({ ...args, queued: state.queued });
  };
  setHandler(roomProgress, () => state);
  setHandler(cancelTurn, ({ turnId }) => {
    if (state.current === turnId) turnScope?.cancel();
  });
  setHandler(queueTurn, ({ turnId }) => {
    if (state.current !== turnId && !state.queued.includes(turnId)) {
      // Messages posted at once reach the room in any order: turns run in the order they were posted.
      const later = state.queued.findIndex((queued) => messageSeq(queued) > messageSeq(turnId));
      state.queued.splice(later < 0 ? state.queued.length : later, 0, turnId);
    }
    return { position: state.queued.indexOf(turnId) + 1 };
  });

  try {
    for (;;) {
      const busy = await condition(() => state.queued.length > 0, IDLE_CLOSE_AFTER);
      if (!busy) {
        await condition(allHandlersFinished);
        if (state.queued.length === 0) return;
      }
      if (continueWithTheNextMessage) await continueAsNewWithQueued();
      const turnId = state.queued.shift()!;
      state.current = turnId;
      // What the Temporal UI shows as the room's current details (its `progress` query has the step).
      setCurrentDetails(`Running turn ${turnId}; ${state.queued.length} queued after it`);
      turnScope = new CancellationScope();
      const scope = turnScope;
      if (patched(TURNS_RUN_IN_ROOM)) {
        state.turn = startingTurn();
        turnsRunInRoom++;
        await inRoom(turnId, () =>
          scope.run(() => runTurn({ turnId, roomId: args.roomId, teamSlug: args.teamSlug }, state.turn!)),
        );
      } else {
        await scope.run(() => runAsChild(turnId, args));
      }
      turnScope = null;
      state.turn = null;
      state.current = null;
      state.turnsRun++;
      if (
        turnsRunInRoom >= (args.turnsPerRun ?? TURNS_RUN_IN_ROOM_PER_RUN) ||
        state.turnsRun >= TURNS_PER_RUN ||
        workflowInfo().continueAsNewSuggested
      ) {
        if (patched(CONTINUE_AS_NEW_WITH_THE_NEXT_MESSAGE)) continueWithTheNextMessage = true;
        else await continueAsNewWithQueued();
      }
      setCurrentDetails(
        `Waiting for messages; ${state.turnsRun} turns run in this run` +
          (continueWithTheNextMessage ? ', the next goes on in a new run' : ''),
      );
    }
  } catch (err) {
    // The room itself was cancelled: the turns it will not take say so on their streams.
    if (isCancellation(err))
      await CancellationScope.nonCancellable(async () => {
        for (const turnId of state.queued)
          await bookkeeping.finishTurn(turnId, { status: 'failed', error: turnError(err) });
      });
    throw err;
  }
}
roomWorkflow satisfies RoomWorkflow;

/** A turn that breaks (its bookkeeping gave up) ends failed; the room lives on and takes the next one. */
async function inRoom(turnId: string, turn: () => Promise<unknown>): Promise<void> {
  try {
    await turn();
  } catch (err) {
    if (CancellationScope.current().consideredCancelled) throw err;
    await failTurn(turnId, err);
  }
}

const failTurn = (turnId: string, err: unknown) =>
  CancellationScope.nonCancellable(() =>
    bookkeeping.finishTurn(turnId, {
      status: 'failed',
      error: isCancellation(err)
        ? turnError(err)
        : { error: { code: 'turn_failed', message: err instanceof Error ? err.message : String(err) } },
    }),
  );

/** How rooms ran a turn before TURNS_RUN_IN_ROOM: histories from then replay through here. */
async function runAsChild(turnId: string, args: RoomArgs): Promise<void> {
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
    await failTurn(turnId, err);
  }
}
