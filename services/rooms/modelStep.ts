import type { Db } from '../../db/knex';
import type { ModelStepResult, PlannedToolCall } from '../../workflows/contracts/room';
import { ChatEvent, ChatModel, ModelError } from '../agents/models/chatModel';
import { modelFor } from '../agents/models/resolveModel';
import type { AppContext } from '../platform/context';
import { recordEvent } from '../events/outbox';
import { nextMessageSeq } from './messages';
import { appendRoomEvents } from './roomEvents';
import { loadTurnContext } from './turnContext';
import { beginTurn, loadTurn, TurnRecord } from './turnRecord';
import { settleCall } from './toolLedger';
import { approvalWarp, ToolRegistry, turnTools } from './turnTools';
import type { ErrorBody } from '../platform/errors';

/** Deltas are written at most this often (the first at once): a stream stays live without an event per token. */
export const DELTA_FLUSH_MS = 50;

export const assistantMessageId = (turnId: string, step: number) => `${turnId}:${step}`;
export const toolCallId = (turnId: string, step: number, index: number) => `${turnId}:${step}:${index}`;

/** The model an agent talks through: its own settings, else the server's (AI_BASE_URL), else the offline default. */
export function agentModel(ctx: AppContext, turn: TurnRecord): ChatModel {
  const sealed = turn.agent.modelBaseUrl ? turn.agent.modelApiKeySealed : null;
  const agentApiKey = sealed ? ctx.secretBox.decrypt<string>(sealed) : null;
  return modelFor({ agentBaseUrl: turn.agent.modelBaseUrl, agentModel: turn.agent.modelName, agentApiKey }, ctx.config);
}

/**
 * One model call of a turn: streams the answer into the room's events, then records in one
 * transaction the assistant message, the tool calls it asked for (the ledger rows the tools run
 * against), the model call's usage and the `message.completed` / `tool.call` events. A retried
 * attempt first tells clients to drop what the failed one streamed; an attempt that finds the
 * step already recorded (the worker died after the commit) answers from the record.
 */
