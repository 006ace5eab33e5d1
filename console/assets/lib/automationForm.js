// @ts-check
/* The New automation form: name, agent, trigger and the steps editor. */
import { createAutomation, listSegments, updateAutomationSteps } from '../api/endpoints.js';
import { errorText } from './api.js';
import { field, h, options } from './dom.js';
import { vocabulary } from './frame.js';
import { conditionsOf, conditionText, pairLines, pairs } from './lines.js';
import { agents, CHANNELS } from './names.js';
/** @import { Body, Ok } from '../api/types' */
/** @import { Attrs, Child } from './types' */
/** @typedef {Body<'/automations', 'post'>} NewAutomation */
/** @typedef {Extract<NewAutomation['trigger'], { kind: 'event' }>} EventTrigger */

/**
 * The steps' editors: one fieldset per step, fields by step type, read back as the API's step
 * objects. `load(steps)` fills it with steps as the API answers them (editing an automation).
 */
export function stepsEditor() {
  const box = h('div', { class: 'steps-editor', id: 'steps-editor' });
  /** @type {{ type: string, legend: HTMLElement, read: () => Record<string, unknown> }[]} */
  const editors = [];
  let made = 0;
  const renumber = () =>
    editors.forEach((e, i) => {
      e.legend.textContent = 'Step ' + (i + 1) + ': ' + e.type;
    });
  /** @param {string} type @param {Record<string, any>} [step] what to fill the fields with */
  const add = (type, step) => {
    const k = ++made;
    const id = (/** @type {string} */ name) => 'step-' + k + '-' + name;
    /** @type {Record<string, HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>} */
    const inputs = {};
    /** @param {string} name @param {string} label @param {Attrs} [attrs] */
    const text = (name, label, attrs) => {
      inputs[name] = h('input', Object.assign({ type: 'text', id: id(name) }, attrs || {}));
      return field(id(name), label, inputs[name]);
    };
    /** @param {string} name @param {string} label @param {Attrs} [attrs] */
    const area = (name, label, attrs) => {
      inputs[name] = h('textarea', Object.assign({ id: id(name) }, attrs || {}));
      return field(id(name), label, inputs[name]);
    };
    /** @param {string} name @param {string} label @param {string[]} values */
    const choose = (name, label, values) => {
      inputs[name] = h('select', { id: id(name) }, options(values.map((v) => [v, CHANNELS[v] || v])));
      return field(id(name), label, inputs[name]);
    };
    const target = '(a step label, or a step number counting from 0)';
    const fields = /** @type {Record<string, (() => Child) | undefined>} */ ({
      wait: () => text('duration', 'Duration (90s, 10m, 2h, 1d)', { required: true }),
      waitForEvent: () => [
        choose('event', 'Event about the contact', vocabulary.contactEvents),
        text('timeout', 'At most (a duration)', { required: true }),
        text('onTimeout', 'Then, if it did not come, go to ' + target),
      ],
      send: () => [
        choose('channel', 'Channel', ['email', 'sms', 'push']),
        text('subject', 'Subject'),
        area('content', 'Message ({{placeholder}} allowed)', { required: true }),
        area('templateParams', 'Placeholders, one per line: name=contact.firstName or a literal'),
        area('aiParams', 'AI placeholders, one per line: name=a short prompt'),
      ],
      runWarp: () => [text('warp', 'Warp', { required: true }), area('inputs', 'Inputs, one per line: name=value')],
      branch: () => [
        choose('match', 'The contact matches', ['all', 'any']),
        area('conditions', 'Conditions, one per line (tag vip, has_email, …)', { required: true }),
        text('then', 'If so, go to ' + target, { required: true }),
        text('else', 'Otherwise go to ' + target + '; empty: the next step'),
      ],
      exit: () => [],
    })[type];
    const legend = h('legend', {});
    const remove = h(
      'button',
      {
        type: 'button',
        onclick: () => {
          editors.splice(editors.indexOf(editor), 1);
          set.remove();
          renumber();
        },
      },
      'Remove step',
    );
    const set = h(
      'fieldset',
      { class: 'step', dataset: { type } },
      legend,
      fields ? fields() : [],
      text('label', 'Label (optional: a name other steps go to)'),
      h('div', { class: 'actions' }, remove),
    );
    const targetOf = (/** @type {string} */ v) => (/^\d+$/.test(v) ? Number(v) : v);
    const editor = {
      type,
      legend,
      read() {
        const v = (/** @type {string} */ name) => (inputs[name] ? inputs[name].value.trim() : '');
        /** @type {Record<string, unknown>} */
        const step = { type };
        if (type === 'wait') step.duration = v('duration');
        if (type === 'waitForEvent') {
          Object.assign(step, { event: v('event'), timeout: v('timeout') });
          if (v('onTimeout')) step.onTimeout = targetOf(v('onTimeout'));
        }
        if (type === 'send') {
          Object.assign(step, { channel: v('channel'), content: inputs.content.value });
          if (v('subject')) step.subject = v('subject');
          if (v('templateParams')) step.templateParams = pairs(inputs.templateParams.value);
          if (v('aiParams')) step.aiParams = pairs(inputs.aiParams.value);
        }
        if (type === 'runWarp') {
          step.warp = v('warp');
          if (v('inputs')) step.inputs = pairs(inputs.inputs.value);
        }
        if (type === 'branch') {
          step.if = { match: v('match'), conditions: conditionsOf(inputs.conditions.value) };
          step.then = targetOf(v('then'));
          if (v('else')) step.else = targetOf(v('else'));
        }
        if (v('label')) step.label = v('label');
        return step;
      },
    };
    if (step) fillStep(inputs, step);
    editors.push(editor);
    box.append(set);
    renumber();
  };
  const kind = h('select', { id: 'add-step-type' }, options(vocabulary.stepTypes.map((t) => [t, t])));
  const controls = h(
    'div',
    { class: 'toolbar' },
    h('div', {}, field('add-step-type', 'Next step', kind)),
    h('div', {}, h('button', { type: 'button', onclick: () => add(kind.value) }, 'Add step')),
  );
  return {
    el: h('div', {}, box, controls),
    read: () => editors.map((e) => e.read()),
    /** @param {Record<string, any>[]} steps */
    load(steps) {
      editors.length = 0;
      box.replaceChildren();
      for (const step of steps) add(String(step.type), step);
    },
    clear() {
      editors.length = 0;
      box.replaceChildren();
    },
  };
}

