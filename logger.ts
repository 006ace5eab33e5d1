import pino from 'pino';

/**
 * Log lines go to stdout without blocking: a synchronous write per line (pino's default) woke the
 * reader of the pipe and stalled the API once per request, which cost a sixth of its starts in
 * bench (a) (docs/BENCHMARKS.md › Run 28). Lines written while a write is in flight go out
 * together with the next one; pino flushes what is left when the process exits, so only a
 * `kill -9` can lose the last few.
 */
export function createLogger(level: string, name: string) {
  return pino({ level, name, base: { pid: process.pid } }, pino.destination({ dest: 1, sync: false }));
}
