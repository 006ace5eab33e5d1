import { freePort } from '../../temporal/freePort';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { FakeProviderServer } from '../fakes/providerServer';
import { startWorkerProcess, WorkerProcess } from '../setup/stack';
import { customSearchAttributes } from '../../temporal/searchAttributes';
import { Client, Connection } from '@temporalio/client';
import { loadConfig } from '../../config';
import { createDb, Db } from '../../db/knex';
import { startServer, RunningServer } from '../../server';
import { bootstrapTeam } from '../../services/platform/teams';

let teamCounter = 0;

/** A database handle on the suite's fresh test database. */
export function testDb(): Db {
  return createDb(process.env.DATABASE_URL!, { max: 5 });
}

/**
 * The real API on a free port, against the suite's Temporal and Postgres. It logs errors only: a
 * 500 prints its stack, so a test that meets one in CI says why.
 */
export async function startTestApi(
  db: Db,
  env: Record<string, string> = {},
): Promise<RunningServer & { baseUrl: string }> {
  const config = loadConfig({ ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'error', ...env });
  const server = await startServer(config, db);
  return { ...server, baseUrl: server.ctx.config.baseUrl };
}

/**
 * The real API advertising four distinct origins, as the spec draws them ({base_url}, {mcp_url},
 * {auth_url}, {site_url}): four loopback addresses on one port, all served by this one process.
 */
export async function startTestApiOnFourHosts(db: Db, env: Record<string, string> = {}) {
  const port = await freePort('0.0.0.0');
  return startTestApi(db, {
    HOST: '0.0.0.0',
    PORT: String(port),
    BASE_URL: `http://127.0.0.1:${port}/v1`,
    MCP_URL: `http://127.0.0.2:${port}`,
    AUTH_URL: `http://127.0.0.3:${port}`,
    SITE_URL: `http://127.0.0.4:${port}`,
    ...env,
  });
}

export interface TestTeam {
  slug: string;
  teamId: string;
  userId: string;
  agentId: string;
  token: string;
}