/**
 * A step's values into its editor's fields (a stored step is open in the answer's schema).
 * @param {Record<string, HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>} inputs
 * @param {Record<string, any>} step
 */
function fillStep(inputs, step) {
  const cond = step.if || {};
  /** @type {Record<string, unknown>} */
  const values = {
    ...step,
    templateParams: step.templateParams ? pairLines(step.templateParams) : undefined,
    aiParams: step.aiParams ? pairLines(step.aiParams) : undefined,
    inputs: step.inputs ? pairLines(step.inputs) : undefined,
    match: cond.match,
    conditions: Array.isArray(cond.conditions) ? cond.conditions.map(conditionText).join('\n') : undefined,
  };
  for (const [name, el] of Object.entries(inputs)) {
    const v = values[name];
    if (v !== undefined && v !== null) el.value = String(v);
  }
}

/**
 * Editing an automation's steps with the same editor as creation: saving writes a new version
 * (PUT …/steps); running enrollments keep the version they started on.
 * @param {Ok<'/automations/{automationId}', 'get'>} a
 * @param {(saved: Ok<'/automations/{automationId}/steps', 'put'>) => void} saved
 */
export function stepsEditForm(a, saved) {
  const steps = stepsEditor();
  steps.load(a.steps);
  const outcome = h('p', { role: 'status', class: 'outcome' });
  const form = h(
    'form',
    {
      class: 'card wide',
      id: 'steps-edit-form',
      'aria-labelledby': 'steps-edit-title',
      onsubmit: async (ev) => {
        ev.preventDefault();
        const res = await updateAutomationSteps(a.id, {
          // As the person wrote them: the API checks every step.
          steps: /** @type {NewAutomation['steps']} */ (steps.read()),
        });
        if (res.status !== 200) return (outcome.textContent = errorText(res));
        outcome.textContent =
          'Saved as version ' + res.body.version + ': new enrollments start on it; running ones keep theirs.';
        saved(res.body);
      },
    },
    h('h2', { id: 'steps-edit-title' }, 'Edit the steps'),
    h(
      'p',
      { class: 'muted' },
      'Saving makes version ' + (a.version + 1) + '. Contacts already in the journey finish the version they started.',
    ),
    steps.el,
    h('div', { class: 'actions' }, h('button', { class: 'primary', type: 'submit' }, 'Save as a new version')),
    outcome,
  );
  return form;
}

