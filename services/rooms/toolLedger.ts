import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import type { OpenedApproval } from '../../workflows/contracts/room';
import { warpWorkflowId } from '../deliveries/warps';
import { executionUrl } from '../deliveries/warpExecutions';
import type { Principal } from '../identity/principal';
import type { AppContext } from '../platform/context';
import { AppError, ErrorBody, validationError } from '../platform/errors';
import { newId } from '../../db/ids';
import { recordEvent } from '../events/outbox';
import { nextMessageSeq } from './messages';
import { appendRoomEvents } from './roomEvents';
import { loadTurn, setTurnStatus, TurnRecord } from './turnRecord';
import { approvalWarp, offeredInTurns, ToolRegistry } from './turnTools';

/**
 * The tool ledger: one row per tool call (`<turnId>:<step>:<i>`). An `atomic` tool's platform
 * writes commit in the same transaction as its row's result, its result message and its
 * `tool.result` event, so a retried activity either finds the call done or finds nothing of it
 * (the crash rolled it back) and runs it again: a platform write happens once. A tool that starts
 * durable work (`startsWork`) runs after its row is marked running, with the call id as its key.
 */
type ToolCallStatus = 'pending' | 'running' | 'pending_approval' | 'succeeded' | 'failed' | 'declined' | 'expired';
const SETTLED: ToolCallStatus[] = ['succeeded', 'failed', 'declined', 'expired'];

interface ToolCallRow {
  id: string;
  turn_id: string;
  name: string;
  arguments: Record<string, unknown>;
  status: ToolCallStatus;
  execution_id: string | null;
}

/** What the model reads back, and what the stream shows: results are cut at this length. */
const RESULT_MAX_CHARS = 16_000;

const agentPrincipal = (turn: TurnRecord): Principal => ({
  kind: 'agent',
  userId: turn.authorUserId,
  credentialId: turn.id,
  agentId: turn.agent.id,
  scopes: ['mcp:use'],
});

async function loadCall(db: Db, toolCallId: string): Promise<{ call: ToolCallRow; turn: TurnRecord }> {
  const call: ToolCallRow | undefined = await db('tool_calls').where({ id: toolCallId }).first();
  if (!call) throw new Error(`Tool call ${toolCallId} is not in the ledger`);
  return { call, turn: await loadTurn(db, call.turn_id) };
}

const refusal = (code: string, message: string): ErrorBody => ({ error: { code, message } });

/** Runs a call the model asked for, once. */
export async function runToolCall(ctx: AppContext, registry: ToolRegistry, toolCallId: string): Promise<void> {
  const { call, turn } = await loadCall(ctx.db, toolCallId);
  if (SETTLED.includes(call.status)) return;
  // Looked up again, as the turn stands now: an app removed, a tool kept out of turns.
  const tool = registry
    .toolsFor(turn.installedApps)
    .filter(offeredInTurns)
    .find((t) => t.name === call.name);
  if (!tool) return settleCall(ctx.db, turn, call, 'failed', refusal('unknown_tool', `No tool ${call.name} here`));
  // The agent went to manual mode after the model asked: this write is a person's decision now.
  if (approvalWarp(tool, turn))
    return settleCall(
      ctx.db,
      turn,
      call,
      'failed',
      refusal(
        'approval_required',
        `The agent is in manual mode now: ${call.name} needs a person's approval; ask again`,
      ),
    );
  const parsed = tool.input.safeParse(call.arguments);
  if (!parsed.success)
    return settleCall(ctx.db, turn, call, 'failed', validationError(parsed.error, 'arguments').toBody());
  const toolCall = (db: Db) => ({
    ctx: { ...ctx, db },
    team: turn.team,
    principal: agentPrincipal(turn),
    agentId: turn.agent.id,
    installed: turn.installedApps,
    idempotencyKey: call.id,
  });

  try {
    if (tool.inTurns === 'startsWork') {
      await ctx.db('tool_calls').where({ id: call.id, status: 'pending' }).update({ status: 'running' });
      const result = await tool.run(toolCall(ctx.db), parsed.data);
      await settleCall(ctx.db, turn, call, 'succeeded', result ?? { ok: true });
      return;
    }
    await ctx.db.transaction(async (trx) => {
      const locked: ToolCallRow = await trx('tool_calls').where({ id: call.id }).forUpdate().first();
      if (SETTLED.includes(locked.status)) return;
      const result = await tool.run(toolCall(trx), parsed.data);
      await settleCall(trx, turn, call, 'succeeded', result ?? { ok: true });
    });
  } catch (err) {
    // A rule the call broke is its answer (its writes rolled back); anything else is retried.
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    await settleCall(ctx.db, turn, call, 'failed', err.toBody());
  }
}

/**
 * Opens (once) the warp execution a sensitive call waits on. The turn starts its workflow next,
 * and only then asks for the approval (`announceToolApproval`): nobody is told to approve a
 * workflow that does not exist yet.
 */
