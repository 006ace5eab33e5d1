// @ts-check
/* An automation's steps and trigger in words, with the counts of its enrollments. */
import { h } from './dom.js';
import { CHANNELS } from './names.js';
/** @import { Body, Ok } from '../api/types' */
/** @typedef {Ok<'/automations/{automationId}', 'get'>} Automation */
/** @typedef {Ok<'/automations/{automationId}/step-counts', 'get'>['data']} StepCounts */
/** A step as it was created (the answer's schema leaves a stored step open). @typedef {Body<'/automations', 'post'>['steps'][number]} Step */

/** A step in words: 'Wait 1h'. @param {Step} step */
export function describeStep(step) {
  switch (step.type) {
    case 'wait':
      return 'Wait ' + step.duration;
    case 'waitForEvent':
      return 'Wait for ' + step.event + (step.timeout ? ' (at most ' + step.timeout + ')' : '');
    case 'send':
      return 'Send ' + (CHANNELS[step.channel] || step.channel) + (step.subject ? ': ' + step.subject : '');
    case 'runWarp':
      return 'Run warp ' + step.warp;
    case 'branch':
      return 'Branch' + (step.then ? ' to ' + step.then : '');
    case 'exit':
      return 'Exit';
    default:
      return /** @type {{ type: string }} */ (step).type;
  }
}

/** @param {Automation['trigger']} t */
export function describeTrigger(t) {
  if (t.kind === 'inbound') return 'inbound webhook, source ' + t.source;
  if (t.kind === 'event') return 'platform event ' + t.event;
  if (t.kind === 'segment') return 'entering segment ' + t.segmentId;
  return /** @type {{ kind: string }} */ (t).kind;
}

/**
 * An automation's steps, each with how many enrollments are at it now (GET …/step-counts).
 * @param {Pick<Automation, 'version' | 'steps'>} a
 * @param {StepCounts} rows
 */
export function stepsWithCounts(a, rows) {
  const at = (/** @type {number} */ step) => rows.filter((r) => r.version === a.version && r.step === step);
  const sum = (/** @type {StepCounts} */ rs, /** @type {'active' | 'exited' | 'failed'} */ k) =>
    rs.reduce((n, r) => n + r[k], 0);
  return h(
    'ol',
    { class: 'steps', start: 0 },
    a.steps.map((step, n) => {
      const here = at(n);
      return h(
        'li',
        { dataset: { step: String(n) } },
        describeStep(/** @type {Step} */ (step)),
        ' — ',
        h('strong', { class: 'here' }, String(sum(here, 'active'))),
        ' here',
        sum(here, 'exited') ? ', ' + sum(here, 'exited') + ' exited here' : '',
        sum(here, 'failed') ? ', ' + sum(here, 'failed') + ' failed here' : '',
      );
    }),
  );
}
/** The totals of an automation's enrollments, by status. */
export const enrollmentTotals = (/** @type {StepCounts} */ rows) => {
  const total = (/** @type {'active' | 'completed' | 'exited' | 'failed'} */ k) => rows.reduce((n, r) => n + r[k], 0);
  return (
    'Enrollments: ' +
    total('active') +
    ' active, ' +
    total('completed') +
    ' completed, ' +
    total('exited') +
    ' exited, ' +
    total('failed') +
    ' failed'
  );
};
