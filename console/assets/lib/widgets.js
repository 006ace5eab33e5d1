// @ts-check
/* Widgets the pages share: a delete button, a secret shown once, a small form. */
import { api, errorText } from './api.js';
import { h } from './dom.js';
import { setStatus } from './frame.js';

/**
 * A red button that DELETEs `path`: on the API's `ok` status it redraws (`after`), otherwise it
 * shows the API's error through `report` (the page's status line by default).
 */
export const deleteButton = ({ text, label, path, ok, after, report = setStatus }) =>
  h(
    'button',
    {
      type: 'button',
      class: 'danger',
      'aria-label': label,
      onclick: async () => {
        const r = await api('DELETE', path);
        if (r.status !== ok) return report(errorText(r));
        await after();
      },
    },
    text,
  );

/** A secret the API answers once (a signing secret, a key, a token): shown here, never again. */
export function shownOnce(id, what, secret) {
  const copy = h(
    'button',
    {
      type: 'button',
      onclick: async () => {
        try {
          await navigator.clipboard.writeText(secret);
          copy.textContent = 'Copied';
        } catch (_err) {
          copy.textContent = 'Copy it by hand';
        }
      },
    },
    'Copy',
  );
  return h(
    'div',
    { class: 'secret', role: 'status' },
    h('p', {}, h('strong', {}, what), ': shown only now. Copy it and keep it safe; the console cannot show it again.'),
    h('code', { id }, secret),
    h('div', { class: 'actions' }, copy),
  );
}

/** A small form: labelled fields, one submit button, an outcome line; `submit(values)` answers the outcome text. */
export function smallForm(idPrefix, title, fields, buttonLabel, submit) {
  const inputs = {};
  const outcome = h('p', { role: 'status', class: 'outcome' });
  const form = h(
    'form',
    {
      class: 'card',
      onsubmit: async (ev) => {
        ev.preventDefault();
        const values = {};
        for (const [name, el] of Object.entries(inputs))
          values[name] = el.type === 'checkbox' ? el.checked : el.type === 'file' ? el.files : el.value;
        const answer = await submit(values);
        // `{ text, done }`: a form whose work is done is emptied for the next one.
        outcome.textContent = typeof answer === 'string' ? answer : answer.text;
        if (answer && answer.done) form.reset();
      },
    },
    h('h2', {}, title),
    fields.map((f) => {
      const id = idPrefix + '-' + f.name;
      const el =
        f.type === 'select'
          ? h(
              'select',
              { id },
              f.options.map(([value, label]) => h('option', { value }, label)),
            )
          : f.type === 'textarea'
            ? h('textarea', { id, required: f.required })
            : h('input', { id, type: f.type || 'text', required: f.required });
      inputs[f.name] = el;
      return f.type === 'checkbox' ? h('label', { for: id }, el, ' ', f.label) : [h('label', { for: id }, f.label), el];
    }),
    h('div', { class: 'actions' }, h('button', { class: 'primary', type: 'submit' }, buttonLabel)),
    outcome,
  );
  return { form, inputs };
}
