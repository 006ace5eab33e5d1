// @ts-check
/* A sign-up form's builder (docs/FORMS.md): the contact fields it asks for, tags, consent, double opt-in. */
import { createForm, updateForm } from '../api/endpoints.js';
import { errorText } from './api.js';
import { field, h, options } from './dom.js';
import { vocabulary } from './frame.js';
import { agents } from './names.js';
/** @import { Body, Ok } from '../api/types' */
/** @typedef {Ok<'/forms/{formId}', 'get'>} Form */
/** @typedef {NonNullable<Body<'/forms', 'post'>['fields']>[number]} FormField */

/** The default label of a field, as the page shows it: 'company' → 'Company'. */
const words = (/** @type {string} */ name) => name.charAt(0).toUpperCase() + name.slice(1);

/**
 * The builder: a new form (`form` absent: it creates one and opens its page) or an existing one
 * (it saves the changes and calls `saved` with the form as the API answers it).
 * @param {Form} [form]
 * @param {(saved: Form) => void} [saved]
 */
export async function formBuilder(form, saved) {
  const names = await agents();
  const p = form ? 'edit-form' : 'new-form';
  const id = (/** @type {string} */ n) => p + '-' + n;
  const text = (/** @type {string} */ n, /** @type {string | null | undefined} */ value, required = false) =>
    h('input', { type: 'text', id: id(n), value: value || '', required, maxlength: 200 });
  const area = (/** @type {string} */ n, /** @type {string | null | undefined} */ value) => {
    const el = h('textarea', { id: id(n) });
    el.value = value || '';
    return el;
  };
  const check = (/** @type {string} */ n, /** @type {boolean} */ on) =>
    h('input', { type: 'checkbox', id: id(n), checked: on });
  const name = text('name', form && form.name, true);
  const title = text('title', form && form.title);
  const description = area('description', form && form.description);
  const tags = text('tags', form ? form.tags.join(', ') : '');
  const consentText = text('consent', form && form.consentText);
  const doubleOptIn = check('double-opt-in', !!(form && form.doubleOptIn));
  const agent = h('select', { id: id('agent') }, options([['', 'None'], ...names], form ? form.agentId : null));
  const language = text('language', form ? form.language : 'en');
  const thankYou = area('thank-you', form && form.thankYou);
  const active = check('active', form ? form.active : true);

  // The fields it asks for: the form's own in their order, then the others, unticked.
  const current = form
    ? form.fields
    : [
        { name: 'name', label: '', required: false },
        { name: 'email', label: '', required: true },
      ];
  const order = [
    ...current.map((f) => f.name),
    ...vocabulary.formFields.filter((n) => !current.some((f) => f.name === n)),
  ];
  const rows = order.map((fieldName) => {
    const had = current.find((f) => f.name === fieldName);
    const isEmail = fieldName === 'email';
    const ask = h('input', {
      type: 'checkbox',
      id: id('ask-' + fieldName),
      checked: !!had || isEmail,
      disabled: isEmail,
    });
    const required = h('input', {
      type: 'checkbox',
      id: id('required-' + fieldName),
      checked: isEmail || !!(had && had.required),
      disabled: isEmail,
    });
    const label = h('input', {
      type: 'text',
      id: id('label-' + fieldName),
      value: (had && had.label) || '',
      maxlength: 100,
    });
    return {
      name: fieldName,
      el: h(
        'fieldset',
        { class: 'form-field', dataset: { field: fieldName } },
        h('legend', {}, words(fieldName)),
        h('label', { class: 'check', for: ask.id }, ask, ' Ask for it'),
        h('label', { class: 'check', for: required.id }, required, ' Required'),
        field(label.id, 'Label (empty: the default)', label),
      ),
      /** @returns {FormField | null} */
      read() {
        if (!ask.checked) return null;
        /** @type {FormField} */
        // One of FORM_FIELD_NAMES (the vocabulary); the API checks it.
        const out = { name: /** @type {FormField['name']} */ (fieldName) };
        if (label.value.trim()) out.label = label.value.trim();
        if (required.checked && !isEmail) out.required = true;
        return out;
      },
    };
  });

  const outcome = h('p', { role: 'status', class: 'outcome' });
  const el = h(
    'form',
    {
      class: 'card wide',
      id: p,
      onsubmit: async (/** @type {Event} */ ev) => {
        ev.preventDefault();
        const fields = /** @type {FormField[]} */ (rows.map((r) => r.read()).filter(Boolean));
        const tagList = tags.value
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean);
        const opt = (/** @type {HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement} */ el) =>
          el.value.trim() || (form ? null : undefined);
        const body = {
          name: name.value.trim(),
          title: opt(title),
          description: opt(description),
          fields,
          tags: tagList,
          consentText: opt(consentText),
          doubleOptIn: doubleOptIn.checked,
          agentId: opt(agent),
          language: language.value.trim() || 'en',
          thankYou: opt(thankYou),
          active: active.checked,
        };
        if (!form) {
          const res = await createForm(/** @type {Body<'/forms', 'post'>} */ (body));
          if (res.status === 201) return window.location.assign('/app/forms/' + encodeURIComponent(res.body.id));
          outcome.textContent = errorText(res);
          return;
        }
        const res = await updateForm(form.id, body);
        if (res.status !== 200) return (outcome.textContent = errorText(res));
        outcome.textContent = 'Saved.';
        if (saved) saved(res.body);
      },
    },
    h('h2', {}, form ? 'Edit the form' : 'New form'),
    field(name.id, 'Name (what the team calls it)', name),
    field(title.id, 'Heading of the page (empty: the name)', title),
    field(description.id, 'A paragraph under the heading', description),
    h(
      'fieldset',
      { class: 'form-fields' },
      h('legend', {}, 'Fields it asks for (email always: contacts are matched by it)'),
      rows.map((r) => r.el),
    ),
    field(tags.id, 'Tags added to the contact, separated by commas', tags),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Consent'),
      field(consentText.id, 'Marketing consent checkbox label (empty: no consent asked)', consentText),
      h('label', { class: 'check', for: doubleOptIn.id }, doubleOptIn, ' Double opt-in: confirm by an emailed link'),
      field(agent.id, 'Agent whose email integration sends the link', agent),
    ),
    field(language.id, 'Language of the page (en, de-CH, …)', language),
    field(thankYou.id, 'Thank-you sentence (empty: the default)', thankYou),
    h('label', { class: 'check', for: active.id }, active, ' Active (an inactive form answers 404)'),
    h(
      'div',
      { class: 'actions' },
      h('button', { class: 'primary', type: 'submit' }, form ? 'Save form' : 'Create form'),
    ),
    outcome,
  );
  return el;
}