export async function newTeam(db: Db, prefix = 'team'): Promise<TestTeam> {
  const slug = `${prefix}-${process.pid}-${Date.now().toString(36)}-${teamCounter++}`;
  const result = await bootstrapTeam(db, { team: slug });
  return { slug, teamId: result.teamId, userId: result.userId, agentId: result.agentId, token: result.token };
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** A minimal HTTP client for one team, as an API client would use the service. */
export function apiClient(baseUrl: string, team: { token: string; slug: string }) {
  async function call<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse<T>> {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${team.token}`,
        'x-team-slug': team.slug,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON: keep the text */
    }
    return { status: res.status, headers: res.headers, body: parsed as T };
  }
  return {
    get: <T = any>(path: string, headers?: Record<string, string>) => call<T>('GET', path, undefined, headers),
    post: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) =>
      call<T>('POST', path, body, headers),
    call,
  };
}
export type ApiClient = ReturnType<typeof apiClient>;

/** Polls GET /jobs/{id} until `done` holds for the job (default: it finished). */
export async function waitForJob(
  api: ApiClient,
  jobId: string,
  opts: { timeoutMs?: number; done?: (job: any) => boolean } = {},
): Promise<any> {
  const done = opts.done ?? ((job) => job.status === 'succeeded' || job.status === 'failed');
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  let last: any;
  while (Date.now() < deadline) {
    const res = await api.get(`/jobs/${jobId}`);
    last = res.body;
    if (res.status === 200 && done(res.body)) return res.body;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`job ${jobId} did not reach the expected state; last seen: ${JSON.stringify(last)}`);
}

export async function temporalClient(): Promise<Client> {
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  return new Client({ connection, namespace: 'default' });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Registers beforeAll/afterAll for a suite that talks to the API as one team: a database handle,
 * the API on a free port, a fresh team and its client. Read the fields inside tests.
 */
export function useApiSuite(teamPrefix: string) {
  const suite = {} as { db: Db; server: RunningServer & { baseUrl: string }; team: TestTeam; api: ApiClient };
  beforeAll(async () => {
    suite.db = testDb();
    suite.server = await startTestApi(suite.db);
    suite.team = await newTeam(suite.db, teamPrefix);
    suite.api = apiClient(suite.server.baseUrl, suite.team);
  });
  afterAll(async () => {
    await suite.server?.close();
    await suite.db?.destroy();
  });
  return suite;
}

/**
 * The Temporal test environment on the project's CLI binary (the time-skipping server cannot be
 * downloaded here), with the search attributes the workflows set.
 */
export function workflowTestEnvironment(): Promise<TestWorkflowEnvironment> {
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: process.env.TEMPORAL_CLI_PATH! },
      searchAttributes: customSearchAttributes,
      ui: false,
    },
  });
}

/** Saves a workflow's history for the replay test, when RECORD_HISTORIES=1. */
export function recordHistory(env: TestWorkflowEnvironment, name: string, workflowId: string, runId?: string): void {
  if (!process.env.RECORD_HISTORIES) return;
  // The CLI writes the same JSON that the Temporal UI's "download history" gives operators.
  const json = execFileSync(process.env.TEMPORAL_CLI_PATH!, [
    'workflow',
    'show',
    '--workflow-id',
    workflowId,
    ...(runId ? ['--run-id', runId] : []),
    '--address',
    env.address,
    '--output',
    'json',
  ]);
  fs.writeFileSync(path.join(__dirname, '..', 'workflows', 'replay', 'histories', `${name}.json`), json);
}

/**
 * Registers beforeAll/afterAll for a workflow test: the Temporal test environment, a database
 * handle, a fresh team, and a worker on `taskQueue` with the activities `activities` builds
 * (after `prepare`, e.g. setting up an integration). Read the fields inside tests.
 */
export function useWorkflowSuite(
  teamPrefix: string,
  taskQueue: string,
  activities: (db: Db, team: TestTeam) => object,
  prepare: (db: Db, team: TestTeam) => Promise<void> = async () => undefined,
) {
  const suite = {} as { env: TestWorkflowEnvironment; db: Db; team: TestTeam };
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  beforeAll(async () => {
    suite.env = await workflowTestEnvironment();
    suite.db = testDb();
    suite.team = await newTeam(suite.db, teamPrefix);
    await prepare(suite.db, suite.team);
    worker = await Worker.create({
      connection: suite.env.nativeConnection,
      taskQueue,
      workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! },
      activities: activities(suite.db, suite.team),
    });
    running = worker.run();
  });
  afterAll(async () => {
    worker?.shutdown();
    // Teardown trouble (the local server going away under a draining worker) is reported, not
    // counted against tests that already passed or failed on their own.
    const report = (step: string) => (err: unknown) =>
      process.stderr.write(`[workflow suite ${taskQueue}] ${step} failed after the tests: ${String(err)}\n`);
    await running?.catch(report('worker shutdown'));
    await suite.env?.teardown().catch(report('test server teardown'));
    await suite.db?.destroy();
  });
  return suite;
}

/**
 * Registers beforeAll/afterAll for a suite that sends through the fake provider server: a
 * database handle, the API (with `env`), the fake (reset before each test), a team and its client.
 */
export function useProviderSuite(teamPrefix: string, env: Record<string, string> = {}) {
  const suite = {
    /** Worker processes a test started itself (crash tests); stopped after the suite. */
    workers: [] as WorkerProcess[],
    /** A worker process of its own on the API's task queue (set TEMPORAL_TASK_QUEUE in `env`). */
    startWorker: async (workerEnv: Record<string, string> = {}) => {
      const worker = await startWorkerProcess({ TEMPORAL_TASK_QUEUE: env.TEMPORAL_TASK_QUEUE!, ...workerEnv });
      suite.workers.push(worker);
      return worker;
    },
  } as {
    db: Db;
    server: RunningServer & { baseUrl: string };
    fake: FakeProviderServer;
    team: TestTeam;
    api: ApiClient;
    workers: WorkerProcess[];
    startWorker: (env?: Record<string, string>) => Promise<WorkerProcess>;
  };
  beforeAll(async () => {
    suite.db = testDb();
    suite.server = await startTestApi(suite.db, env);
    suite.fake = await new FakeProviderServer().start();
    suite.team = await newTeam(suite.db, teamPrefix);
    suite.api = apiClient(suite.server.baseUrl, suite.team);
  });
  afterAll(async () => {
    await Promise.all(suite.workers.map((w) => w.stop()));
    await suite.fake?.stop();
    await suite.server?.close();
    await suite.db?.destroy();
  });
  beforeEach(() => suite.fake?.reset());
  return suite;
}