export async function openToolApproval(
  ctx: AppContext,
  registry: ToolRegistry,
  toolCallId: string,
): Promise<OpenedApproval | null> {
  const { call, turn } = await loadCall(ctx.db, toolCallId);
  const approvalTimeoutMs = ctx.config.APPROVAL_TTL_SECONDS * 1000;
  const summary = `${call.name} ${JSON.stringify(call.arguments)}`;
  const alreadyOpen = async (executionId: string): Promise<OpenedApproval> => {
    const execution = await ctx.db('warp_executions').where({ id: executionId }).first('warp');
    return { executionId, warp: execution.warp, approvalTimeoutMs, summary };
  };
  if (call.execution_id) return alreadyOpen(call.execution_id);

  const tool = registry.all.find((t) => t.name === call.name);
  const warp = approvalWarp(tool, turn);
  // Nothing a person could approve (arguments that are not valid), or nothing to approve any more
  // (the agent was switched to auto mode meanwhile): the turn runs the call, or fails it, as any other.
  if (!tool || !warp || !tool.input.safeParse(call.arguments).success) return null;
  return ctx.db.transaction(async (trx) => {
    const locked: ToolCallRow = await trx('tool_calls').where({ id: call.id }).forUpdate().first();
    if (locked.execution_id) return alreadyOpen(locked.execution_id);
    const executionId = newId('wx');
    await trx('warp_executions').insert({
      id: executionId,
      team_id: turn.team.id,
      agent_id: turn.agent.id,
      warp,
      status: 'pending_approval',
      input: JSON.stringify(call.arguments),
      created_by: turn.authorUserId,
      workflow_id: warpWorkflowId(executionId),
      approval_expires_at: trx.raw(`now() + make_interval(secs => ?)`, [ctx.config.APPROVAL_TTL_SECONDS]),
    });
    await trx('tool_calls').where({ id: call.id }).update({ execution_id: executionId });
    return { executionId, warp, approvalTimeoutMs, summary };
  });
}

/** Says on the stream (once) that a person must approve the call, now that its workflow waits. */
export async function announceToolApproval(ctx: AppContext, toolCallId: string): Promise<void> {
  const { call, turn } = await loadCall(ctx.db, toolCallId);
  await ctx.db.transaction(async (trx) => {
    const moved = await trx('tool_calls')
      .where({ id: call.id, status: 'pending' })
      .update({ status: 'pending_approval' });
    if (!moved) return;
    const execution = await trx('warp_executions')
      .where({ id: call.execution_id })
      .first('id', 'warp', 'input', 'approval_expires_at');
    await setTurnStatus(trx, turn.id, 'waiting_approval');
    const statusUrl = executionUrl(ctx.config.baseUrl, execution.id);
    await appendRoomEvents(trx, turn.roomId, [
      {
        type: 'approval.requested',
        data: {
          toolCallId,
          turnId: turn.id,
          executionId: execution.id,
          warp: execution.warp,
          tool: call.name,
          arguments: execution.input,
          statusUrl,
          approveUrl: `${statusUrl}/approve`,
          declineUrl: `${statusUrl}/decline`,
          expiresAt: (execution.approval_expires_at as Date).toISOString(),
        },
      },
    ]);
  });
}

/** The approval's outcome becomes the call's result: what the approved write answered, or why it did not run. */
export async function settleToolApproval(ctx: AppContext, toolCallId: string): Promise<void> {
  const { call, turn } = await loadCall(ctx.db, toolCallId);
  if (SETTLED.includes(call.status)) return;
  const execution = await ctx.db('warp_executions').where({ id: call.execution_id }).first();
  const status: ToolCallStatus =
    execution.status === 'succeeded' || execution.status === 'declined' || execution.status === 'expired'
      ? execution.status
      : 'failed';
  const result =
    status === 'succeeded'
      ? (execution.result ?? { ok: true })
      : (execution.error ?? { error: { code: status, message: `The write ended ${execution.status}` } });
  await ctx.db.transaction(async (trx) => {
    const locked: ToolCallRow = await trx('tool_calls').where({ id: call.id }).forUpdate().first();
    if (SETTLED.includes(locked.status)) return;
    await setTurnStatus(trx, turn.id, 'running');
    await settleCall(trx, turn, call, status, result, [
      {
        type: 'approval.decided',
        data: { toolCallId, turnId: turn.id, executionId: call.execution_id, status: execution.status },
      },
    ]);
  });
}

/** Records a call's outcome with its result message and events (inside the caller's transaction, if any). */
export async function settleCall(
  db: Db | Knex.Transaction,
  turn: TurnRecord,
  call: Pick<ToolCallRow, 'id' | 'name'>,
  status: ToolCallStatus,
  result: unknown,
  before: Parameters<typeof appendRoomEvents>[2] = [],
): Promise<void> {
  if (!(db as Knex.Transaction).isTransaction)
    return db.transaction((trx) => settleCall(trx, turn, call, status, result, before));
  const current: { status: ToolCallStatus } | undefined = await db('tool_calls')
    .where({ id: call.id })
    .forUpdate()
    .first('status');
  if (current && SETTLED.includes(current.status)) return;
  let content = JSON.stringify(result);
  if (content.length > RESULT_MAX_CHARS)
    content = `${content.slice(0, RESULT_MAX_CHARS)}… (${content.length - RESULT_MAX_CHARS} more characters)`;
  await db('tool_calls')
    .where({ id: call.id })
    .update({ status, result: JSON.stringify(result as ErrorBody), completed_at: db.fn.now() });
  const seq = await nextMessageSeq(db, turn.roomId);
  await db('room_messages').insert({
    id: `${call.id}:result`,
    room_id: turn.roomId,
    team_id: turn.team.id,
    seq,
    role: 'tool',
    content,
    turn_id: turn.id,
    tool_call_id: call.id,
  });
  await appendRoomEvents(db, turn.roomId, [
    ...before,
    { type: 'tool.result', data: { toolCallId: call.id, turnId: turn.id, name: call.name, status, result: content } },
  ]);
  await recordEvent(db, {
    teamId: turn.team.id,
    type: 'agent.action',
    subject: call.id,
    dedupeKey: `agent.action:${call.id}`,
    data: {
      roomId: turn.roomId,
      agentId: turn.agent.id,
      turnId: turn.id,
      toolCallId: call.id,
      tool: call.name,
      status,
      ...(turn.callerTeamId && { callerTeamId: turn.callerTeamId }),
    },
  });
}
