import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { Webhook } from 'standardwebhooks';
import type { Db } from '../db/knex';
import { recordEvent } from '../services/events/outbox';
import { webhookBody } from '../services/webhooks/send';

/**
 * (j) Outbound webhook fan-out: EVENTS platform events recorded at once, each delivered to a
 * receiver that answers after RECEIVER_LATENCY_MS, through the platform (outbox → dispatcher →
 * `webhook-batch-<id>` → signed POSTs) vs. the strongest simple program for the job: one
 * process that reads the same events from Postgres and POSTs them, signed the same way, with
 * BASELINE_IN_FLIGHT requests in flight over kept-alive connections. The receiver verifies every
 * signature and counts each `webhook-id` once; lag is receipt time less the event's commit time.
 */
export interface WebhookBenchOptions {
  db: Db;
  baseUrl: string;
  team: { token: string; team: string; teamId: string };
  events: number;
  log: (line: string) => void;
}

const RECEIVER_LATENCY_MS = 50;
const BASELINE_IN_FLIGHT = 50;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

/** Answers 204 after the latency; every verified webhook-id counted once, with when it first arrived. */
async function startReceiver(secret: string) {
  const verifier = new Webhook(secret);
  const firstSeen = new Map<string, number>();
  let refused = 0;
  let repeats = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      try {
        verifier.verify(Buffer.concat(chunks).toString('utf8'), req.headers as Record<string, string>);
      } catch {
        refused++;
        res.writeHead(401).end();
        return;
      }
      const id = String(req.headers['webhook-id']);
      if (firstSeen.has(id)) repeats++;
      else firstSeen.set(id, at);
      setTimeout(() => res.writeHead(204).end(), RECEIVER_LATENCY_MS);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    firstSeen,
    stats: () => ({ refused, repeats }),
    reset: () => {
      firstSeen.clear();
      refused = 0;
      repeats = 0;
    },
    waitFor: async (count: number, timeoutMs: number) => {
      const deadline = Date.now() + timeoutMs;
      while (firstSeen.size < count) {
        if (Date.now() > deadline) throw new Error(`bench (j): ${firstSeen.size} of ${count} webhooks arrived in time`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** EVENTS events of the team in one commit, as a bulk import would record them; answers their commit time. */
async function recordBurst(
  db: Db,
  teamId: string,
  events: number,
  tag: string,
): Promise<{ ids: string[]; at: number }> {
  const ids: string[] = [];
  await db.transaction(async (trx) => {
    // One at a time: a transaction is one connection, which runs one query at a time anyway (pg
    // deprecates queueing them on one client).
    for (let i = 0; i < events; i++)
      ids.push(
        await recordEvent(trx, {
          teamId,
          type: 'contact.created',
          subject: `${tag}-${i}`,
          dedupeKey: `bench-j:${tag}:${i}`,
          data: { contact: { id: `${tag}-${i}`, email: `j${i}@example.test` } },
        }),
      );
  });
  return { ids, at: Date.now() };
}

type EventRow = { id: string; type: string; created_at: Date; data: unknown };
const PLAIN_CHUNK = 500;

/**
 * The plain program: events read from Postgres a chunk ahead of the senders, each POSTed signed by
 * whichever of BASELINE_IN_FLIGHT senders is free, so every slot stays busy whatever the burst's size.
 */
async function plainFanOut(db: Db, ids: string[], url: string, secret: string): Promise<void> {
  const signer = new Webhook(secret);
  const dispatcher = new Agent({ connections: BASELINE_IN_FLIGHT, keepAliveTimeout: 60_000 });
  const readChunk = (from: number): Promise<EventRow[]> =>
    from >= ids.length
      ? Promise.resolve([])
      : db('platform_events')
          .whereIn('id', ids.slice(from, from + PLAIN_CHUNK))
          .select('id', 'type', 'created_at', 'data');
  let queue: EventRow[] = [];
  let nextRead = 0;
  let reading: Promise<EventRow[]> | null = readChunk(nextRead);
  const take = async (): Promise<EventRow | undefined> => {
    while (queue.length === 0 && reading) {
      const current = reading;
      const rows = await current;
      // Another sender may have taken this chunk in already.
      if (reading !== current) continue;
      nextRead += PLAIN_CHUNK;
      reading = nextRead < ids.length ? readChunk(nextRead) : null;
      queue = queue.concat(rows);
    }
    return queue.shift();
  };
  try {
    await Promise.all(
      Array.from({ length: BASELINE_IN_FLIGHT }, async () => {
        for (let row = await take(); row; row = await take()) {
          const body = webhookBody({ type: row.type, createdAt: row.created_at, data: row.data });
          const msgId = `plain_${row.id}`;
          const signedAt = new Date();
          const res = await request(url, {
            method: 'POST',
            dispatcher,
            headers: {
              'content-type': 'application/json',
              'webhook-id': msgId,
              'webhook-timestamp': String(Math.floor(signedAt.getTime() / 1000)),
              'webhook-signature': signer.sign(msgId, signedAt, body),
            },
            body,
          });
          await res.body.dump();
        }
      }),
    );
  } finally {
    await dispatcher.close();
  }
}

interface SideRun {
  seconds: number;
  lag: number[];
  refused: number;
  repeats: number;
}

/** Both sides twice, in the order platform, plain, plain, platform, so neither always runs on a warmer machine. */
const ORDER = ['platform', 'plain', 'plain', 'platform'] as const;

export async function benchWebhookFanOut(opts: WebhookBenchOptions): Promise<string[]> {
  const headers = {
    authorization: `Bearer ${opts.team.token}`,
    'x-team-slug': opts.team.team,
    'content-type': 'application/json',
  };
  const secret = `whsec_${Buffer.from('bench-j-secret-bench-j-secret!!').toString('base64')}`;
  const receiver = await startReceiver(secret);
  try {
    const created = await fetch(`${opts.baseUrl}/webhooks/endpoints`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: `${receiver.url}/hooks`, secret, eventTypes: ['contact.created'], enabled: false }),
    });
    if (created.status !== 201) throw new Error(`bench (j): endpoint not created: ${await created.text()}`);
    const { id: endpointId } = (await created.json()) as { id: string };
    // The endpoint is on only for the platform's bursts, so the plain script's events are not also delivered.
    const setEndpoint = (enabled: boolean) =>
      fetch(`${opts.baseUrl}/webhooks/endpoints/${endpointId}`, {
        method: 'PATCH',
        headers,
        body: JSON.stringify({ enabled }),
      });
    const allDispatched = async (ids: string[]) => {
      while ((await opts.db('platform_events').whereIn('id', ids).whereNull('dispatched_at').first('id')) !== undefined)
        await new Promise((r) => setTimeout(r, 100));
    };
    const measured = (at: number): SideRun => {
      const seen = [...receiver.firstSeen.values()];
      return { seconds: (Math.max(...seen) - at) / 1000, lag: seen.map((t) => t - at), ...receiver.stats() };
    };
    const runs: Record<(typeof ORDER)[number], SideRun[]> = { platform: [], plain: [] };
    for (const [round, side] of ORDER.entries()) {
      receiver.reset();
      if (side === 'platform') {
        await setEndpoint(true);
        const burst = await recordBurst(opts.db, opts.team.teamId, opts.events, `ours${round}`);
        await receiver.waitFor(opts.events, 30 * 60_000);
        runs.platform.push(measured(burst.at));
        await setEndpoint(false);
      } else {
        const burst = await recordBurst(opts.db, opts.team.teamId, opts.events, `plain${round}`);
        await plainFanOut(opts.db, burst.ids, `${receiver.url}/plain`, secret);
        await receiver.waitFor(opts.events, 60_000);
        runs.plain.push(measured(burst.at));
        // Dispatched (to nobody) before the endpoint is on again.
        await allDispatched(burst.ids);
      }
      opts.log(`(j) ${side}: ${opts.events} webhooks in ${runs[side].at(-1)!.seconds.toFixed(1)} s`);
    }
    // Attempts are written by group commit after the receiver has answered: the last ones are
    // given a few seconds to land before they are counted.
    const countAttempts = async () =>
      Number(
        (
          await opts
            .db('webhook_attempts as a')
            .join('webhook_deliveries as d', 'd.id', 'a.delivery_id')
            .where('d.team_id', opts.team.teamId)
            .count({ n: '*' })
        )[0].n,
      );
    let recorded = await countAttempts();
    for (let i = 0; i < 50 && recorded < 2 * opts.events; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      recorded = await countAttempts();
    }
    const attempts = [{ n: String(recorded) }];

    const row = (name: string, sides: SideRun[]) => {
      const seconds = sides.reduce((sum, r) => sum + r.seconds, 0);
      const lag = sides.flatMap((r) => r.lag);
      const count = (k: 'refused' | 'repeats') => sides.reduce((sum, r) => sum + r[k], 0);
      return `| ${name} | ${((sides.length * opts.events) / seconds).toFixed(0)} (${sides.map((r) => (opts.events / r.seconds).toFixed(0)).join(' / ')}) | ${percentile(lag, 50).toFixed(0)} | ${percentile(lag, 99).toFixed(0)} | ${count('refused')} | ${count('repeats')} |`;
    };
    const total = (sides: SideRun[]) => sides.reduce((sum, r) => sum + r.seconds, 0);
    return [
      `## (j) Outbound webhook fan-out (${opts.events} events in one commit, receiver answers after ${RECEIVER_LATENCY_MS} ms, signatures verified; each side twice, ${ORDER.join(', ')})`,
      '| path | events/s (each run) | lag p50 ms | lag p99 ms | refused | repeats |',
      '|---|---|---|---|---|---|',
      row(
        'outbox → dispatcher → webhook-batch workflows (up to 500 first attempts per activity, 50 in flight per endpoint)',
        runs.platform,
      ),
      row(`plain script: read events, sign, POST ${BASELINE_IN_FLIGHT} in flight`, runs.plain),
      `ratio platform / plain = **${(total(runs.plain) / total(runs.platform)).toFixed(2)}**; attempts recorded: ${attempts[0].n} for ${2 * opts.events} platform events. Lag is from the burst's commit, so it includes the wait behind earlier events.`,
    ];
  } finally {
    await receiver.close();
  }
}
