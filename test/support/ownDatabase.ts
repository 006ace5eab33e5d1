import { createDb, Db, migrateLatest } from '../../db/knex';
import { createDatabase, dropDatabase } from '../../db/postgres';
import { startWorkerProcess, WorkerProcess } from '../setup/stack';
import { startTestApi } from './helpers';

export interface OwnDatabaseStack {
  readonly databaseUrl: string;
  readonly db: Db;
  readonly server: Awaited<ReturnType<typeof startTestApi>>;
  /** A worker process of its own on the suite's task queue, stopped after the suite. */
  startWorker(): Promise<WorkerProcess>;
  /** SIGKILLs every worker started so far: a crash, nothing drained. */
  killWorkers(): Promise<void>;
}

/**
 * A database, an API and worker processes of the suite's own: for crash tests, whose workers'
 * dispatchers must not share their outbox with the rest of the run (and whose killed workers
 * must not take another suite's work down with them).
 */
export interface PrivateDatabase {
  readonly databaseUrl: string;
  readonly db: Db;
  /** Closes the handle and drops the database. */
  drop(): Promise<void>;
}

/**
 * A migrated database of the test's own on the suite's Postgres server: for a test whose worker
 * runs on a Temporal server of its own, so that its events dispatcher forms no other suite's
 * journeys into workflows on that server (nor starts their deliveries or hook runs there).
 */
export async function privateDatabase(prefix: string): Promise<PrivateDatabase> {
  const dbName = `tap_${prefix}_${Date.now()}_${process.pid}`;
  const serverUrl = process.env.DATABASE_URL!.replace(/\/[^/?]*(\?.*)?$/, '/postgres');
  const databaseUrl = await createDatabase(serverUrl, dbName);
  const db = createDb(databaseUrl, { max: 5 });
  await migrateLatest(db);
  return {
    databaseUrl,
    db,
    drop: async () => {
      await db.destroy();
      await dropDatabase(serverUrl, dbName).catch(() => undefined);
    },
  };
}

export function useOwnDatabase(prefix: string, taskQueue: string): OwnDatabaseStack {
  const dbName = `tap_${prefix}_${Date.now()}_${process.pid}`;
  const serverUrl = process.env.DATABASE_URL!.replace(/\/[^/?]*(\?.*)?$/, '/postgres');
  const workers: WorkerProcess[] = [];
  let databaseUrl: string | undefined;
  let db: Db | undefined;
  let server: Awaited<ReturnType<typeof startTestApi>> | undefined;

  beforeAll(async () => {
    databaseUrl = await createDatabase(serverUrl, dbName);
    db = createDb(databaseUrl, { max: 5 });
    await migrateLatest(db);
    server = await startTestApi(db, { DATABASE_URL: databaseUrl, TEMPORAL_TASK_QUEUE: taskQueue });
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await server?.close();
    await db?.destroy();
    await dropDatabase(serverUrl, dbName).catch(() => undefined);
  });

  return {
    get databaseUrl() {
      return databaseUrl!;
    },
    get db() {
      return db!;
    },
    get server() {
      return server!;
    },
    async startWorker() {
      const worker = await startWorkerProcess({ DATABASE_URL: databaseUrl!, TEMPORAL_TASK_QUEUE: taskQueue });
      workers.push(worker);
      return worker;
    },
    async killWorkers() {
      await Promise.all(workers.splice(0).map((w) => w.kill()));
    },
  };
}
