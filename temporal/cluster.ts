import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { createDatabase, dropDatabase, isListening } from '../db/postgres';
import { ensureSearchAttributes, TeamSlugKey } from './searchAttributes';
import { TemporalServerBinaries } from './server';

const run = promisify(execFile);
const projectRoot = path.resolve(__dirname, '..');

/**
 * A Temporal cluster of the production shape: Temporal server v1.32.2 on Postgres, each service
 * its own process (so a test can SIGKILL one and start it again), configured by
 * temporal/cluster/config.yaml (the file temporal-compose.yml mounts too).
 */
export const clusterConfigFile = path.join(projectRoot, 'temporal', 'cluster', 'config.yaml');

/** Start order: the services that own state first, the frontend (what clients dial) next, the system worker last. */
export const CLUSTER_SERVICES = ['history', 'matching', 'frontend', 'worker'] as const;
export type ClusterService = (typeof CLUSTER_SERVICES)[number];

/** The gRPC ports config.yaml gives each service (what "the service is up" is checked against). */
const GRPC_PORTS: Record<ClusterService, number> = { frontend: 17233, history: 17234, matching: 17235, worker: 17239 };
/** Each process its own Prometheus port (config.yaml reads TEMPORAL_METRICS_PORT). */
const METRICS_PORTS: Record<ClusterService, number> = {
  frontend: 18000,
  history: 18001,
  matching: 18002,
  worker: 18003,
};
export const CLUSTER_FRONTEND_ADDRESS = `127.0.0.1:${GRPC_PORTS.frontend}`;

/**
 * What it takes to run, kill and restart the cluster's processes from any process (the test
 * runner starts them; a test file in a jest worker kills and restarts them), kept as JSON.
 */
export interface ClusterState {
  serverPath: string;
  /** The TEMPORAL_* variables config.yaml is rendered with (databases, Postgres address). */
  configEnv: Record<string, string>;
  logDir: string;
  namespace: string;
  address: string;
  pids: Partial<Record<ClusterService, number>>;
}

export interface ClusterOptions {
  binaries: TemporalServerBinaries;
  /** A superuser URL of the Postgres server that holds the cluster's two databases. */
  postgresUrl: string;
  /** The cluster's databases, dropped and created anew by {@link startCluster}. */
  databaseName?: string;
  visibilityDatabaseName?: string;
  namespace?: string;
  /** Where each service writes its log (`<service>.log`) and the state file lives. */
  logDir: string;
  log?: (line: string) => void;
}

export const clusterStateFile = (logDir: string) => path.join(logDir, 'cluster-state.json');

export function readClusterState(stateFile: string): ClusterState {
  return JSON.parse(fs.readFileSync(stateFile, 'utf8')) as ClusterState;
}

function writeClusterState(state: ClusterState): void {
  fs.writeFileSync(clusterStateFile(state.logDir), JSON.stringify(state, null, 2));
}

/** Drops and creates the two databases, then lays down the embedded postgres12 schemas of this release. */
export async function setUpClusterSchemas(opts: {
  sqlToolPath: string;
  postgresUrl: string;
  databaseName: string;
  visibilityDatabaseName: string;
}): Promise<void> {
  const url = new URL(opts.postgresUrl);
  const connection = [
    '--endpoint',
    url.hostname,
    '--port',
    url.port || '5432',
    '--user',
    decodeURIComponent(url.username),
    '--password',
    decodeURIComponent(url.password),
    '--plugin',
    'postgres12',
  ];
  for (const [database, schema] of [
    [opts.databaseName, 'postgresql/v12/temporal'],
    [opts.visibilityDatabaseName, 'postgresql/v12/visibility'],
  ] as const) {
    await dropDatabase(opts.postgresUrl, database);
    await createDatabase(opts.postgresUrl, database);
    const sql = (...args: string[]) => run(opts.sqlToolPath, [...connection, '--database', database, ...args]);
    // Version 0.0 is the bare versioning table; update-schema then applies every embedded version.
    await sql('setup-schema', '-v', '0.0');
    await sql('update-schema', '--schema-name', schema);
  }
}

