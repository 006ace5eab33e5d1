import path from 'node:path';

export type EntryPoint = 'worker.ts' | 'server.ts' | 'inbox.ts';

/**
 * The worker's old space is capped: its live heap is about 60 MiB, and without a cap V8 lets a
 * million-recipient send grow the process past 350 MiB before collecting (docs/CAMPAIGNS.md,
 * "Memory"). Imports and exports stream in pages, so nothing it does needs more.
 */
export const WORKER_HEAP_MB = Number(process.env.WORKER_HEAP_MB ?? 192);

/**
 * The worker's young generation is capped below V8's 16 MiB semi-space ceiling: 16 held the
 * process ~30 MiB higher during a send (past 300 MiB with the SMTP sender thread), and 4 made its
 * main thread collect so often that an SMTP send lost a third of its rate (docs/BENCHMARKS.md,
 * run 18). 8 keeps both. Both caps make every workflow's work collect more often: an export job
 * costs the worker about 5 % more CPU than at V8's defaults (run 55).
 */
const WORKER_SEMI_SPACE_MB = 8;

/** CPU_PROFILE_DIR set: every process started from here writes a V8 CPU profile there (bench findings). */
export const profileArgs = (): string[] =>
  process.env.CPU_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.CPU_PROFILE_DIR}`] : [];

/** The node arguments that run an entry point, as `npm start`, the tests and the bench run it. */
export function nodeArgsFor(entry: EntryPoint): string[] {
  return [
    ...(entry === 'worker.ts'
      ? [`--max-old-space-size=${WORKER_HEAP_MB}`, `--max-semi-space-size=${WORKER_SEMI_SPACE_MB}`]
      : []),
    ...profileArgs(),
    '--import',
    'tsx',
    path.join(__dirname, entry),
  ];
}
