/**
 * `npm run bench`: the API against raw Temporal and plain Postgres, in one run on one dev server.
 *  (a) POST /v1/jobs starts vs. raw client.workflow.start with the same search attributes, same
 *      concurrency (no worker polls, so both measure starting only);
 *  (b) submit → succeeded for a trivial job (contacts.export of an empty team) vs. a no-op workflow;
 *  (a), (b) and (f) measure each side twice, in alternating order (A B B A);
 *  (c) a 100 000-row contacts.import vs. a plain batched knex insert of the same rows.
 *  (d) a campaign to BENCH_CAMPAIGN_RECIPIENTS contacts over SMTP and over HTTP (and over SMTP to
 *      BENCH_CAMPAIGN_LARGE, when set) vs. the strongest simple script sending the same messages
 *      (pooled connections, bulk status writes), both to a sink process that checks exactly-once delivery;
 *  (e) segment evaluation on BENCH_SEGMENT_CONTACTS contacts;
 *  (f) an MCP tool call vs. the same read over HTTP;
 *  (g) time to first token through API → Temporal → activity → Postgres → SSE vs. the fake model asked
 *      directly (200 ms first-token delay), BENCH_AGENT_SAMPLES samples each, alternating;
 *  (h) search_memories and a turn's topMemories at BENCH_MEMORIES memories of one agent (p95 targets ≤ 50 ms and ≤ 30 ms);
 *  (i) BENCH_ENROLLMENTS contacts created in one commit each run an automation's wait → email → wait journey
 *      (as cohorts) vs. a plain script doing the same waits and sends through one pooled transport, alternated;
 *      BENCH_ENROLLMENTS_LARGE more once, alone;
 *  (j) outbound webhook fan-out of BENCH_WEBHOOK_EVENTS events to a receiver answering in 50 ms vs. a plain
 *      script that signs and POSTs the same events 50 in flight.
 *  (k) a BENCH_ROOM_EVENTS-event room replayed to BENCH_ROOM_READERS slow SSE readers at once for
 *      BENCH_ROOM_READ_SECONDS: the API's RSS before, at peak and after; a live room's event latency idle and meanwhile.
 * Options (env): BENCH_SECONDS (default 10), BENCH_WARMUP (3: unmeasured seconds of each side of (a) and (f) first; (b) warms up on BENCH_JOBS / 6), BENCH_CONCURRENCY (32), BENCH_JOBS (300), BENCH_JOB_ROUNDS (3: rounds of (b)'s alternation), BENCH_ROWS (100000),
 * BENCH_CAMPAIGN_RECIPIENTS (100000), BENCH_CAMPAIGN_LARGE (unset: no large run; e.g. 1000000), BENCH_CAMPAIGN_TRANSPORTS (smtp,http), BENCH_SEGMENT_CONTACTS (1000000), BENCH_MEMORIES (100000), BENCH_AGENT_SAMPLES (60), BENCH_ENROLLMENTS (10000), BENCH_ENROLLMENTS_LARGE (unset: no large run; e.g. 100000), BENCH_WEBHOOK_EVENTS (10000), BENCH_ROOM_EVENTS (100000), BENCH_ROOM_READERS (200), BENCH_ROOM_READ_SECONDS (30), BENCH_ONLY (sections to run, e.g. "a,c" or "d,e"),
 * BENCH_PG_STATEMENTS=1 (Postgres loads pg_stat_statements; (a), (b), (d), (f) and (g) print the product side's top statements),
 * BENCH_TASK_QUEUE_PARTITIONS (unset: the dev server writes new tasks to 1 partition of each task queue; 4 is Temporal's default).
 * (a), (b) and (f) print the CPU each process spent per unit of work on each side (bench/procStats.ts).
 */
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { loadConfig } from '../config';
import { createDb, Db } from '../db/knex';
import { newId } from '../db/ids';
import { contactRowValues } from '../services/contacts/contacts';
import { bootstrapTeam } from '../services/platform/teams';
import {
  startApiProcess,
  startTestDevServer,
  startTestStack,
  startWorkerProcess,
  testDataDir,
} from '../test/setup/stack';
import { startDevServer } from '../temporal/devServer';
import { benchCampaigns, benchSegments } from './campaigns';
import { benchAgentStream } from './agentStream';
import { benchRoomReplay } from './roomReplay';
import { benchMemories } from './memories';
import { benchWebhookFanOut } from './webhooks';
import { benchAutomations } from './automations';
import { CpuSide, cpuPerUnitTable, stackLedger } from './procStats';
import { statementStats } from './pgStatements';
import { startFloor } from './floorJobs';
import { JobWorkflow, jobWorkflowName } from '../workflows/contracts/job';
import { BusinessIdKey, JobTypeKey, TeamSlugKey } from '../temporal/searchAttributes';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** (a) and (f) measure each side in two windows of BENCH_SECONDS, in alternating order. */
const WINDOW = SECONDS;
/**
 * Before its measured windows, each side of (a), (b) and (f) runs unmeasured for BENCH_WARMUP
 * seconds ((b): a sixth of BENCH_JOBS), so that neither is measured while its process compiles
 * its hot path: the API process of (a) is new, and its first window read a fifth slower than its second.
 */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);

