import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { freePort } from './freePort';
import { ensureSearchAttributes } from './searchAttributes';

export interface DevServer {
  address: string;
  uiUrl?: string;
  /** The server's process id (fault tests freeze it with SIGSTOP). */
  pid: number;
  stop(): Promise<void>;
}

export async function waitForTemporal(
  address: string,
  namespace: string,
  timeoutMs = 60_000,
  signal?: AbortSignal,
): Promise<Connection> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    signal?.throwIfAborted();
    try {
      const connection = await Connection.connect({ address, connectTimeout: 2_000 });
      await connection.workflowService.describeNamespace({ namespace });
      return connection;
    } catch (err) {
      if (Date.now() > deadline) {
        throw new Error(`Temporal at ${address} did not come up: ${(err as Error).message}`, { cause: err });
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/**
 * Runs `temporal server start-dev`. With `dbFile` its state survives restarts (SQLite); without, it
 * is in memory (tests). The custom search attributes are registered before this resolves.
 */
export async function startDevServer(opts: {
  cliPath: string;
  port?: number;
  uiPort?: number | null;
  dbFile?: string;
  namespace?: string;
  logFile?: string;
  /** Dynamic config values over the defaults below (e.g. the bench's task queue partitions). */
  dynamicConfig?: Record<string, string | number | boolean>;
}): Promise<DevServer> {
  const namespace = opts.namespace ?? 'default';
  const port = opts.port ?? (await freePort());
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--namespace',
    namespace,
    '--log-level',
    'warn',
    '--log-format',
    'json',
  ];
  let uiUrl: string | undefined;
  if (opts.uiPort === null) {
    args.push('--headless');
  } else {
    const uiPort = opts.uiPort ?? (await freePort());
    args.push('--ui-port', String(uiPort));
    uiUrl = `http://localhost:${uiPort}`;
  }
  const dynamicConfig = {
    // Hand an activity scheduled by a workflow task straight back to the worker that completed it
    // (saves a matching round trip per activity; the SDK's own test server enables it too).
    'system.enableActivityEagerExecution': true,
    // New tasks go to one partition of each task queue. With the default four, on this one-process
    // server, a task and a waiting poll often met only after being forwarded between partitions:
    // workflows ran slower for more of the server's CPU.
    // Polls still read all four, so tasks written before this setting are still taken.
    'matching.numTaskqueueWritePartitions': 1,
    ...opts.dynamicConfig,
  };
  for (const [key, value] of Object.entries(dynamicConfig)) args.push('--dynamic-config-value', `${key}=${value}`);
  // Spare ports for the server's internal services, so parallel servers never collide.
  args.push('--http-port', String(await freePort()), '--metrics-port', String(await freePort()));
  if (opts.dbFile) {
    fs.mkdirSync(path.dirname(opts.dbFile), { recursive: true });
    args.push('--db-filename', opts.dbFile);
  }
  const out = opts.logFile ? fs.openSync(opts.logFile, 'a') : 'pipe';
  const child: ChildProcess = spawn(opts.cliPath, args, { stdio: ['ignore', out, out] });
  // The child has its own copy of the log file's descriptor.
  if (typeof out === 'number') fs.closeSync(out);
  // Without a log file, the output's tail is kept for the error if the server exits early.
  let outputTail = '';
  for (const stream of [child.stdout, child.stderr]) {
    stream?.on('data', (chunk: Buffer) => {
      outputTail = (outputTail + chunk.toString()).slice(-8192);
    });
    // A test that forgets to stop its server must not be kept alive by these pipes.
    (stream as unknown as { unref?: () => void } | null)?.unref?.();
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // If our process ends without stopping the server (a crash, a second Ctrl-C), the server goes too.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const address = `127.0.0.1:${port}`;
  const gaveUp = new AbortController();
  try {
    const connection = await Promise.race([
      waitForTemporal(address, namespace, undefined, gaveUp.signal),
      exited.then(() => {
        gaveUp.abort();
        const output = opts.logFile ? `see ${opts.logFile}` : `its output:\n${outputTail}`;
        throw new Error(
          `temporal server start-dev on ${address} exited early (${child.exitCode ?? child.signalCode}); ${output}`,
        );
      }),
    ]);
    await ensureSearchAttributes(connection, namespace);
    await connection.close();
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return {
    address,
    uiUrl,
    pid: child.pid!,
    stop: async () => {
      process.removeListener('exit', killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
