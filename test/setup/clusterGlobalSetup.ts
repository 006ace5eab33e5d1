import path from 'node:path';
import { clusterStateFile, readClusterState, startCluster, stopCluster } from '../../temporal/cluster';
import { ensureTemporalServer } from '../../temporal/server';
import { GlobalState, sharedTestEnv } from './globalSetup';
import { logSetup, startTestStack, startWorkerProcess, testDataDir } from './stack';

/** The cluster's Postgres: the machine's server (trust auth), unless TEMPORAL_CLUSTER_POSTGRES_URL names another. */
export const clusterPostgresUrl = () =>
  process.env.TEMPORAL_CLUSTER_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * `npm run test:cluster`: the production profile. The same stack as `npm test` (a fresh app
 * database, the workflow bundle), but on a Temporal cluster (temporal/cluster.ts: v1.32.2 on
 * Postgres, one process per service) instead of the dev server, and with TWO shared worker
 * processes. Test files find the cluster's state file in TEMPORAL_CLUSTER_STATE (to kill and
 * restart its services), the shared workers' pids in SHARED_WORKER_PIDS, and
 * WALKTHROUGH_API_PROCESSES=2 tells the walk-throughs to alternate between two API processes.
 */
export default async function clusterGlobalSetup(): Promise<void> {
  const binaries = await ensureTemporalServer(logSetup);
  const logDir = path.join(testDataDir, 'cluster');
  const stateFile = clusterStateFile(logDir);
  const stack = await startTestStack(async () => {
    const cluster = await startCluster({ binaries, postgresUrl: clusterPostgresUrl(), logDir, log: logSetup });
    // Tests restart services (new pids): stop what the state file names then, not what started.
    return { address: cluster.address, stop: () => stopCluster(readClusterState(stateFile)) };
  });
  const env = { ...sharedTestEnv(stack), TEMPORAL_CLUSTER_STATE: stateFile, WALKTHROUGH_API_PROCESSES: '2' };
  Object.assign(process.env, env);
  const workers = await Promise.all([startWorkerProcess(env), startWorkerProcess(env)]);
  process.env.SHARED_WORKER_PIDS = workers.map((worker) => worker.child.pid).join(',');
  (globalThis as Record<string, unknown>).__tapTestStack = { stack, workers } satisfies GlobalState;
}