export async function runModelStep(
  ctx: AppContext,
  registry: ToolRegistry,
  turnId: string,
  step: number,
  allowTools: boolean,
  attempt: number,
  heartbeat: () => void,
  signal?: AbortSignal,
): Promise<ModelStepResult> {
  const turn = await loadTurn(ctx.db, turnId);
  const messageId = assistantMessageId(turnId, step);
  const recorded = turn.steps >= step ? await recordedStep(ctx.db, registry, turn, messageId, step) : undefined;
  if (recorded) return recorded;
  const model = agentModel(ctx, turn);
  const tools = allowTools ? turnTools(registry, turn) : [];
  const messages = await loadTurnContext(ctx.db, turn);

  // The request goes out first; its bookkeeping (the turn marked running, the model call, the
  // message's first event) is written while the model thinks: time to first token. It starts once
  // the request has been written, so that building its statements does not hold the request back
  // (on the event loop's next turn it may not be written yet).
  const startedAt = Date.now();
  // Its own abort: a step that fails before reading the answer must not leave the model talking (and billing).
  const abort = new AbortController();
  signal?.addEventListener('abort', () => abort.abort(signal.reason), { once: true });
  let requestSent = () => {};
  const sent = new Promise<void>((resolve) => (requestSent = resolve));
  const answer = model.stream({
    messages,
    tools: tools.map((t) => t.chat),
    signal: abort.signal,
    onSent: requestSent,
  });
  const stream = answer[Symbol.asyncIterator]();
  const firstEvent = stream.next();
  const firstEventSettled = firstEvent.then(
    () => undefined,
    () => undefined,
  );
  const bookkeeping = Promise.race([sent, firstEventSettled]).then(() =>
    Promise.all([
      ctx
        .db('model_calls')
        .insert({ turn_id: turnId, team_id: turn.team.id, step, attempt, model: model.label, status: 'running' })
        .onConflict(['turn_id', 'step', 'attempt'])
        .merge({ status: 'running', started_at: ctx.db.fn.now() })
        .returning<{ id: number }[]>('id'),
      appendRoomEvents(ctx.db, turn.roomId, [
        attempt > 1
          ? { type: 'message.reset', data: { messageId, turnId, attempt } }
          : { type: 'message.created', data: { messageId, role: 'assistant', turnId } },
      ]),
      step === 1 ? beginTurn(ctx.db, turnId) : undefined,
    ]),
  );
  const [[{ id: modelCallId }]] = await bookkeeping.catch((err: unknown) => {
    abort.abort();
    throw err;
  });

  let firstTokenMs: number | null = null;
  let text = '';
  const calls: Extract<ChatEvent, { type: 'tool-call' }>[] = [];
  let usage = { promptTokens: 0, completionTokens: 0 };
  const deltas = new DeltaWriter(ctx.db, turn.roomId, messageId, heartbeat);
  try {
    for (let next = await firstEvent; !next.done; next = await stream.next()) {
      const event = next.value;
      if (event.type === 'text') {
        firstTokenMs ??= Date.now() - startedAt;
        text += event.text;
        await deltas.add(event.text);
      } else if (event.type === 'tool-call') calls.push(event);
      else usage = event.usage;
    }
    await deltas.flush();
  } catch (err) {
    abort.abort();
    deltas.stop();
    const failure = err instanceof ModelError ? err : new ModelError(String((err as Error)?.message ?? err), true);
    await ctx
      .db('model_calls')
      .where({ id: modelCallId })
      .update({
        status: 'failed',
        error: JSON.stringify({ message: failure.message, status: failure.status ?? null }),
        first_token_ms: firstTokenMs,
        finished_at: ctx.db.fn.now(),
      });
    throw failure;
  }

  const offered = new Map(tools.map((t) => [t.chat.name, t]));
  const planned: PlannedToolCall[] = calls.map((call, i) => ({
    id: toolCallId(turnId, step, i),
    name: call.name,
    approval: null as string | null,
  }));
  // A call the model could not make (a tool not offered at this step, arguments that are not an
  // object) is answered at once, with the step: nothing of it ever runs.
  const refusals = calls.map((call): ErrorBody | null =>
    !offered.has(call.name)
      ? { error: { code: 'unknown_tool', message: `No tool ${call.name} here; use the tools you were given` } }
      : call.input
        ? null
        : { error: { code: 'validation_error', message: `The arguments are not a JSON object: ${call.inputError}` } },
  );
  // A refused call asks nobody for approval.
  refusals.forEach((refusal, i) => {
    if (!refusal) planned[i].approval = offered.get(calls[i].name)?.approval ?? null;
  });
  await ctx.db.transaction(async (trx) => {
    const seq = await nextMessageSeq(trx, turn.roomId);
    const toolCalls = calls.map((call, i) => ({ id: planned[i].id, name: call.name, arguments: call.arguments }));
    await trx('room_messages').insert({
      id: messageId,
      room_id: turn.roomId,
      team_id: turn.team.id,
      seq,
      role: 'assistant',
      content: text,
      turn_id: turnId,
      tool_calls: toolCalls.length ? JSON.stringify(toolCalls) : null,
    });
    if (calls.length)
      await trx('tool_calls').insert(
        calls.map((call, i) => ({
          id: planned[i].id,
          turn_id: turnId,
          team_id: turn.team.id,
          name: call.name,
          arguments: JSON.stringify(call.input ?? { invalidArguments: call.arguments }),
          status: 'pending',
        })),
      );
    await trx('model_calls').where({ id: modelCallId }).update({
      status: 'succeeded',
      prompt_tokens: usage.promptTokens,
      completion_tokens: usage.completionTokens,
      first_token_ms: firstTokenMs,
      finished_at: trx.fn.now(),
    });
    await trx('room_turns')
      .where({ id: turnId })
      .update({
        steps: step,
        prompt_tokens: trx.raw('prompt_tokens + ?', [usage.promptTokens]),
        completion_tokens: trx.raw('completion_tokens + ?', [usage.completionTokens]),
      });
    await appendRoomEvents(trx, turn.roomId, [
      { type: 'message.completed', data: { messageId, turnId, content: text, toolCalls } },
      ...calls.map((call, i) => ({
        type: 'tool.call' as const,
        data: {
          toolCallId: planned[i].id,
          turnId,
          name: call.name,
          arguments: call.input ?? null,
          ...(call.inputError ? { error: call.inputError } : {}),
          needsApproval: planned[i].approval !== null,
        },
      })),
    ]);
    for (const [i, error] of refusals.entries())
      if (error) await settleCall(trx, turn, { id: planned[i].id, name: calls[i].name }, 'failed', error);
    // Outbound webhooks hear what the agent said (a step that only called tools said nothing).
    if (text)
      await recordEvent(trx, {
        teamId: turn.team.id,
        type: 'agent.message',
        subject: messageId,
        dedupeKey: `agent.message:${messageId}`,
        data: {
          roomId: turn.roomId,
          agentId: turn.agent.id,
          turnId,
          messageId,
          content: text,
          // An outside caller's room: flagged, and the team's internal hooks do not run on it.
          ...(turn.callerTeamId && { callerTeamId: turn.callerTeamId }),
        },
      });
  });
  return { toolCalls: planned, ...usage };
}

