import { createParser } from 'eventsource-parser';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { Db } from '../db/knex';
import { roomWorkflowId } from '../workflows/contracts/room';
import { startModelServer } from '../test/fakes/modelServer';

/**
 * (g) Time to first token through the whole platform (API → Temporal → turn workflow → model
 * activity → Postgres event → NOTIFY → SSE) against the fake model with a fixed 200 ms first-token
 * delay, vs. asking the same fake model directly. The two are measured alternately, one sample
 * each, so both see the same machine; the overhead is the difference of their percentiles.
 */
export interface AgentStreamBenchOptions {
  db: Db;
  baseUrl: string;
  team: { token: string; team: string; agentId: string };
  samples: number;
  /** With a client, the section also says where the overhead goes (medians of each stage, from the histories). */
  client?: Client;
}

const FIRST_TOKEN_DELAY_MS = 200;
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

/** A stream kept open for the whole run, as a console or an SDK client keeps it. */
function followRoom(streamUrl: string) {
  const firstDelta = new Map<string, number>();
  const completed = new Map<string, number>();
  const waiters = new Set<() => void>();
  const abort = new AbortController();
  const parser = createParser({
    onEvent: (event) => {
      const data = JSON.parse(event.data);
      const now = performance.now();
      if (event.event === 'message.delta' && !firstDelta.has(data.messageId)) firstDelta.set(data.messageId, now);
      if (event.event === 'turn.completed' || event.event === 'turn.failed') completed.set(data.turnId, now);
      for (const wake of waiters) wake();
    },
  });
  const reading = (async () => {
    const res = await fetch(streamUrl, { headers: { accept: 'text/event-stream' }, signal: abort.signal });
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk));
  })().catch(() => undefined);
  const until = async (check: () => boolean, timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > deadline) throw new Error('bench (g): the stream did not deliver in time');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 50);
        waiters.add(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      waiters.clear();
    }
  };
  return {
    firstDelta,
    completed,
    until,
    close: async () => {
      abort.abort();
      await reading;
    },
  };
}

export async function benchAgentStream(opts: AgentStreamBenchOptions): Promise<string[]> {
  const fake = await startModelServer({
    defaultReply: { chunks: ['ok', ' then', ' more'], firstTokenDelayMs: FIRST_TOKEN_DELAY_MS },
  });
  try {
    await opts.db('agents').where({ id: opts.team.agentId }).update({ model_base_url: fake.url, model_name: 'fake' });
    const headers = {
      authorization: `Bearer ${opts.team.token}`,
      'x-team-slug': opts.team.team,
      'content-type': 'application/json',
    };
    const opened = (await (
      await fetch(`${opts.baseUrl}/rooms`, { method: 'POST', headers, body: JSON.stringify({ name: 'bench-g' }) })
    ).json()) as { room: { id: string }; streamUrl: string };
    const room = followRoom(opened.streamUrl);

    const traces: TurnTrace[] = [];
    const ours = async (i: number) => {
      const started = performance.now();
      const postedAt = Date.now();
      const res = await fetch(`${opts.baseUrl}/agents/${opts.team.agentId}/messages`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ message: `sample ${i}`, roomId: opened.room.id, waitSeconds: 0 }),
      });
      const { turnId } = (await res.json()) as { turnId: string };
      await room.until(() => room.firstDelta.has(`${turnId}:1`));
      const ttft = room.firstDelta.get(`${turnId}:1`)! - started;
      traces.push({
        turnId,
        postedAt,
        firstDeltaAt: postedAt + ttft,
        modelAskedAt: fake.requests.at(-1)?.receivedAt ?? 0,
      });
      await room.until(() => room.completed.has(turnId));
      return ttft;
    };
    const direct = async () => {
      const started = performance.now();
      const res = await fetch(`${fake.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'fake', stream: true, messages: [{ role: 'user', content: 'direct' }] }),
      });
      const decoder = new TextDecoder();
      let ttft = 0;
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        if (!ttft && decoder.decode(chunk).includes('"content":"ok"')) ttft = performance.now() - started;
      }
      return ttft;
    };

    await ours(0); // warm: the room's workflow and the worker's caches
    const platform: number[] = [];
    const baseline: number[] = [];
    for (let i = 1; i <= opts.samples; i++) {
      if (i % 2) {
        baseline.push(await direct());
        platform.push(await ours(i));
      } else {
        platform.push(await ours(i));
        baseline.push(await direct());
      }
    }
    await room.close();
    const row = (name: string, values: number[]) =>
      `| ${name} | ${percentile(values, 50).toFixed(1)} | ${percentile(values, 95).toFixed(1)} |`;
    const p50 = percentile(platform, 50) - percentile(baseline, 50);
    const p95 = percentile(platform, 95) - percentile(baseline, 95);
    return [
      `## (g) Time to first token (fake model, ${FIRST_TOKEN_DELAY_MS} ms first-token delay, ${opts.samples} samples each, alternating)`,
      '| path | p50 ms | p95 ms |',
      '|---|---|---|',
      row('the fake model, asked directly (streamed)', baseline),
      row('POST /v1/agents/{id}/messages → first message.delta on the room stream', platform),
      `overhead p50 **${p50.toFixed(1)} ms** (target ≤ 50), p95 **${p95.toFixed(1)} ms** (target ≤ 150)`,
      ...(opts.client ? await whereTheTimeGoes(opts.client, opts.db, traces.slice(1)) : []),
    ];
  } finally {
    await fake.close();
  }
}

