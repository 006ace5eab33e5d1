import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface OwnPostgres {
  readonly url: string;
  /** The postmaster and every process it has forked (backends, checkpointer, walwriter …). */
  pids(): number[];
  /** SIGSTOPs every one of them: the server still accepts TCP connections but answers nothing. */
  freeze(): number[];
  /** SIGCONTs what `freeze` stopped. */
  thaw(): void;
  /** A clean shutdown of the server (thawed first). */
  stop(): Promise<void>;
}

/**
 * A Postgres server of a test's own, in a process of its own (test/setup/postgresProcess.ts), that
 * the test may freeze: never the suite's shared database, which every other test file uses.
 */
export async function startOwnPostgres(dataDir: string, port: number): Promise<OwnPostgres> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(__dirname, '..', 'setup', 'postgresProcess.ts'), dataDir, String(port)],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`postgres did not start within 60 s: ${output}`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const ready = /postgres ready (\S+)/.exec(output);
      if (ready) {
        clearTimeout(timer);
        resolve(ready[1]!);
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`postgres exited (${code}): ${output}`));
    });
  });

  let stopped: number[] = [];
  const pids = () => {
    // The first line of postmaster.pid is the postmaster's pid; its children are found by their ppid.
    const postmaster = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const children = fs
      .readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .filter((entry) => {
        try {
          // Field 4 of /proc/<pid>/stat, after the parenthesised command name, is the parent's pid.
          const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
          return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster;
        } catch {
          return false; // gone meanwhile
        }
      })
      .map(Number);
    return [postmaster, ...children];
  };
  const thaw = () => {
    for (const pid of stopped.splice(0)) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // already gone
      }
    }
  };
  return {
    url,
    pids,
    freeze() {
      // The postmaster first, so that it forks no backend after its children are listed.
      const [postmaster] = pids();
      process.kill(postmaster!, 'SIGSTOP');
      stopped = [postmaster!];
      for (const pid of pids().slice(1)) {
        process.kill(pid, 'SIGSTOP');
        stopped.push(pid);
      }
      return [...stopped];
    },
    thaw,
    async stop() {
      thaw();
      child.kill('SIGTERM');
      await exited;
    },
  };
}
