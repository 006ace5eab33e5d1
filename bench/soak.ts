/**
 * `npm run soak`: load held for SOAK_SECONDS (600) at a steady mix, on two API processes and two
 * worker processes, with one campaign of SOAK_RECIPIENTS (20 000) sending to the SMTP sink meanwhile.
 * The mix, round robin across the two APIs at SOAK_RATE requests a second (open loop: a slow answer
 * does not slow the load): POST /v1/jobs (contacts.export), GET /v1/jobs/{id} of an earlier job,
 * POST /v1/contacts, and an MCP tools/call (svc_list_agents).
 *
 * It prints, per kind, the count, the errors other than 429, and p50/p99 over the first and the last
 * minute and over the whole run; every process's RSS after the warm-up and at the end (and its peak);
 * and the campaign's end (every recipient exactly once at the sink). Exits 1 on any error other than
 * 429, on a campaign that did not complete exactly once, on accepted jobs not all succeeded within a
 * minute of the end, or on RSS growth beyond SOAK_RSS_GROWTH_MIB (64).
 *
 * Temporal: the dev server of the test stack; with SOAK_TEMPORAL=cluster, the production profile's
 * cluster (temporal/cluster.ts: v1.32.2 on Postgres, a process per service, as `npm run test:cluster`).
 */
import { randomBytes } from 'node:crypto';
import { bootstrapTeam } from '../services/platform/teams';
import { createDb } from '../db/knex';
import path from 'node:path';
import { clusterStateFile, readClusterState, startCluster, stopCluster } from '../temporal/cluster';
import { ensureTemporalServer } from '../temporal/server';
import { clusterPostgresUrl } from '../test/setup/clusterGlobalSetup';
import { startApiProcess, startTestStack, startWorkerProcess, testDataDir, WorkerProcess } from '../test/setup/stack';
import { peakRss, rssOf } from './procStats';
import { startSink } from './sink';

/** The production profile's cluster, fresh, its logs beside the test stack's. */
async function startSoakCluster() {
  const binaries = await ensureTemporalServer(log);
  const logDir = path.join(testDataDir, 'soak-cluster');
  const cluster = await startCluster({ binaries, postgresUrl: clusterPostgresUrl(), logDir, log });
  return { address: cluster.address, stop: () => stopCluster(readClusterState(clusterStateFile(logDir))) };
}

const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const RATE = Number(process.env.SOAK_RATE ?? 40);
const RECIPIENTS = Number(process.env.SOAK_RECIPIENTS ?? 20_000);
const WARMUP_SECONDS = 30;
const RSS_GROWTH_MIB = Number(process.env.SOAK_RSS_GROWTH_MIB ?? 64);
const KINDS = ['job start', 'job read', 'contact write', 'MCP tools/call'] as const;
type Kind = (typeof KINDS)[number];

/** The fields the soak reads from the API's JSON answers (a job, a campaign). */
type Answer = { id: string; status: string; sentCount: number };

interface Sample {
  kind: Kind;
  at: number;
  ms: number;
  status: number;
}

const log = (line: string) => process.stdout.write(`${line}\n`);
const quantile = (values: number[], q: number) => {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};