/**
 * Sets up fresh schemas, starts the four services as separate processes, registers the
 * namespace and the app's search attributes, and resolves once a workflow can be started (the
 * frontend, history, matching and persistence all answered). The processes outlive the caller's
 * event loop (detached); stop them with {@link stopCluster}.
 */
export async function startCluster(opts: ClusterOptions): Promise<ClusterState> {
  const log = opts.log ?? (() => undefined);
  const databaseName = opts.databaseName ?? 'temporal_cluster';
  const visibilityDatabaseName = opts.visibilityDatabaseName ?? 'temporal_cluster_visibility';
  const namespace = opts.namespace ?? 'default';
  fs.mkdirSync(opts.logDir, { recursive: true });
  const stale = fs.existsSync(clusterStateFile(opts.logDir)) ? readClusterState(clusterStateFile(opts.logDir)) : null;
  // A run that crashed before its teardown leaves services holding the ports: end them first.
  if (stale) await stopCluster(stale);
  for (const service of CLUSTER_SERVICES) {
    if (await isListening(GRPC_PORTS[service])) {
      throw new Error(`port ${GRPC_PORTS[service]} (the cluster's ${service}) is taken by another process`);
    }
  }

  let started = Date.now();
  await setUpClusterSchemas({
    sqlToolPath: opts.binaries.sqlTool,
    postgresUrl: opts.postgresUrl,
    databaseName,
    visibilityDatabaseName,
  });
  log(`Temporal cluster schemas set up in ${databaseName}, ${visibilityDatabaseName} (${Date.now() - started} ms)`);

  const url = new URL(opts.postgresUrl);
  const state: ClusterState = {
    serverPath: opts.binaries.server,
    configEnv: {
      TEMPORAL_DB_HOST: url.hostname,
      TEMPORAL_DB_PORT: url.port || '5432',
      TEMPORAL_DB_USER: decodeURIComponent(url.username),
      TEMPORAL_DB_PASSWORD: decodeURIComponent(url.password),
      TEMPORAL_DB_NAME: databaseName,
      TEMPORAL_VISIBILITY_DB_NAME: visibilityDatabaseName,
    },
    logDir: opts.logDir,
    namespace,
    address: CLUSTER_FRONTEND_ADDRESS,
    pids: {},
  };
  started = Date.now();
  // Fresh logs for a fresh cluster; a restarted service appends to its own.
  for (const service of CLUSTER_SERVICES) fs.writeFileSync(path.join(opts.logDir, `${service}.log`), '');
  try {
    for (const service of CLUSTER_SERVICES) await startClusterService(state, service);
    const connection = await waitForFrontend(state.address, 90_000);
    try {
      // The frontend answers before history and its namespace cache are ready: each step is retried.
      await retryFor(60_000, 'registering the namespace', () => registerNamespace(connection, namespace));
      await retryFor(60_000, 'registering the search attributes', () => ensureSearchAttributes(connection, namespace));
      await waitUntilWorkflowsStart(connection, namespace, 120_000);
    } finally {
      await connection.close();
    }
  } catch (err) {
    await stopCluster(state);
    throw err;
  }
  log(`Temporal cluster ${state.address} ready in ${Date.now() - started} ms (logs in ${opts.logDir})`);
  return state;
}

/** Starts one service process (detached, logging to `<logDir>/<service>.log`) and waits until its gRPC port listens. */
export async function startClusterService(state: ClusterState, service: ClusterService): Promise<void> {
  const out = fs.openSync(path.join(state.logDir, `${service}.log`), 'a');
  const child = spawn(
    state.serverPath,
    ['--config-file', clusterConfigFile, '--allow-no-auth', 'start', '--service', service],
    {
      // config.yaml names the dynamic config file relative to the project root.
      cwd: projectRoot,
      env: { ...process.env, ...state.configEnv, TEMPORAL_METRICS_PORT: String(METRICS_PORTS[service]) },
      stdio: ['ignore', out, out],
      // Its own process group and no hold on our event loop: it stays up between test files
      // and is stopped by pid, whichever process started it.
      detached: true,
    },
  );
  fs.closeSync(out);
  child.unref();
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  state.pids[service] = child.pid!;
  writeClusterState(state);
  const deadline = Date.now() + 60_000;
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  while (!(await isListening(GRPC_PORTS[service]))) {
    if (exitCode !== undefined) {
      throw new Error(
        `temporal-server ${service} exited (${exitCode}); see ${path.join(state.logDir, `${service}.log`)}`,
      );
    }
    if (Date.now() > deadline) throw new Error(`temporal-server ${service} did not listen on ${GRPC_PORTS[service]}`);
    await sleep(200);
  }
}

