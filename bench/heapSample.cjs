// Where a process allocates, collected objects included: V8's sampling heap profiler through the
// inspector. `node --heap-prof` keeps only what is still alive when the process ends, which says
// nothing about what a hot path throws away (what the garbage collector spends its time on).
//
//   NODE_OPTIONS="--require ./bench/heapSample.cjs" HEAP_SAMPLE_DIR=/tmp/heap BENCH_ONLY=d npm run bench
//
// Preloaded into every node process; samples only those whose arguments name HEAP_SAMPLE_ENTRY
// (default `worker.ts`) and writes `<entry>-<pid>.heapprofile` to HEAP_SAMPLE_DIR as it exits
// (docs/BENCHMARKS.md, run 49, reads one).
const entry = process.env.HEAP_SAMPLE_ENTRY || 'worker.ts';
const dir = process.env.HEAP_SAMPLE_DIR;
if (dir && process.argv.some((arg) => arg.endsWith(entry))) {
  const inspector = require('node:inspector');
  const fs = require('node:fs');
  const path = require('node:path');
  const session = new inspector.Session();
  session.connect();
  session.post('HeapProfiler.startSampling', {
    samplingInterval: 16384,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  // A session on the process's own thread answers at once, so the profile is written within `exit`.
  process.on('exit', () => {
    session.post('HeapProfiler.stopSampling', (err, result) => {
      if (err) return;
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, `${entry}-${process.pid}.heapprofile`), JSON.stringify(result.profile));
    });
  });
}
