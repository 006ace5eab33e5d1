const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

/** The long suites (by file name, wherever they sit under test/): the worker kills and the workflow runs. */
const LONG = /^(worker-restart|delivery-restart|campaign-restart|cohort-faults|workflow\.)/;

/** Runs the slowest files first, then the rest alphabetically by path, for a stable, short wall time. */
class SlowFirstSequencer extends Sequencer {
  sort(tests) {
    const weight = (file) => (LONG.test(path.basename(file)) ? 0 : 1);
    return [...tests].sort((a, b) => weight(a.path) - weight(b.path) || a.path.localeCompare(b.path));
  }
}
module.exports = SlowFirstSequencer;