export async function automationForm() {
  const [names, segments] = await Promise.all([agents(), listSegments({ limit: 100 })]);
  const segmentList = segments.status === 200 ? segments.body.data : [];
  const name = h('input', { type: 'text', id: 'automation-name', required: true, maxlength: 200 });
  const agent = h('select', { id: 'automation-agent' }, options([...names]));
  const kind = h(
    'select',
    { id: 'trigger-kind' },
    options([
      ['inbound', 'An inbound webhook (a form, another system)'],
      ['event', 'A platform event about a contact'],
      ['segment', 'A contact entering a segment'],
    ]),
  );
  const sourceName = h('input', { type: 'text', id: 'trigger-source', placeholder: 'signup' });
  const mapping = h('textarea', {
    id: 'trigger-mapping',
    placeholder: 'email=$.user.email\nname=$.user.name',
  });
  const event = h('select', { id: 'trigger-event' }, options(vocabulary.contactEvents.map((e) => [e, e])));
  const segment = h('select', { id: 'trigger-segment' }, options(segmentList.map((s) => [s.id, s.name])));
  const parts = {
    inbound: h(
      'div',
      {},
      field('trigger-source', 'Source name (?source= of the hooks URL)', sourceName),
      field(
        'trigger-mapping',
        'Mapping, one per line: field=$.payload.path (fields: ' + vocabulary.enrollFields.join(', ') + ')',
        mapping,
      ),
    ),
    event: h('div', { hidden: true }, field('trigger-event', 'Event', event)),
    segment: h(
      'div',
      { hidden: true },
      segmentList.length
        ? field('trigger-segment', 'Segment', segment)
        : h('p', { class: 'muted' }, 'No segments yet: make one on the Segments page.'),
    ),
  };
  kind.addEventListener('change', () => {
    for (const [k, el] of Object.entries(parts)) el.hidden = k !== kind.value;
  });
  const steps = stepsEditor();
  const outcome = h('p', { role: 'status', class: 'outcome' });
  const form = h(
    'form',
    {
      class: 'card wide',
      id: 'automation-form',
      onsubmit: async (ev) => {
        ev.preventDefault();
        /** @type {NewAutomation['trigger']} */
        const trigger =
          kind.value === 'inbound'
            ? {
                kind: 'inbound',
                source: sourceName.value.trim(),
                ...(mapping.value.trim() ? { mapping: pairs(mapping.value) } : {}),
              }
            : kind.value === 'event'
              ? // One of the vocabulary's contact events (services/automations/schemas.ts).
                { kind: 'event', event: /** @type {EventTrigger['event']} */ (event.value) }
              : { kind: 'segment', segmentId: segment.value };
        const res = await createAutomation({
          name: name.value.trim(),
          agentId: agent.value,
          trigger,
          // As the person wrote them: the API checks every step (invalid_automation lists the mistakes).
          steps: /** @type {NewAutomation['steps']} */ (steps.read()),
        });
        if (res.status === 201) window.location.assign('/app/automations/' + encodeURIComponent(res.body.id));
        else outcome.textContent = errorText(res);
      },
    },
    h('h2', {}, 'New automation'),
    field('automation-name', 'Name', name),
    field('automation-agent', 'Agent (it sends and runs the warps)', agent),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Trigger'),
      field('trigger-kind', 'Enroll a contact on', kind),
      Object.values(parts),
    ),
    h('h3', {}, 'Steps'),
    steps.el,
    h('div', { class: 'actions' }, h('button', { class: 'primary', type: 'submit' }, 'Create automation')),
    outcome,
  );
  return form;
}
