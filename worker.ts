import path from 'node:path';
import { NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createActivities, createWebhookQueueActivities } from './activities';
import { providerPools } from './channels/pools';
import { Config, loadConfig } from './config';
import { createDb, Db } from './db/knex';
import { ensurePostgres } from './db/postgres';
import { createLogger } from './logger';
import { textGeneratorFor } from './services/campaigns/content';
import { startEventDispatcher } from './services/events/dispatcher';
import { buildAppContext } from './services/platform/context';
import { startRoomEventPurger } from './services/rooms/roomEventRetention';
import { waitForTemporal } from './temporal/devServer';
import { ensureSearchAttributes } from './temporal/searchAttributes';
import { workflowBundlerOptions, workflowsPath } from './temporal/workflowBundle';
import { webhookTaskQueue } from './workflows/contracts/webhookBatch';

export interface RunningWorker {
  worker: Worker;
  /** Resolves when the worker has stopped (after `shutdown`). */
  done: Promise<void>;
  shutdown(): Promise<void>;
}

/** Builds a worker for the job workflows and their activities against `db`. */
export async function startWorker(config: Config, db: Db): Promise<RunningWorker> {
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  const appContext = buildAppContext(config, db, createLogger(config.LOG_LEVEL, 'worker'));
  const activities = createActivities({
    db,
    appContext,
    storage: appContext.storage,
    secretBox: appContext.secretBox,
    baseUrl: config.baseUrl,
    fileLinkTtlSeconds: 30 * 24 * 3600,
    textGenerator: textGeneratorFor(config),
    defaultRates: config.CAMPAIGN_RATE_LIMITS,
  });
  const worker = await Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    activities,
    ...(config.WORKFLOW_BUNDLE_PATH
      ? { workflowBundle: { codePath: config.WORKFLOW_BUNDLE_PATH } }
      : { workflowsPath, bundlerOptions: workflowBundlerOptions }),
    // Activities mostly wait on Postgres; a few at a time per core keeps the pool busy, not swamped.
    maxConcurrentActivityTaskExecutions: 20,
    maxCachedWorkflows: config.WORKER_CACHED_WORKFLOWS,
  });
  // Webhook batches on a task queue of their own (docs/EVENTS.md › Delivery in batches): they wait
  // on receivers, not on Postgres, and a burst or a slow receiver never holds the slots above.
  const webhookWorker = await Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: webhookTaskQueue(config.TEMPORAL_TASK_QUEUE),
    activities: createWebhookQueueActivities({ db, secretBox: appContext.secretBox, appContext }),
    maxConcurrentActivityTaskExecutions: 16,
  });
  const workers = [worker, webhookWorker];
  // Either one stopping (a shutdown, or a fatal error) stops the other.
  const stopAll = () => workers.forEach((w) => w.getState() === 'RUNNING' && w.shutdown());
  // Platform events → webhook deliveries (docs/EVENTS.md); every worker runs one, side by side.
  const dispatcher = startEventDispatcher(appContext);
  // Room stream events past their team's retention (docs/AGENTS.md › Streams): its own slow loop,
  // so a long purge never delays the dispatcher's half-second passes.
  const purger = startRoomEventPurger({
    db,
    logger: appContext.logger,
    defaultHours: config.ROOM_EVENT_RETENTION_HOURS,
  });
  const done = Promise.allSettled(workers.map((w) => w.run().finally(stopAll)))
    .then((runs) => {
      const failed = runs.find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
    })
    .finally(async () => {
      await dispatcher.stop();
      await purger.stop();
      await connection.close();
      await appContext.temporal.close();
      // Activities have drained: no send is in flight on the provider connections.
      await providerPools.closeAll();
    });
  return {
    worker,
    done,
    shutdown: async () => {
      stopAll();
      await done;
    },
  };
}

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL, 'worker');
  if (config.WORKER_METRICS_BIND) {
    // Workflow/activity task latencies, slots, poll results and more, from the SDK itself.
    Runtime.install({ telemetryOptions: { metrics: { prometheus: { bindAddress: config.WORKER_METRICS_BIND } } } });
  }
  const pg = await ensurePostgres({
    databaseUrl: config.DATABASE_URL,
    dataDir: path.join(config.dataDir, 'pg'),
    port: config.EMBEDDED_PG_PORT,
  });
  const db = createDb(pg.url, { max: 20 }, { kind: 'activity', timeoutMs: config.DATABASE_REQUEST_TIMEOUT_MS });
  // Any server (dev server, compose, cluster) gets the search attributes the workflows set.
  const admin = await waitForTemporal(config.TEMPORAL_ADDRESS, config.TEMPORAL_NAMESPACE);
  await ensureSearchAttributes(admin, config.TEMPORAL_NAMESPACE);
  await admin.close();
  const running = await startWorker(config, db);
  logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, temporal: config.TEMPORAL_ADDRESS }, 'worker running');
  // main() awaits running.done below, which carries any failure of the shutdown; not thrown twice.
  const stop = () => {
    running.shutdown().catch(() => undefined);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await running.done;
  await db.destroy();
  await pg.stop();
  logger.info('worker stopped');
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
