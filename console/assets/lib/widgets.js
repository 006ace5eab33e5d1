// @ts-check
/* Widgets the pages share: a delete button, a secret shown once, a small form. */
import { errorText } from './api.js';
import { h } from './dom.js';
import { setStatus } from './frame.js';

/**
 * A red button that calls `remove` (an endpoint's DELETE): on the API's `ok` status it redraws
 * (`after`), otherwise it shows the API's error through `report` (the page's status line by default).
 * @param {{
 *   text: string,
 *   label: string,
 *   remove: () => Promise<{ status: number, body: unknown }>,
 *   ok: number,
 *   after: () => Promise<unknown>,
 *   report?: (text: string) => unknown,
 * }} how
 */
export const deleteButton = ({ text, label, remove, ok, after, report = setStatus }) =>
  h(
    'button',
    {
      type: 'button',
      class: 'danger',
      'aria-label': label,
      onclick: async () => {
        const r = await remove();
        if (r.status !== ok) return report(errorText(r));
        await after();
      },
    },
    text,
  );

/**
 * A secret the API answers once (a signing secret, a key, a token): shown here, never again.
 * @param {string} id
 * @param {string} what
 * @param {string} secret
 */
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

/**
 * A field of a small form: a text input by default, or `type` (an input's type, `select` with
 * `options`, `textarea`).
 * @typedef {{ name: string, label: string, type?: string, required?: boolean, options?: [string, string][] }} FieldSpec
 */
/**
 * A small form: labelled fields, one submit button, an outcome line; `submit(values)` answers the
 * outcome text, or `{ text, done }`: a form whose work is done is emptied for the next one.
 * @param {string} idPrefix
 * @param {string} title
 * @param {FieldSpec[]} fields
 * @param {string} buttonLabel
 * @template {object} V what the form reads, each field's value by its name: a string, a checkbox's
 *   boolean, a file field's FileList (the caller names the fields, and declares V as their values)
 * @param {(values: V) => Promise<string | { text: string, done: boolean }>} submit
 */
export function smallForm(idPrefix, title, fields, buttonLabel, submit) {
  /** @type {Record<string, HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>} */
  const inputs = {};
  const outcome = h('p', { role: 'status', class: 'outcome' });
  const form = h(
    'form',
    {
      class: 'card',
      onsubmit: async (ev) => {
        ev.preventDefault();
        /** @type {Record<string, unknown>} */
        const values = {};
        for (const [name, el] of Object.entries(inputs))
          values[name] =
            el instanceof HTMLInputElement && el.type === 'checkbox'
              ? el.checked
              : el instanceof HTMLInputElement && el.type === 'file'
                ? el.files
                : el.value;
        const answer = await submit(/** @type {V} */ (values));
        // `{ text, done }`: a form whose work is done is emptied for the next one.
        outcome.textContent = typeof answer === 'string' ? answer : answer.text;
        if (typeof answer !== 'string' && answer.done) form.reset();
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
              (f.options || []).map(([value, label]) => h('option', { value }, label)),
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
