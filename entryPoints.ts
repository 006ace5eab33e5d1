import path from 'node:path';

export type EntryPoint = 'worker.ts' | 'server.ts';

/**
 * The worker's old space is capped: its live heap is about 60 MiB, and without a cap V8 lets a
 * million-recipient send grow the process past 350 MiB before collecting (docs/CAMPAIGNS.md,
 * "Memory"). Imports and exports stream in pages, so nothing it does needs more.
 */
export const WORKER_HEAP_MB = Number(process.env.WORKER_HEAP_MB ?? 192);

/** The node arguments that run an entry point, as `npm start`, the tests and the bench run it. */
export function nodeArgsFor(entry: EntryPoint): string[] {
  return [
    ...(entry === 'worker.ts' ? [`--max-old-space-size=${WORKER_HEAP_MB}`] : []),
    '--import',
    'tsx',
    path.join(__dirname, entry),
  ];
}
