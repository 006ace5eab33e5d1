/**
 * `npm start`: the whole system on one machine. Temporal dev server (SQLite under .data/, Web UI),
 * Postgres (DATABASE_URL or embedded under .data/), migrations, then the worker, the API and the
 * inbox's SMTP listener as their own processes. Ctrl-C stops everything.
 */
import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig, localAddress } from './config';
import { createDb, migrateLatest } from './db/knex';
import { ensurePostgres } from './db/postgres';
import { ensureTemporalCli } from './temporal/cli';
import { DevServer, startDevServer, waitForTemporal } from './temporal/devServer';
import { ensureSearchAttributes } from './temporal/searchAttributes';
import { EntryPoint, nodeArgsFor } from './entryPoints';
import { writeWorkflowBundle } from './scripts/bundle-workflows';

const log = (line: string) => console.log(`[start] ${line}`);

async function waitForHttp(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`${url} did not answer within ${timeoutMs / 1000}s`);
}

/** More crashes than this within CRASH_WINDOW_MS is a crash loop: restarting again would only hide it. */
const CRASH_LOOP_LIMIT = 5;
const CRASH_WINDOW_MS = 60_000;

/**
 * Runs `entry` as a child process and restarts it when it dies (a SIGKILLed worker, an API that
 * crashed), with a growing delay and a log line each time. Only Ctrl-C or a crash loop ends it.
 */
function supervise(
  entry: EntryPoint,
  env: NodeJS.ProcessEnv,
  stopping: () => boolean,
  crashLoop: (reason: string) => void,
) {
  let child: ChildProcess;
  const crashes: number[] = [];
  const launch = () => {
    child = spawn(process.execPath, nodeArgsFor(entry), { env, stdio: 'inherit' });
    child.once('exit', (code, signal) => {
      if (stopping()) return;
      const now = Date.now();
      crashes.push(now);
      while (crashes.length && crashes[0]! < now - CRASH_WINDOW_MS) crashes.shift();
      if (crashes.length >= CRASH_LOOP_LIMIT) {
        crashLoop(
          `${entry} exited ${crashes.length} times within ${CRASH_WINDOW_MS / 1000}s (last: ${code ?? signal}); stopping everything`,
        );
        return;
      }
      const delayMs = Math.min(500 * 2 ** (crashes.length - 1), 15_000);
      log(
        `${entry} exited (${code ?? signal}); restarting it in ${delayMs} ms (crash ${crashes.length} of ${CRASH_LOOP_LIMIT} allowed per minute)`,
      );
      setTimeout(() => {
        if (!stopping()) launch();
      }, delayMs);
    });
  };
  launch();
  return { current: () => child };
}

async function main(): Promise<void> {
  const config = loadConfig();
  fs.mkdirSync(config.dataDir, { recursive: true });

  let devServer: DevServer | undefined;
  if (process.env.TEMPORAL_ADDRESS) {
    log(`using the Temporal server at ${config.TEMPORAL_ADDRESS}`);
    const connection = await waitForTemporal(config.TEMPORAL_ADDRESS, config.TEMPORAL_NAMESPACE);
    await ensureSearchAttributes(connection, config.TEMPORAL_NAMESPACE);
    await connection.close();
  } else {
    const cliPath = await ensureTemporalCli(log);
    const port = Number(config.TEMPORAL_ADDRESS.split(':').pop());
    log(`starting the Temporal dev server on ${config.TEMPORAL_ADDRESS} (state in ${config.dataDir}/temporal.db)`);
    devServer = await startDevServer({
      cliPath,
      port,
      uiPort: config.TEMPORAL_UI_PORT,
      dbFile: path.join(config.dataDir, 'temporal.db'),
      namespace: config.TEMPORAL_NAMESPACE,
      logFile: path.join(config.dataDir, 'temporal.log'),
    });
  }

  log(
    config.DATABASE_URL
      ? 'using DATABASE_URL'
      : `starting embedded Postgres on port ${config.EMBEDDED_PG_PORT} (data in ${config.dataDir}/pg)`,
  );
  const pg = await ensurePostgres({
    databaseUrl: config.DATABASE_URL,
    dataDir: path.join(config.dataDir, 'pg'),
    port: config.EMBEDDED_PG_PORT,
  });
  const db = createDb(pg.url);
  const applied = await migrateLatest(db);
  await db.destroy();
  log(applied.length ? `applied migrations: ${applied.join(', ')}` : 'database schema is up to date');

  // Built here once per start: a worker that bundles its workflows itself (webpack) keeps ~100 MiB
  // more for its whole life, and a restarted worker would bundle again.
  const workflowBundle =
    config.WORKFLOW_BUNDLE_PATH ?? (await writeWorkflowBundle(path.join(config.dataDir, 'workflow-bundle.js')));
  const env = {
    ...process.env,
    DATABASE_URL: pg.url,
    TEMPORAL_ADDRESS: devServer?.address ?? config.TEMPORAL_ADDRESS,
    WORKFLOW_BUNDLE_PATH: workflowBundle,
  };
  let stopping = false;
  // The inbox listener is a process of its own: SMTP peers on a public port never hold the API's
  // event loop, and it restarts (or is left out of a deployment) without touching the API.
  const supervised = (['worker.ts', 'server.ts', 'inbox.ts'] as const).map((entry) =>
    supervise(
      entry,
      env,
      () => stopping,
      (reason) => {
        log(reason);
        void stop(1); // never rejects: see stop below
      },
    ),
  );

  process.once('exit', () => supervised.forEach((s) => s.current().kill('SIGKILL')));
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    log('stopping...');
    try {
      await Promise.all(
        supervised.map(
          (s) =>
            new Promise<void>((resolve) => {
              const child = s.current();
              if (child.exitCode !== null || child.signalCode !== null) return resolve();
              child.once('exit', () => resolve());
              child.kill('SIGTERM');
              setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
            }),
        ),
      );
      await devServer?.stop();
      await pg.stop();
      log('stopped');
    } catch (err) {
      console.error(err);
      code = code || 1;
    }
    process.exit(code);
  };
  // stop() never rejects (it ends the process), so the callers fire and forget it.
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));

  await waitForHttp(`http://${localAddress(config.HOST)}:${config.PORT}/healthz`);
  log(`API:         ${config.baseUrl}`);
  log(`MCP:         ${config.mcpEndpoint}`);
  log(`Console:     ${config.siteUrl}/app`);
  log(
    `Inbox SMTP:  ${localAddress(config.INBOX_SMTP_HOST)}:${config.INBOX_SMTP_PORT} (mail to <agent uuid>@${config.INBOX_DOMAIN})`,
  );
  log(`Temporal UI: ${devServer?.uiUrl ?? '(external Temporal server: see its own UI)'}`);
  log('first team:  npm run cli -- bootstrap --team <slug>');
  log('Ctrl-C stops everything.');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
