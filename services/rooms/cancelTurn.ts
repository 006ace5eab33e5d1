import { WorkflowNotFoundError } from '@temporalio/client';
import { cancelTurn as cancelTurnSignal, roomWorkflowId } from '../../workflows/contracts/room';
import type { AppContext } from '../platform/context';
import { invalidState, notFound } from '../platform/errors';
import { getTurn, TurnJson } from './turns';

/**
 * Ends a stuck turn (a model that does not answer, an approval nobody gives): the room's
 * `cancelTurn` signal, which cancels the turn it is running; the turn then ends `failed` with
 * `turn_cancelled` and the room takes its next message. Only the turn running now can be
 * cancelled; the answer is the turn as it was, the end follows within moments (poll the turn).
 */
export async function cancelRunningTurn(
  ctx: AppContext,
  teamId: string,
  roomId: string,
  turnId: string,
): Promise<TurnJson> {
  const turn = await getTurn(ctx, teamId, turnId);
  if (turn.roomId !== roomId) throw notFound('Turn');
  if (turn.status !== 'running' && turn.status !== 'waiting_approval')
    throw invalidState('Only a running turn can be cancelled', { status: turn.status });
  try {
    await ctx.temporal.call((client) =>
      client.workflow.getHandle(roomWorkflowId(roomId)).signal(cancelTurnSignal, { turnId }),
    );
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw invalidState('The room is not running');
    throw err;
  }
  return turn;
}
