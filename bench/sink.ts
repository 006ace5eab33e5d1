import { spawn } from 'node:child_process';
import path from 'node:path';
import type { SinkCounts, SinkReply, SinkRequest } from './smtpSink';

export type { SinkCounts };

/** The bench's handle on the sink process (bench/smtpSink.ts): where it listens, its counts, and stopping it. */
export interface Sink {
  pid: number;
  smtpPort: number;
  /** The fake HTTP provider's base URL (Resend-style `POST /emails`). */
  httpBaseUrl: string;
  counts(target: SinkRequest['target']): Promise<SinkCounts>;
  reset(target: SinkRequest['target']): Promise<void>;
  stop(): Promise<void>;
}

/** Spawns the sink as its own process and resolves once it listens. */
export async function startSink(): Promise<Sink> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'smtpSink.ts')], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const waiting = new Map<number, { resolve: (reply: SinkReply) => void; reject: (err: Error) => void }>();
  let nextId = 0;
  const ready = await new Promise<Extract<SinkReply, { type: 'ready' }>>((resolve, reject) => {
    child.once('exit', (code) => {
      const err = new Error(`the SMTP sink exited (${code})`);
      reject(err);
      for (const w of waiting.values()) w.reject(err);
      waiting.clear();
    });
    child.on('message', (reply: SinkReply) => {
      if ('type' in reply) resolve(reply);
      else {
        waiting.get(reply.id)?.resolve(reply);
        waiting.delete(reply.id);
      }
    });
  });
  const ask = (cmd: SinkRequest['cmd'], target: SinkRequest['target']) =>
    new Promise<SinkReply>((resolve, reject) => {
      const id = ++nextId;
      waiting.set(id, { resolve, reject });
      child.send({ id, cmd, target } satisfies SinkRequest);
    });
  return {
    pid: child.pid!,
    smtpPort: ready.smtpPort,
    httpBaseUrl: ready.httpBaseUrl,
    counts: async (target) => ((await ask('counts', target)) as { counts: SinkCounts }).counts,
    reset: async (target) => {
      await ask('reset', target);
    },
    async stop() {
      // Closing the channel tells the sink to stop (it also stops if this process dies).
      if (child.connected) child.disconnect();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