interface TurnTrace {
  turnId: string;
  postedAt: number;
  firstDeltaAt: number;
  modelAskedAt: number;
}

const { EventType } = temporal.api.enums.v1;
const median = (values: number[]) => percentile(values, 50);

/**
 * Each stage of a sample, from its own clock: the API's rows, the room's history (the task that
 * accepted the turn's update and scheduled its first model call, that call's start) and the fake
 * model's receipt.
 */
async function whereTheTimeGoes(client: Client, db: Db, traces: TurnTrace[]): Promise<string[]> {
  const stages = new Map<string, number[]>();
  const add = (name: string, ms: number) => stages.set(name, [...(stages.get(name) ?? []), ms]);
  // Every run of each room: a room continues as new every 50 turns, so its turns span runs.
  const runsOf = new Map<string, temporal.api.history.v1.IHistoryEvent[][]>();
  let counted = 0;
  const timeOf = (e: temporal.api.history.v1.IHistoryEvent | undefined) =>
    e?.eventTime ? Number(e.eventTime.seconds) * 1000 + Math.floor((e.eventTime.nanos ?? 0) / 1e6) : NaN;
  for (const trace of traces) {
    const [turnRow] = await db('room_turns').where({ id: trace.turnId }).select('created_at', 'room_id');
    if (!runsOf.has(turnRow.room_id)) {
      const workflowId = roomWorkflowId(turnRow.room_id);
      const runs: temporal.api.history.v1.IHistoryEvent[][] = [];
      for await (const run of client.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
        runs.push((await client.workflow.getHandle(workflowId, run.runId).fetchHistory()).events ?? []);
      runsOf.set(turnRow.room_id, runs);
    }
    const isAccepted = (e: temporal.api.history.v1.IHistoryEvent) =>
      e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.meta?.updateId === trace.turnId;
    const events = runsOf.get(turnRow.room_id)!.find((run) => run.some(isAccepted));
    if (!events) continue;
    const accepted = events.findIndex(isAccepted);
    const taskStarted = events
      .slice(0, accepted)
      .reverse()
      .find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED);
    // The task's completion is written before what it did: the update accepted, the call scheduled.
    const taskCompleted = events
      .slice(0, accepted)
      .reverse()
      .find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED);
    const scheduled = events
      .slice(accepted)
      .find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'modelStep');
    const modelStarted = events.find(
      (e) =>
        e.activityTaskStartedEventAttributes &&
        Number(e.activityTaskStartedEventAttributes.scheduledEventId) === Number(scheduled?.eventId),
    );
    // A turn accepted by a run about to continue as new runs in the next: its stages span two runs.
    if (!taskStarted || !taskCompleted || !modelStarted) continue;
    counted++;
    add('POST → turn row written (auth, message, turn)', turnRow.created_at.getTime() - trace.postedAt);
    add('turn row → room task picked up (update-with-start)', timeOf(taskStarted) - turnRow.created_at.getTime());
    add('room task ran (the update accepted, the model call scheduled)', timeOf(taskCompleted) - timeOf(taskStarted));
    add('task completed → model activity started', timeOf(modelStarted) - timeOf(taskCompleted));
    add('activity started → model asked (reads)', trace.modelAskedAt - timeOf(modelStarted));
    add(
      'model asked → first delta at the client (model delay, write, NOTIFY, SSE)',
      trace.firstDeltaAt - trace.modelAskedAt - FIRST_TOKEN_DELAY_MS,
    );
  }
  return [
    '',
    `Where the time goes (medians of ${counted} samples, from the room's histories; the last stage less the model's ${FIRST_TOKEN_DELAY_MS} ms):`,
    '| stage | p50 ms |',
    '|---|---|',
    ...[...stages].map(([name, values]) => `| ${name} | ${median(values).toFixed(1)} |`),
  ];
}