async function main(): Promise<void> {
  log(`# Soak (${new Date().toISOString()}): ${SECONDS} s at ${RATE} requests/s, a ${RECIPIENTS}-recipient campaign`);
  const onCluster = process.env.SOAK_TEMPORAL === 'cluster';
  const stack = onCluster ? await startTestStack(startSoakCluster) : await startTestStack();
  const temporalAddress = stack.temporal.address;
  const sink = await startSink();
  const env = {
    DATABASE_URL: stack.databaseUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    WORKFLOW_BUNDLE_PATH: stack.bundlePath,
    TEMPORAL_TASK_QUEUE: 'soak',
    SECRETS_KEY: randomBytes(32).toString('base64'),
    LOG_LEVEL: 'warn',
    // The plans as shipped, with the soak's team on `pro`: a 429 is an answer, not an error.
    MCP_CREDITS: JSON.stringify({ free: 50, pro: 10_000_000 }),
  };
  const processes: { name: string; proc: WorkerProcess }[] = [];
  const db = createDb(stack.databaseUrl, { max: 4 });
  try {
    for (const name of ['worker 1', 'worker 2']) processes.push({ name, proc: await startWorkerProcess(env) });
    const apis = [await startApiProcess(env), await startApiProcess(env)];
    apis.forEach((api, i) => processes.push({ name: `API ${i + 1}`, proc: api }));

    // Three teams, so that the mix stays steady: the exports read a fixed 200 contacts (the written
    // ones go to another team), and the campaign's 20 000 are a team of their own.
    const newTeam = async (name: string) => {
      const team = await bootstrapTeam(db, { team: `soak-${name}-${Date.now()}` });
      await db('teams').where({ id: team.teamId }).update({ plan: 'pro' });
      return team;
    };
    const [team, jobsTeam, writesTeam] = [await newTeam('campaign'), await newTeam('jobs'), await newTeam('writes')];
    let turn = 0;
    const nextApi = () => apis[turn++ % apis.length].baseUrl;
    const headersOf = (t: typeof team) => ({
      authorization: `Bearer ${t.token}`,
      'x-team-slug': t.team,
      'content-type': 'application/json',
    });
    const call = async (method: string, path: string, body?: unknown, as = team) => {
      const res = await fetch(`${nextApi()}${path}`, {
        method,
        headers: headersOf(as),
        body: body ? JSON.stringify(body) : undefined,
      });
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : {}) as Answer };
    };
    const must = async (method: string, path: string, body?: unknown) => {
      const res = await call(method, path, body);
      if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
      return res.body;
    };
    await db.raw(
      `INSERT INTO contacts (id, team_id, name, email, marketing_consent)
      SELECT 'ct_soakjobs_' || g, ?, 'Person ' || g, 'jobs' || g || '@soak.example', 'granted'
      FROM generate_series(1, 200) g`,
      [jobsTeam.teamId],
    );

    // The campaign, sent at the start and left to run under the mix.
    await db.raw(
      `INSERT INTO contacts (id, team_id, name, first_name, email, tags, marketing_consent)
      SELECT 'ct_soak_' || g, ?, 'Person ' || g, 'Person', 'soak' || g || '@soak.example', ARRAY['soak'], 'granted'
      FROM generate_series(1, ?) g`,
      [team.teamId, RECIPIENTS],
    );
    await must('PUT', `/agents/${team.agentId}/integrations/email`, {
      provider: 'smtp',
      config: { host: '127.0.0.1', port: sink.smtpPort },
      from: 'news@soak.example',
    });
    const campaign = await must('POST', '/campaigns', {
      name: 'soak',
      channel: 'email',
      subject: 'Hi {{first}}',
      content: 'Hello {{first}}',
      templateParams: { first: 'contact.firstName' },
      tags: ['soak'],
    });
    await must('POST', `/campaigns/${campaign.id}/send`, {});

    const jobIds: string[] = [];
    const samples: Sample[] = [];
    const mcpBody = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'svc_list_agents', arguments: { limit: 25 } },
    });
    const request = async (kind: Kind): Promise<number> => {
      switch (kind) {
        case 'job start': {
          const res = await call('POST', '/jobs', { type: 'contacts.export' }, jobsTeam);
          if (res.status === 202) jobIds.push(res.body.id);
          return res.status;
        }
        case 'job read': {
          const id = jobIds[Math.floor(Math.random() * jobIds.length)];
          return (await call('GET', id ? `/jobs/${id}` : '/jobs?limit=5', undefined, jobsTeam)).status;
        }
        case 'contact write': {
          const email = `w${randomBytes(6).toString('hex')}@soak.example`;
          return (await call('POST', '/contacts', { email }, writesTeam)).status;
        }
        case 'MCP tools/call': {
          const res = await fetch(nextApi().replace(/\/v1$/, '/mcp'), {
            method: 'POST',
            headers: { ...headersOf(jobsTeam), accept: 'application/json, text/event-stream' },
            body: mcpBody,
          });
          const answer = (await res.json()) as { result?: { isError?: boolean } };
          return res.status === 200 && answer.result && !answer.result.isError
            ? 200
            : res.status === 200
              ? 599
              : res.status;
        }
      }
    };
    const errors: string[] = [];
    const started = performance.now();
    const rssStart = new Map<string, number>();
    const peaks = new Map(processes.map(({ name, proc }) => [name, peakRss(proc.child.pid!)]));
    const inFlight = new Set<Promise<void>>();
    for (let i = 0; performance.now() - started < SECONDS * 1000; i++) {
      const due = started + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      if (!rssStart.size && performance.now() - started >= WARMUP_SECONDS * 1000)
        for (const { name, proc } of processes) rssStart.set(name, rssOf(proc.child.pid!));
      const kind = KINDS[i % KINDS.length];
      const t0 = performance.now();
      const done = request(kind)
        .then(
          (status) => status,
          (err: Error) => {
            errors.push(`${kind}: ${err.message}`);
            return 0;
          },
        )
        .then((status) => {
          samples.push({ kind, at: (t0 - started) / 1000, ms: performance.now() - t0, status });
          if (status !== 0 && status >= 400 && status !== 429 && errors.length < 20) errors.push(`${kind}: ${status}`);
        });
      inFlight.add(done);
      void done.finally(() => inFlight.delete(done));
    }
    await Promise.all(inFlight);
    const rssEnd = new Map(processes.map(({ name, proc }) => [name, rssOf(proc.child.pid!)]));

    // The campaign's end: it may still be sending if the mix slowed it.
    let final = {} as Answer;
    for (let waited = 0; waited < 600; waited++) {
      final = await must('GET', `/campaigns/${campaign.id}`);
      if (final.status !== 'sending') break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    const counts = await sink.counts('smtp');
    // A steady load is one the system keeps up with: the jobs it accepted have finished.
    let jobStates: Record<string, number> = {};
    for (let waited = 0; waited < 60; waited++) {
      const rows: { status: string; n: string }[] = await db('jobs')
        .where({ team_id: jobsTeam.teamId })
        .groupBy('status')
        .select('status', db.raw('count(*) AS n'));
      jobStates = Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
      if (!jobStates.queued && !jobStates.running) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    const jobsKeptUp = !jobStates.queued && !jobStates.running && !jobStates.failed;
    const exactlyOnce =
      final.status === 'completed' &&
      counts.recipients === RECIPIENTS &&
      counts.messages === RECIPIENTS &&
      counts.recipientsMoreThanOnce === 0;

    const lines = [
      `## Soak: ${SECONDS} s at ${RATE} requests/s on two APIs and two workers (Temporal at ${temporalAddress})`,
      '| kind | requests | errors (not 429) | 429 | p50 / p99 ms, first minute | p50 / p99 ms, last minute | p50 / p99 ms, all |',
      '|---|---|---|---|---|---|---|',
    ];
    let failures = 0;
    for (const kind of KINDS) {
      const of = samples.filter((s) => s.kind === kind);
      const bad = of.filter((s) => s.status === 0 || (s.status >= 400 && s.status !== 429)).length;
      failures += bad;
      const window = (from: number, to: number) => {
        const ms = of.filter((s) => s.at >= from && s.at < to).map((s) => s.ms);
        return `${quantile(ms, 0.5).toFixed(0)} / ${quantile(ms, 0.99).toFixed(0)}`;
      };
      lines.push(
        `| ${kind} | ${of.length} | ${bad} | ${of.filter((s) => s.status === 429).length} | ${window(0, 60)} | ${window(SECONDS - 60, SECONDS + 60)} | ${window(0, Infinity)} |`,
      );
    }
    lines.push('', '| process | RSS after warm-up (MiB) | RSS at end | peak |', '|---|---|---|---|');
    let grew = false;
    for (const { name } of processes) {
      const [a, b] = [rssStart.get(name) ?? NaN, rssEnd.get(name)!];
      grew ||= b - a > RSS_GROWTH_MIB;
      lines.push(`| ${name} | ${a.toFixed(0)} | ${b.toFixed(0)} | ${peaks.get(name)!().toFixed(0)} |`);
    }
    lines.push(
      '',
      `campaign: ${final.status}, sent ${final.sentCount} of ${RECIPIENTS}; the sink: ${counts.messages} messages, ` +
        `${counts.recipients} distinct recipients, ${counts.recipientsMoreThanOnce} more than once, ${counts.repeats} repeats by Message-ID` +
        ` → exactly once: ${exactlyOnce ? 'yes' : 'NO'}`,
      `jobs accepted: ${Object.entries(jobStates)
        .map(([status, n]) => `${n} ${status}`)
        .join(', ')} (within a minute of the load's end: ${jobsKeptUp ? 'all succeeded' : 'NOT all succeeded'})`,
      `errors other than 429: ${failures}${errors.length ? ` (first: ${errors.slice(0, 5).join('; ')})` : ''}; ` +
        `RSS growth beyond ${RSS_GROWTH_MIB} MiB: ${grew ? 'YES' : 'none'}`,
    );
    log(lines.join('\n'));
    if (failures || !exactlyOnce || grew || !jobsKeptUp) process.exitCode = 1;
  } finally {
    for (const { proc } of processes.reverse()) await proc.stop().catch(() => undefined);
    await db.destroy();
    await sink.stop();
    await stack.temporal.stop();
    await stack.dropTestDatabase().catch(() => undefined);
    await stack.postgres.stop();
  }
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  // A handle left open (a socket of a stopped process) must not keep the soak from ending.
  .finally(() => process.exit());
