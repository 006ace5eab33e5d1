const Sequencer = require('@jest/test-sequencer').default;

/** Runs the slowest files first (by name), then the rest alphabetically, for a stable, short wall time. */
class SlowFirstSequencer extends Sequencer {
  sort(tests) {
    const weight = (path) => (/worker-restart|delivery-restart|campaign-restart|workflow/.test(path) ? 0 : 1);
    return [...tests].sort((a, b) => weight(a.path) - weight(b.path) || a.path.localeCompare(b.path));
  }
}
module.exports = SlowFirstSequencer;
