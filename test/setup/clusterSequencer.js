const Sequencer = require('@jest/test-sequencer').default;

/**
 * `npm run test:cluster` order: the end-to-end suites, then the fault tests (test/cluster/), and
 * last the one that leaves a single shared worker (its file name says "worker-lost").
 */
class ClusterSequencer extends Sequencer {
  sort(tests) {
    const weight = (file) => (/worker-lost/.test(file) ? 2 : /[\\/]test[\\/]cluster[\\/]/.test(file) ? 1 : 0);
    return [...tests].sort((a, b) => weight(a.path) - weight(b.path) || a.path.localeCompare(b.path));
  }
}
module.exports = ClusterSequencer;