/** A step a previous attempt recorded before it died: the same answer, nothing billed or streamed twice. */
async function recordedStep(
  db: Db,
  registry: ToolRegistry,
  turn: TurnRecord,
  messageId: string,
  step: number,
): Promise<ModelStepResult | undefined> {
  const message = await db('room_messages').where({ id: messageId }).first('tool_calls');
  if (!message) return undefined;
  const calls: { id: string; name: string }[] = message.tool_calls ?? [];
  const [ledger, usage] = await Promise.all([
    db('tool_calls')
      .whereIn(
        'id',
        calls.map((c) => c.id),
      )
      .select('id', 'status'),
    db('model_calls')
      .where({ turn_id: turn.id, step, status: 'succeeded' })
      .first('prompt_tokens', 'completion_tokens'),
  ]);
  // A call refused with the step was settled then: it asks nobody for approval.
  const refused = new Set(ledger.filter((c: { status: string }) => c.status === 'failed').map((c) => c.id));
  return {
    toolCalls: calls.map((c) => ({
      id: c.id,
      name: c.name,
      approval: refused.has(c.id)
        ? null
        : approvalWarp(
            registry.all.find((t) => t.name === c.name),
            turn,
          ),
    })),
    promptTokens: usage?.prompt_tokens ?? 0,
    completionTokens: usage?.completion_tokens ?? 0,
  };
}

/**
 * Writes streamed text as `message.delta` events: the first piece at once (time to first token),
 * then whatever arrived, at most every DELTA_FLUSH_MS. Writes never overlap, so deltas keep their order.
 */
class DeltaWriter {
  private pending = '';
  private lastWrite = 0;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly roomId: string,
    private readonly messageId: string,
    private readonly heartbeat: () => void,
  ) {}

  async add(text: string): Promise<void> {
    this.pending += text;
    const wait = this.lastWrite + DELTA_FLUSH_MS - Date.now();
    if (wait <= 0) return this.flush();
    // A failed write surfaces at the final flush, which awaits the same chain.
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.flush().catch(() => undefined);
    }, wait);
  }

  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.writing = this.writing.then(async () => {
      if (!this.pending) return;
      const text = this.pending;
      this.pending = '';
      this.lastWrite = Date.now();
      await appendRoomEvents(this.db, this.roomId, [
        { type: 'message.delta', data: { messageId: this.messageId, text } },
      ]);
      this.heartbeat();
    });
    return this.writing;
  }

  stop(): void {
    clearTimeout(this.timer);
    this.pending = '';
  }
}