/** SIGKILL, as a crash: the service gets no chance to hand over its shards or leave the ring. */
export async function killClusterService(state: ClusterState, service: ClusterService): Promise<void> {
  const pid = state.pids[service];
  if (pid === undefined) return;
  signal(state, pid, 'SIGKILL');
  await waitUntilGone(state, pid, 10_000);
  delete state.pids[service];
  writeClusterState(state);
}

/** Kills the service (SIGKILL) and starts it again: a crashed process that a supervisor brings back. */
export async function restartClusterService(state: ClusterState, service: ClusterService): Promise<void> {
  await killClusterService(state, service);
  await startClusterService(state, service);
}

/** SIGTERM to every service, SIGKILL to those still there after 15 s. */
export async function stopCluster(state: ClusterState): Promise<void> {
  const pids = Object.values(state.pids).filter((pid): pid is number => pid !== undefined);
  for (const pid of pids) signal(state, pid, 'SIGTERM');
  await Promise.all(
    pids.map(async (pid) => {
      try {
        await waitUntilGone(state, pid, 15_000);
      } catch {
        signal(state, pid, 'SIGKILL');
        await waitUntilGone(state, pid, 5_000);
      }
    }),
  );
  state.pids = {};
  if (fs.existsSync(state.logDir)) writeClusterState(state);
}

async function waitForFrontend(address: string, timeoutMs: number): Promise<Connection> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const connection = await Connection.connect({ address, connectTimeout: 2_000 });
      await connection.workflowService.getSystemInfo({});
      return connection;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`the cluster's frontend ${address} did not answer`, { cause: err });
      await sleep(500);
    }
  }
}

/** A new cluster has only its system namespace. Three days of retention: long enough to inspect a test run. */
async function registerNamespace(connection: Connection, namespace: string): Promise<void> {
  try {
    await connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs('72h'),
    });
  } catch (err) {
    // gRPC ALREADY_EXISTS
    if ((err as { code?: number }).code !== 6) throw err;
  }
}

/**
 * Services cache namespaces (2 s) and search attributes (up to 60 s): until they caught up, a
 * start carrying `TeamSlug` is refused. Starts a probe workflow (nobody polls its queue) until one
 * is accepted, then terminates it.
 */
async function waitUntilWorkflowsStart(connection: Connection, namespace: string, timeoutMs: number): Promise<void> {
  const client = new Client({ connection, namespace });
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 1; ; attempt++) {
    try {
      const handle = await client.workflow.start('clusterReadinessProbe', {
        workflowId: `cluster-readiness-probe-${Date.now()}-${attempt}`,
        taskQueue: 'cluster-readiness-probe',
        typedSearchAttributes: [{ key: TeamSlugKey, value: 'cluster-readiness-probe' }],
      });
      await handle.terminate('the cluster answered');
      return;
    } catch (err) {
      if (Date.now() > deadline) throw new Error('the cluster did not accept a workflow start', { cause: err });
      await sleep(1_000);
    }
  }
}

async function retryFor(timeoutMs: number, what: string, fn: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`the cluster failed ${what}`, { cause: err });
      await sleep(1_000);
    }
  }
}

/**
 * Signals `pid` if it is still one of the cluster's servers: a state file left by a crashed run
 * may name pids the system has since given to other processes.
 */
function signal(state: ClusterState, pid: number, sig: NodeJS.Signals): void {
  try {
    if (!fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith(`${state.serverPath}\0`)) return;
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/** Whether `pid` is still a running cluster server (a zombie, dead but not yet reaped, is not). */
function isServer(state: ClusterState, pid: number): boolean {
  try {
    if (!fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith(`${state.serverPath}\0`)) return false;
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function waitUntilGone(state: ClusterState, pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (isServer(state, pid)) {
    if (Date.now() > deadline) throw new Error(`process ${pid} is still running`);
    await sleep(100);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
