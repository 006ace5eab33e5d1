import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDb, migrateLatest } from '../../db/knex';
import { createDatabase, dropDatabase, ensurePostgres, PostgresHandle } from '../../db/postgres';
import { writeWorkflowBundle } from '../../scripts/bundle-workflows';
import { ensureTemporalCli } from '../../temporal/cli';
import { DevServer, startDevServer } from '../../temporal/devServer';
import { freePort } from '../../temporal/freePort';
import { EntryPoint, nodeArgsFor } from '../../entryPoints';

export const projectRoot = path.resolve(__dirname, '../..');
export const testDataDir = path.join(projectRoot, '.data', 'test');

/** The Temporal server a test stack runs against: the dev server, or the production profile's cluster. */
export interface TestTemporal {
  address: string;
  stop(): Promise<void>;
}

/** The real dependencies the suite runs against: a Temporal server and a fresh Postgres database. */
export interface TestStack {
  temporal: TestTemporal;
  postgres: PostgresHandle;
  databaseUrl: string;
  dropTestDatabase(): Promise<void>;
  bundlePath: string;
  cliPath: string;
}

/** The suite's default Temporal: the CLI's dev server, in memory, logging to .data/test/temporal.log. */
export const startTestDevServer = (
  cliPath: string,
  dynamicConfig?: Record<string, string | number | boolean>,
): Promise<DevServer> =>
  startDevServer({ cliPath, uiPort: null, logFile: path.join(testDataDir, 'temporal.log'), dynamicConfig });

export const logSetup = (line: string) => process.stdout.write(`[test setup] ${line}\n`);

/**
 * Starts Temporal (`startTemporal`; the dev server unless told otherwise) and Postgres side by
 * side, then a fresh, migrated database and the workflow bundle. The Temporal CLI is ensured
 * either way: suites use it for their own test servers and `temporal workflow show`.
 */
export async function startTestStack(
  startTemporal: (cliPath: string) => Promise<TestTemporal> = startTestDevServer,
  { statementStats = false }: { statementStats?: boolean } = {},
): Promise<TestStack> {
  fs.mkdirSync(testDataDir, { recursive: true });
  const log = logSetup;
  const cliPath = await ensureTemporalCli(log);
  const [temporal, postgres] = await Promise.all([
    startTemporal(cliPath),
    process.env.DATABASE_URL
      ? ensurePostgres({ databaseUrl: process.env.DATABASE_URL, dataDir: '', port: 0 })
      : freePort().then(async (port) => {
          const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tap-test-pg-'));
          const embedded = await ensurePostgres({ dataDir, port, database: 'postgres', statementStats });
          // A throwaway server: its files (over a GB after `npm run bench`) go with it.
          return {
            ...embedded,
            stop: async () => {
              await embedded.stop();
              fs.rmSync(dataDir, { recursive: true, force: true });
            },
          };
        }),
  ]);
  const name = `tap_test_${Date.now()}_${process.pid}`;
  const databaseUrl = await createDatabase(postgres.url, name);
  const db = createDb(databaseUrl);
  await migrateLatest(db);
  await db.destroy();
  const bundlePath = await writeWorkflowBundle(path.join(testDataDir, `workflow-bundle-${process.pid}.js`));
  log(`Temporal ${temporal.address}, Postgres database ${name}`);
  return {
    temporal,
    postgres,
    databaseUrl,
    bundlePath,
    cliPath,
    dropTestDatabase: () => dropDatabase(postgres.url, name),
  };
}

export interface WorkerProcess {
  child: ChildProcess;
  /** SIGKILL: the worker dies mid-task, as in a crash. */
  kill(): Promise<void>;
  /** SIGTERM: a graceful shutdown. */
  stop(): Promise<void>;
}

/** Runs `worker.ts` as its own process, the way it runs in production. */
export function startWorkerProcess(env: Record<string, string>): Promise<WorkerProcess> {
  // The readiness line is logged at info level, whatever level the caller asked for.
  return startEntryProcess('worker.ts', { ...env, LOG_LEVEL: 'info' }, '"worker running"');
}

/** Runs `server.ts` as its own process on a free port; resolves with its base URL. */
export async function startApiProcess(env: Record<string, string>): Promise<WorkerProcess & { baseUrl: string }> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  const api = await startEntryProcess(
    'server.ts',
    { ...env, PORT: String(port), HOST: '127.0.0.1', BASE_URL: baseUrl, LOG_LEVEL: 'info' },
    '"API listening"',
  );
  return { ...api, baseUrl };
}

async function startEntryProcess(
  entry: EntryPoint,
  env: Record<string, string>,
  readyMarker: string,
): Promise<WorkerProcess> {
  const child = spawn(process.execPath, nodeArgsFor(entry), {
    cwd: projectRoot,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${entry} did not start:\n${output}`));
    }, 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(readyMarker)) {
        clearTimeout(timer);
        // Ready: the output is no longer kept (a busy API logs a line per request, and joining and
        // searching an ever longer string cost the load generator more CPU the longer a bench ran).
        child.stdout!.off('data', onData);
        child.stderr!.off('data', onError);
        output = '';
        resolve();
      }
    };
    const onError = (chunk: Buffer) => {
      output += chunk.toString();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onError);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited (${code}):\n${output}`));
    });
  });
  child.stdout!.resume();
  // A process that dies on its own later (a crash, an out-of-memory) says why: its last stderr is kept.
  let stderrTail = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString()).slice(-8192);
  });
  let stopping = false;
  child.once('exit', (code, signal) => {
    if (!stopping)
      console.error(
        `[test stack] ${entry} (pid ${child.pid}) ended (${signal ?? code}) without being stopped here:\n${stderrTail}`,
      );
  });
  const end = async (signal: NodeJS.Signals) => {
    stopping = true;
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return { child, kill: () => end('SIGKILL'), stop: () => end('SIGTERM') };
}