/** One side of (a) or (f) for `cpuPerUnitTable`: its two autocannon windows, and their CPU. */
const windowedSide = (label: string, windows: Record<string, number>[], ...runs: autocannon.Result[]): CpuSide => ({
  label,
  windows,
  units: runs.reduce((n, run) => n + run.requests.total, 0),
  seconds: runs.length * WINDOW,
});
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const JOBS = Number(process.env.BENCH_JOBS ?? 300);
/**
 * (b) runs its alternation (no-op, job, floor, floor, job, no-op) this many times: with one, its
 * job / floor read anywhere from 0.88 to 1.05 on the same code (run 56).
 */
const JOB_ROUNDS = Number(process.env.BENCH_JOB_ROUNDS ?? 3);
const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const CAMPAIGN_RECIPIENTS = Number(process.env.BENCH_CAMPAIGN_RECIPIENTS ?? 100_000);
const CAMPAIGN_LARGE = Number(process.env.BENCH_CAMPAIGN_LARGE ?? 0);
const CAMPAIGN_TRANSPORTS = (process.env.BENCH_CAMPAIGN_TRANSPORTS ?? 'smtp,http').split(',').map((s) => s.trim()) as (
  'smtp' | 'http'
)[];
const SEGMENT_CONTACTS = Number(process.env.BENCH_SEGMENT_CONTACTS ?? 1_000_000);
const MEMORIES = Number(process.env.BENCH_MEMORIES ?? 100_000);
const AGENT_SAMPLES = Number(process.env.BENCH_AGENT_SAMPLES ?? 60);
const ROOM_EVENTS = Number(process.env.BENCH_ROOM_EVENTS ?? 100_000);
const ROOM_READERS = Number(process.env.BENCH_ROOM_READERS ?? 200);
const ROOM_READ_SECONDS = Number(process.env.BENCH_ROOM_READ_SECONDS ?? 30);
const WEBHOOK_EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 10_000);
const ENROLLMENTS = Number(process.env.BENCH_ENROLLMENTS ?? 10_000);
const ENROLLMENTS_LARGE = Number(process.env.BENCH_ENROLLMENTS_LARGE ?? 0);
const ONLY = process.env.BENCH_ONLY?.split(',').map((s) => s.trim());
const runs = (section: string) => !ONLY || ONLY.includes(section);
/** Postgres's statement statistics for (a), (b) and (f): a run of its own, as they cost the product side a little. */
const PG_STATEMENTS = process.env.BENCH_PG_STATEMENTS === '1';

const log = (line: string) => process.stdout.write(`${line}\n`);
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/**
 * The baseline of (a): `client.workflow.start` of the job workflow, as fast as the server takes it.
 * `asTheApi`: with what the API's start carries for operators (the team, job type and job id as
 * search attributes, a summary and details), which the server indexes and stores; without, a bare
 * start, for comparison.
 */
async function rawStarts(
  client: Client,
  taskQueue: string,
  asTheApi: boolean,
  seconds: number,
): Promise<{ rps: number; p50: number; p99: number }> {
  const latencies: number[] = [];
  const deadline = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < deadline) {
        const started = performance.now();
        const jobId = `job_${randomUUID().replace(/-/g, '')}`;
        await client.workflow.start<JobWorkflow>(jobWorkflowName, {
          taskQueue,
          workflowId: `raw-${jobId}`,
          args: [{ jobId, type: 'contacts.export', importBatchSize: 1, onePageExportFirst: true }],
          ...(asTheApi
            ? {
                typedSearchAttributes: [
                  { key: TeamSlugKey, value: 'bench-a' },
                  { key: JobTypeKey, value: 'contacts.export' },
                  { key: BusinessIdKey, value: jobId },
                ],
                staticSummary: `contacts.export job ${jobId} for team bench-a`,
                staticDetails: `Job **${jobId}** (\`contacts.export\`) of team **bench-a**. Status: GET http://127.0.0.1/v1/jobs/${jobId}`,
              }
            : {}),
        });
        latencies.push(performance.now() - started);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return { rps: latencies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function runPool<T>(items: T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

/**
 * Vacuums and checkpoints the database, so that the autovacuum of what a section wrote (100 000
 * imported contacts, a million segment contacts) does not run inside the next section's windows:
 * it did in (f), on whichever side it fell (run 28). A server at DATABASE_URL may refuse CHECKPOINT
 * to a user without the right; the vacuum is what matters.
 */
async function settlePostgres(db: Db): Promise<void> {
  await db.raw('VACUUM (ANALYZE)');
  await db.raw('CHECKPOINT').catch((err: Error) => log(`(CHECKPOINT refused: ${err.message})`));
}

/** A team on the unmetered `bench` plan. */
async function benchTeam(db: Db, prefix: string) {
  const team = await bootstrapTeam(db, { team: `${prefix}-${Date.now()}` });
  await db('teams').where({ id: team.teamId }).update({ plan: 'bench' });
  return team;
}

async function main(): Promise<void> {
  log(`# Benchmark (${new Date().toISOString()}, ${SECONDS}s windows, concurrency ${CONCURRENCY})`);
  // BENCH_TASK_QUEUE_PARTITIONS: how many partitions of each task queue the dev server writes new
  // tasks to (temporal/devServer.ts: 1; Temporal's default is 4).
  const partitions = process.env.BENCH_TASK_QUEUE_PARTITIONS;
  const devServerConfig: Record<string, number> = partitions
    ? { 'matching.numTaskqueueWritePartitions': Number(partitions) }
    : {};
  const stack = await startTestStack((cliPath) => startTestDevServer(cliPath, devServerConfig), {
    statementStats: PG_STATEMENTS,
  });
  // The rate limiter stays on the measured path (one shared-counter upsert per request); the
  // bench's teams are on a plan whose quota the runs cannot reach.
  const RATE_LIMITS = JSON.stringify({
    free: { requests: 600, perSeconds: 60 },
    bench: { requests: 1_000_000_000, perSeconds: 60 },
  });
  const base = {
    ...process.env,
    RATE_LIMITS,
    DATABASE_URL: stack.databaseUrl,
    TEMPORAL_ADDRESS: stack.temporal.address,
    WORKFLOW_BUNDLE_PATH: stack.bundlePath,
    LOG_LEVEL: 'silent',
    PORT: '0',
    HOST: '127.0.0.1',
  };
  const db: Db = createDb(stack.databaseUrl, { max: 30 });
  const connection = await Connection.connect({ address: stack.temporal.address });
  const client = new Client({ connection });
  const results: string[] = [];
  const report = (lines: string[]) => {
    results.push(...lines);
    log(lines.join('\n'));
  };

  try {
    const statements = await statementStats(db, PG_STATEMENTS);
    // (a) Starting: nobody polls (a)'s task queue, so only the start path is measured on both sides.
    if (runs('a')) {
      await settlePostgres(db);
      const teamA = await benchTeam(db, 'bench-a');
      // Every window of (a) has a Temporal server of its own, fresh. The starts stay open (no worker
      // runs them), and a server holding more of them takes the next start slower: one server for
      // all four windows read 500-560 starts/s in the first and 230-330 in the last (run 30), and
      // the later sections' work was slower on it too (its CPU per no-op workflow in (b) 5.5 ms
      // without (a) before it, 8.3 to 9.3 after, a minute's pause or not).
      const withFreshTemporal = async <T>(work: (address: string) => Promise<T>): Promise<T> => {
        const temporal = await startDevServer({
          cliPath: stack.cliPath,
          uiPort: null,
          logFile: path.join(testDataDir, 'temporal-a.log'),
          dynamicConfig: devServerConfig,
        });
        try {
          return await work(temporal.address);
        } finally {
          await temporal.stop();
        }
      };
      const rawCpu: Record<string, number>[] = [];
      const apiCpu: Record<string, number>[] = [];
      const rawWindow = (asTheApi = true) =>
        withFreshTemporal(async (address) => {
          const rawConnection = await Connection.connect({ address });
          try {
            const rawClient = new Client({ connection: rawConnection });
            await rawStarts(rawClient, 'bench-idle', asTheApi, WARMUP);
            const cpu = stackLedger({ API: null, 'bench (client)': process.pid });
            return await cpu.during(() => rawStarts(rawClient, 'bench-idle', asTheApi, WINDOW), rawCpu);
          } finally {
            await rawConnection.close();
          }
        });
      const floorCpu: Record<string, number>[] = [];
      /** POST /jobs windows against ours, or against the floor's API (bench/floorJobs.ts). */
      const httpWindow = (side: 'api' | 'floor') =>
        withFreshTemporal(async (address) => {
          const server =
            side === 'api'
              ? await startApiProcess({ ...base, TEMPORAL_ADDRESS: address, TEMPORAL_TASK_QUEUE: 'bench-idle' }).then(
                  (api) => ({ baseUrl: api.baseUrl, pid: api.child.pid!, stop: api.stop }),
                )
              : await startFloor({
                  databaseUrl: stack.databaseUrl,
                  temporalAddress: address,
                  taskQueue: 'bench-idle',
                  storage: path.join(testDataDir, 'floor-media'),
                  apiOnly: true,
                }).then((floor) => ({ baseUrl: floor.baseUrl, pid: floor.pids.api, stop: floor.stop }));
          try {
            const starts = (duration: number) =>
              autocannon({
                url: `${server.baseUrl}/jobs`,
                method: 'POST',
                connections: CONCURRENCY,
                duration,
                headers: {
                  authorization: `Bearer ${teamA.token}`,
                  'x-team-slug': teamA.team,
                  'content-type': 'application/json',
                },
                body: JSON.stringify({ type: 'contacts.export' }),
              });
            const warmUp = await starts(WARMUP);
            const cpu = stackLedger({ API: server.pid, 'bench (client)': process.pid });
            const windows = side === 'api' ? apiCpu : floorCpu;
            return { ...(await cpu.during(() => starts(WINDOW), windows)), warmUp: warmUp.requests.total };
          } finally {
            await server.stop();
          }
        });
      // Alternating, raw, API, floor, floor, API, raw: a drift over the run weighs on every side alike.
      const raw1 = await rawWindow();
      await statements?.reset();
      const api1 = await httpWindow('api');
      // The statements since the reset: the window and its warm-up.
      const apiStatements = await statements?.top(8, api1.warmUp + api1.requests.total, 'start');
      const floor1 = await httpWindow('floor');
      const floor2 = await httpWindow('floor');
      const api2 = await httpWindow('api');
      const raw2 = await rawWindow();
      const bare = await rawWindow(false);
      const non2xx = [api1, api2, floor1, floor2].reduce((n, w) => n + w.non2xx + w.errors, 0);
      const floorRps = (floor1.requests.average + floor2.requests.average) / 2;
      const rawRps = (raw1.rps + raw2.rps) / 2;
      const apiRps = (api1.requests.average + api2.requests.average) / 2;
      report([
        '## (a) Starting jobs',
        `| path | starts/s (mean of two ${WINDOW} s windows: first, second) | p50 ms | p99 ms |`,
        '|---|---|---|---|',
        `| raw client.workflow.start, with the API's search attributes, summary and details | ${rawRps.toFixed(0)} (${raw1.rps.toFixed(0)}, ${raw2.rps.toFixed(0)}) | ${raw1.p50.toFixed(1)}, ${raw2.p50.toFixed(1)} | ${raw1.p99.toFixed(1)}, ${raw2.p99.toFixed(1)} |`,
        `| POST /v1/jobs (auth, validation, job row, start) | ${apiRps.toFixed(0)} (${api1.requests.average.toFixed(0)}, ${api2.requests.average.toFixed(0)}) | ${api1.latency.p50}, ${api2.latency.p50} | ${api1.latency.p99}, ${api2.latency.p99} |`,
        `| floor: node:http + pg, the token and the job row in one statement, the same start (bench/floorJobs.ts) | ${floorRps.toFixed(0)} (${floor1.requests.average.toFixed(0)}, ${floor2.requests.average.toFixed(0)}) | ${floor1.latency.p50}, ${floor2.latency.p50} | ${floor1.latency.p99}, ${floor2.latency.p99} |`,
        `| raw client.workflow.start, bare (for comparison; one window) | ${bare.rps.toFixed(0)} | ${bare.p50.toFixed(1)} | ${bare.p99.toFixed(1)} |`,
        `ratio API / raw = **${(apiRps / rawRps).toFixed(2)}** (target ≥ 0.8); floor / raw ${(floorRps / rawRps).toFixed(2)}; API / floor ${(apiRps / floorRps).toFixed(2)}; API / bare start ${(apiRps / bare.rps).toFixed(2)}; non-2xx or errors: ${non2xx}`,
        '',
        ...cpuPerUnitTable('start', [
          {
            label: 'raw start',
            windows: rawCpu.slice(0, 2),
            units: (raw1.rps + raw2.rps) * WINDOW,
            seconds: 2 * WINDOW,
          },
          windowedSide('POST /v1/jobs', apiCpu, api1, api2),
          windowedSide('floor', floorCpu, floor1, floor2),
        ]),
        ...(apiStatements ? ['', ...apiStatements] : []),
      ]);
    }

    // (b) Completion: the real worker process and an in-process no-op workflow worker.
    const jobConfig = loadConfig({ ...base, TEMPORAL_TASK_QUEUE: 'bench-jobs' });
    // (j)'s receiver listens on 127.0.0.1, which production mode refuses (docs/EVENTS.md › SSRF).
    const jobEnv = { ...base, TEMPORAL_TASK_QUEUE: 'bench-jobs', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } as Record<
      string,
      string
    >;
    const jobWorker = await startWorkerProcess(jobEnv);
    const noopConnection = await NativeConnection.connect({ address: stack.temporal.address });
    const noopWorker = await Worker.create({
      connection: noopConnection,
      taskQueue: 'bench-noop',
      workflowsPath: require.resolve('./noopWorkflow'),
    });
    const noopRun = noopWorker.run();
    const jobsApi = await startApiProcess(jobEnv);
    const teamB = await benchTeam(db, 'bench-b');

    let started = performance.now();
    if (runs('b')) {
      await settlePostgres(db);
      const noops = async (count: number) => {
        const begun = performance.now();
        await runPool(
          Array.from({ length: count }, (_, i) => i),
          16,
          async () => {
            await client.workflow.execute('noopWorkflow', {
              taskQueue: 'bench-noop',
              workflowId: `noop-${randomUUID()}`,
            });
          },
        );
        return (performance.now() - begun) / 1000;
      };
      const jobs = async (count: number, baseUrl = jobsApi.baseUrl) => {
        const begun = performance.now();
        const jobIds: string[] = [];
        await runPool(
          Array.from({ length: count }, (_, i) => i),
          16,
          async () => {
            const res = await fetch(`${baseUrl}/jobs`, {
              method: 'POST',
              headers: {
                authorization: `Bearer ${teamB.token}`,
                'x-team-slug': teamB.team,
                'content-type': 'application/json',
              },
              body: JSON.stringify({ type: 'contacts.export' }),
            });
            jobIds.push(((await res.json()) as { jobId: string }).jobId);
          },
        );
        await waitUntil(async () => {
          const [{ n }] = await db('jobs').whereIn('id', jobIds).where({ status: 'succeeded' }).count({ n: '*' });
          return Number(n) === count;
        }, 300_000);
        return (performance.now() - begun) / 1000;
      };
      // The floor (bench/floorJobs.ts): the same job by the plainest program that does it on
      // Temporal, processes of its own beside ours, on the same servers.
      const floorSide = await startFloor({
        databaseUrl: stack.databaseUrl,
        temporalAddress: stack.temporal.address,
        taskQueue: 'bench-floor',
        storage: path.join(testDataDir, 'floor-media'),
      });
      try {
        // Where each side's CPU goes, per job: on two cores every side is bounded by CPU.
        const cpu = stackLedger({
          API: jobsApi.child.pid!,
          worker: jobWorker.child.pid!,
          'floor API': floorSide.pids.api,
          'floor worker': floorSide.pids.worker,
          'bench (client, no-op worker)': process.pid,
        });
        const noopCpu: Record<string, number>[] = [];
        const jobCpu: Record<string, number>[] = [];
        const floorCpu: Record<string, number>[] = [];
        const floorJobs = (count: number) => jobs(count, floorSide.baseUrl);
        await noops(Math.ceil(JOBS / 6));
        await jobs(Math.ceil(JOBS / 6));
        await floorJobs(Math.ceil(JOBS / 6));
        // Alternating, no-op, job, floor, floor, job, no-op, in JOB_ROUNDS rounds: BENCH_JOBS in each
        // window, and each side's windows of a round centred on the same moment of the run.
        const noopWindows: number[] = [];
        const jobWindows: number[] = [];
        const floorWindows: number[] = [];
        let jobStatements: string[] | undefined;
        for (let round = 0; round < JOB_ROUNDS; round++) {
          noopWindows.push(await cpu.during(() => noops(JOBS), noopCpu));
          if (round === 0) await statements?.reset();
          jobWindows.push(await cpu.during(() => jobs(JOBS), jobCpu));
          if (round === 0) jobStatements = await statements?.top(10, JOBS, 'job');
          floorWindows.push(await cpu.during(() => floorJobs(JOBS), floorCpu));
          floorWindows.push(await cpu.during(() => floorJobs(JOBS), floorCpu));
          jobWindows.push(await cpu.during(() => jobs(JOBS), jobCpu));
          noopWindows.push(await cpu.during(() => noops(JOBS), noopCpu));
        }
        const total = (windows: number[]) => windows.reduce((t, w) => t + w, 0);
        const noopSeconds = total(noopWindows);
        const jobSeconds = total(jobWindows);
        const floorSeconds = total(floorWindows);
        const units = 2 * JOB_ROUNDS * JOBS;
        const rate = (seconds: number) => (units / seconds).toFixed(1);
        const windowRates = (windows: number[]) => windows.map((w) => (JOBS / w).toFixed(1)).join(', ');
        // Each round's job / floor: how far one round's ratio strays from the run's.
        const roundRatios = Array.from({ length: JOB_ROUNDS }, (_, r) =>
          (total(floorWindows.slice(2 * r, 2 * r + 2)) / total(jobWindows.slice(2 * r, 2 * r + 2))).toFixed(2),
        );
        report([
          '## (b) Completing jobs (submit → succeeded)',
          '| path | jobs/s (each window) |',
          '|---|---|',
          `| raw no-op workflow (execute) | ${rate(noopSeconds)} (${windowRates(noopWindows)}) |`,
          `| contacts.export job via API (3 DB writes, CSV file) | ${rate(jobSeconds)} (${windowRates(jobWindows)}) |`,
          `| floor: the same job, node:http + pg + the SDK's defaults (bench/floorJobs.ts) | ${rate(floorSeconds)} (${windowRates(floorWindows)}) |`,
          `ratio job / raw = **${(noopSeconds / jobSeconds).toFixed(2)}** (target ≥ 0.7); floor / raw ${(noopSeconds / floorSeconds).toFixed(2)}; job / floor **${(floorSeconds / jobSeconds).toFixed(2)}** (target ≥ 0.95; round by round ${roundRatios.join(', ')}); ${JOB_ROUNDS} round${JOB_ROUNDS === 1 ? '' : 's'} of two windows of ${JOBS} each side, 16 in flight, alternating`,
          '',
          ...cpuPerUnitTable('job', [
            { label: 'raw no-op', windows: noopCpu, units, seconds: noopSeconds },
            { label: 'contacts.export via API', windows: jobCpu, units, seconds: jobSeconds },
            { label: 'floor', windows: floorCpu, units, seconds: floorSeconds },
          ]),
          ...(jobStatements ? ['', ...jobStatements] : []),
        ]);
      } finally {
        await floorSide.stop();
      }
    }

    // (c) A 100k-row import vs. the same rows inserted with plain batched knex.
    if (runs('c')) {
      const rows = Array.from({ length: ROWS }, (_, i) => ({
        name: `Person ${i}`,
        email: `person${i}@example.com`,
        company: `Company ${i % 97}`,
      }));
      const plainTeam = await benchTeam(db, 'bench-plain');
      started = performance.now();
      for (let offset = 0; offset < ROWS; offset += jobConfig.IMPORT_BATCH_SIZE) {
        await db('contacts')
          .insert(
            rows
              .slice(offset, offset + jobConfig.IMPORT_BATCH_SIZE)
              .map((row) => ({ id: newId('ct'), team_id: plainTeam.teamId, ...contactRowValues(row) })),
          )
          .onConflict()
          .ignore();
      }
      const plainSeconds = (performance.now() - started) / 1000;

      const teamC = await benchTeam(db, 'bench-c');
      started = performance.now();
      const res = await fetch(`${jobsApi.baseUrl}/jobs`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${teamC.token}`,
          'x-team-slug': teamC.team,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ type: 'contacts.import', input: { rows } }),
      });
      const { jobId } = (await res.json()) as { jobId: string };
      await waitUntil(
        async () => ['succeeded', 'failed'].includes((await db('jobs').where({ id: jobId }).first('status')).status),
        600_000,
      );
      const importSeconds = (performance.now() - started) / 1000;
      const job = await db('jobs').where({ id: jobId }).first();
      const history = (await client.workflow.getHandle(`job-${jobId}`).describe()).historyLength;
      results.push(
        `## (c) ${ROWS.toLocaleString('en')}-row contacts.import`,
        '| path | rows/s | seconds |',
        '|---|---|---|',
        `| plain batched knex insert (${jobConfig.IMPORT_BATCH_SIZE}/batch) | ${(ROWS / plainSeconds).toFixed(0)} | ${plainSeconds.toFixed(1)} |`,
        `| POST /v1/jobs contacts.import → succeeded | ${(ROWS / importSeconds).toFixed(0)} | ${importSeconds.toFixed(1)} |`,
        `ratio import / plain = **${(plainSeconds / importSeconds).toFixed(2)}**; job ${job.status}, imported ${job.result?.imported}; workflow history: ${history} events`,
      );
      log(results.slice(-6).join('\n'));
    }

    // (f) An MCP tool call against the same read over HTTP: MCP framing, a server per request, credit metering.
    if (runs('f')) {
      await settlePostgres(db);
      const teamF = await benchTeam(db, 'bench-f');
      const auth = { authorization: `Bearer ${teamF.token}`, 'x-team-slug': teamF.team };
      const mcpUrl = jobsApi.baseUrl.replace(/\/v1$/, '/mcp');
      const call = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'svc_list_agents', arguments: { limit: 25 } },
      });
      const mcpHeaders = { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      const probe = (await (await fetch(mcpUrl, { method: 'POST', headers: mcpHeaders, body: call })).json()) as {
        result?: { isError?: boolean };
      };
      if (!probe.result || probe.result.isError) throw new Error(`MCP probe failed: ${JSON.stringify(probe)}`);
      const httpReads = (duration = WINDOW) =>
        autocannon({
          url: `${jobsApi.baseUrl}/agents?limit=25`,
          connections: CONCURRENCY,
          duration,
          headers: auth,
        });
      const mcpCalls = (duration = WINDOW) =>
        autocannon({
          url: mcpUrl,
          method: 'POST',
          connections: CONCURRENCY,
          duration,
          headers: mcpHeaders,
          body: call,
        });
      // Where each side's CPU goes, per call.
      const cpu = stackLedger({ API: jobsApi.child.pid!, 'bench (load)': process.pid });
      const httpCpu: Record<string, number>[] = [];
      const mcpCpu: Record<string, number>[] = [];
      await httpReads(WARMUP);
      await mcpCalls(WARMUP);
      // Alternating, HTTP-MCP-MCP-HTTP.
      const http1 = await cpu.during(() => httpReads(), httpCpu);
      await statements?.reset();
      const mcp1 = await cpu.during(() => mcpCalls(), mcpCpu);
      const mcp2 = await cpu.during(() => mcpCalls(), mcpCpu);
      const mcpStatements = await statements?.top(6, mcp1.requests.total + mcp2.requests.total, 'MCP call');
      await statements?.reset();
      const http2 = await cpu.during(() => httpReads(), httpCpu);
      const httpStatements = await statements?.top(6, http2.requests.total, 'HTTP read (second window)');
      // The same exchange without a tool or credits: what the MCP framing itself costs.
      const list = await autocannon({
        url: mcpUrl,
        method: 'POST',
        connections: CONCURRENCY,
        duration: WINDOW,
        headers: mcpHeaders,
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      const usage = await db('credit_usage').where({ team_id: teamF.teamId }).first(db.raw('sum(calls)::int AS calls'));
      const httpRps = (http1.requests.average + http2.requests.average) / 2;
      const mcpRps = (mcp1.requests.average + mcp2.requests.average) / 2;
      const errors = (...r: autocannon.Result[]) => r.reduce((n, x) => n + x.non2xx + x.errors, 0);
      report([
        '## (f) MCP tool call vs the same read over HTTP',
        `| path | calls/s (mean of two ${WINDOW} s windows: first, second) | p50 ms | p99 ms |`,
        '|---|---|---|---|',
        `| GET /v1/agents | ${httpRps.toFixed(0)} (${http1.requests.average.toFixed(0)}, ${http2.requests.average.toFixed(0)}) | ${http1.latency.p50}, ${http2.latency.p50} | ${http1.latency.p99}, ${http2.latency.p99} |`,
        `| POST /mcp tools/call svc_list_agents (credits metered) | ${mcpRps.toFixed(0)} (${mcp1.requests.average.toFixed(0)}, ${mcp2.requests.average.toFixed(0)}) | ${mcp1.latency.p50}, ${mcp2.latency.p50} | ${mcp1.latency.p99}, ${mcp2.latency.p99} |`,
        `| POST /mcp tools/list (no tool, no credits; one window) | ${list.requests.average.toFixed(0)} | ${list.latency.p50} | ${list.latency.p99} |`,
        `ratio MCP / HTTP = **${(mcpRps / httpRps).toFixed(2)}**; non-2xx or errors: HTTP ${errors(http1, http2)}, MCP ${errors(mcp1, mcp2)}; credits counted for ${usage?.calls ?? 0} calls`,
        '',
        ...cpuPerUnitTable(
          'call',
          [windowedSide('GET /v1/agents', httpCpu, http1, http2), windowedSide('tools/call', mcpCpu, mcp1, mcp2)],
          2,
        ),
        ...(httpStatements && mcpStatements ? ['', ...httpStatements, '', ...mcpStatements] : []),
      ]);
    }

    const team = (prefix: string) => benchTeam(db, prefix);
    // Every section from here on starts on a vacuumed database.
    const settledFirst = (section: string) => runs(section) && settlePostgres(db).then(() => true);
    if (await settledFirst('d'))
      results.push(
        ...(await benchCampaigns({
          db,
          databaseUrl: stack.databaseUrl,
          client,
          apiBaseUrl: jobsApi.baseUrl,
          apiPid: jobsApi.child.pid!,
          workerPid: jobWorker.child.pid!,
          team,
          recipients: CAMPAIGN_RECIPIENTS,
          largeRecipients: CAMPAIGN_LARGE,
          transports: CAMPAIGN_TRANSPORTS,
          segmentContacts: SEGMENT_CONTACTS,
          statements: statements ?? undefined,
          log,
        })),
      );
    if (await settledFirst('e'))
      results.push(
        ...(await benchSegments({ db, apiBaseUrl: jobsApi.baseUrl, team, segmentContacts: SEGMENT_CONTACTS, log })),
      );
    if (await settledFirst('g')) {
      const teamG = await benchTeam(db, 'bench-g');
      await statements?.reset();
      const streamed = await benchAgentStream({
        db,
        baseUrl: jobsApi.baseUrl,
        team: teamG,
        samples: AGENT_SAMPLES,
        client,
      });
      // A turn waits on its statements one after another: planning counts as much as running.
      const turnStatements = await statements?.top(14, AGENT_SAMPLES + 1, 'turn', true);
      report([...streamed, ...(turnStatements ? ['', ...turnStatements] : [])]);
    }
    if (await settledFirst('h')) results.push(...(await benchMemories({ db, team, memories: MEMORIES, log })));
    if (await settledFirst('i'))
      report(
        await benchAutomations({
          db,
          client,
          apiBaseUrl: jobsApi.baseUrl,
          apiPid: jobsApi.child.pid!,
          workerPid: jobWorker.child.pid!,
          team: await benchTeam(db, 'bench-i'),
          enrollments: ENROLLMENTS,
          large: ENROLLMENTS_LARGE,
          log,
        }),
      );
    if (await settledFirst('j'))
      report(
        await benchWebhookFanOut({
          db,
          baseUrl: jobsApi.baseUrl,
          team: await benchTeam(db, 'bench-j'),
          events: WEBHOOK_EVENTS,
          log,
        }),
      );

    if (await settledFirst('k'))
      report(
        await benchRoomReplay({
          db,
          baseUrl: jobsApi.baseUrl,
          apiPid: jobsApi.child.pid!,
          team: await benchTeam(db, 'bench-k'),
          events: ROOM_EVENTS,
          readers: ROOM_READERS,
          readSeconds: ROOM_READ_SECONDS,
          log,
        }),
      );

    noopWorker.shutdown();
    await noopRun;
    await noopConnection.close();
    await jobsApi.stop();
    await jobWorker.stop();
  } finally {
    await connection.close();
    await db.destroy();
    await stack.temporal.stop();
    await stack.dropTestDatabase().catch(() => undefined);
    await stack.postgres.stop();
  }
  log('\n(copy the tables above into docs/BENCHMARKS.md)');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
