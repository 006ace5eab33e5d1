// @ts-check
/* A contact: its fields, and its custom properties viewed, added, changed and removed
 * (PATCH /contacts/{id} {"properties": {key: value}}: merged key by key, null removes one). */
import { getContact, updateContact } from '../api/endpoints.js';
import { errorText } from '../lib/api.js';
import { facts, fill, h, when } from '../lib/dom.js';
import { content, notFound, pageId, setStatus, setTitle } from '../lib/frame.js';
import { deleteButton, smallForm } from '../lib/widgets.js';
/** @import { Ok } from '../api/types' */
/** @typedef {Ok<'/contacts/{contactId}', 'get'>} Contact */

/** The kinds of value a property form writes: the API keeps any JSON value. */
const KINDS = /** @type {[string, string][]} */ ([
  ['text', 'Text'],
  ['number', 'Number'],
  ['boolean', 'Yes / no (true or false)'],
  ['json', 'JSON (a list or an object)'],
]);

/** The kind of a stored value, as the form offers it. */
const kindOf = (/** @type {unknown} */ value) =>
  typeof value === 'string'
    ? 'text'
    : typeof value === 'number'
      ? 'number'
      : typeof value === 'boolean'
        ? 'boolean'
        : 'json';
/** A property's value in words: text as it is, anything else as JSON. */
const shown = (/** @type {unknown} */ value) => (typeof value === 'string' ? value : JSON.stringify(value));
const KIND_WORDS = /** @type {Record<string, string>} */ ({
  text: 'text',
  number: 'number',
  boolean: 'yes / no',
  json: 'JSON',
});

/**
 * What the form's value is as the kind chosen, or the reason it is not one.
 * @param {string} kind @param {string} text
 * @returns {{ value: unknown } | { error: string }}
 */
function parsed(kind, text) {
  if (kind === 'text') return { value: text };
  if (kind === 'number') {
    const n = Number(text.trim());
    return text.trim() && Number.isFinite(n) ? { value: n } : { error: 'The value is not a number.' };
  }
  if (kind === 'boolean') {
    const t = text.trim().toLowerCase();
    return t === 'true' || t === 'yes'
      ? { value: true }
      : t === 'false' || t === 'no'
        ? { value: false }
        : { error: 'Write true or false.' };
  }
  try {
    const value = JSON.parse(text);
    return value === null ? { error: 'null removes a property: use Remove.' } : { value };
  } catch (_err) {
    return { error: 'The value is not JSON.' };
  }
}

export default function contactPage() {
  const details = h('section', { class: 'card', 'aria-labelledby': 'contact-fields' });
  const properties = h('div', { id: 'contact-properties' });
  const { form, inputs } = smallForm(
    'property',
    'Add or change a property',
    [
      { name: 'key', label: 'Property name', required: true },
      { name: 'kind', label: 'Kind of value', type: 'select', options: KINDS },
      { name: 'value', label: 'Value', required: true },
    ],
    'Save property',
    async (/** @type {{ key: string, kind: string, value: string }} */ v) => {
      const key = v.key.trim();
      const value = parsed(v.kind, v.value);
      if ('error' in value) return value.error;
      const had = contact && Object.prototype.hasOwnProperty.call(contact.properties, key);
      const res = await updateContact(pageId, { properties: { [key]: value.value } });
      if (res.status !== 200) return errorText(res);
      draw(res.body);
      return { text: (had ? 'Changed ' : 'Added ') + key + '.', done: true };
    },
  );
  form.id = 'property-form';
  /** @type {Contact | null} */
  let contact = null;

  /** Fills the form with a property to change. */
  const edit = (/** @type {string} */ key, /** @type {unknown} */ value) => {
    inputs.key.value = key;
    inputs.kind.value = kindOf(value);
    inputs.value.value = shown(value);
    form.scrollIntoView({ block: 'nearest' });
    inputs.value.focus();
  };

  const draw = (/** @type {Contact} */ c) => {
    contact = c;
    setTitle('Contact: ' + (c.name || c.email || c.phone || c.id));
    fill(
      details,
      h('h2', { id: 'contact-fields' }, 'Fields'),
      facts([
        ['Name', c.name],
        ['Email', c.email],
        ['Phone', c.phone],
        ['Company', c.company],
        ['Title', c.title],
        ['Location', c.location],
        ['Tags', c.tags.join(', ')],
        ['Marketing', c.optedOut ? 'opted out' : c.marketingConsent],
        ['Waiting on', c.waitingOn],
        ['Last contact', c.lastContactAt ? when(c.lastContactAt) : null],
        ['Created', when(c.createdAt)],
        ['Updated', when(c.updatedAt)],
        ['Orders', h('a', { href: '/app/shop?contact=' + encodeURIComponent(c.id) }, 'Its orders in the Shop')],
      ]),
    );
    const keys = Object.keys(c.properties).sort();
    fill(
      properties,
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'properties-title' },
        h('h2', { id: 'properties-title' }, 'Properties'),
        keys.length
          ? h(
              'ul',
              { class: 'decide', 'aria-label': 'Properties' },
              keys.map((key) => {
                const value = c.properties[key];
                return h(
                  'li',
                  { dataset: { key } },
                  h(
                    'span',
                    { class: 'address' },
                    h('strong', {}, key),
                    ': ',
                    h('span', { class: 'value' }, shown(value)),
                    ' ',
                    h('span', { class: 'muted' }, '(' + KIND_WORDS[kindOf(value)] + ')'),
                  ),
                  h(
                    'span',
                    { class: 'small-actions' },
                    h(
                      'button',
                      { type: 'button', 'aria-label': 'Change ' + key, onclick: () => edit(key, value) },
                      'Change…',
                    ),
                    deleteButton({
                      text: 'Remove',
                      label: 'Remove ' + key,
                      remove: () => updateContact(pageId, { properties: { [key]: null } }),
                      ok: 200,
                      after: load,
                    }),
                  ),
                );
              }),
            )
          : h('p', { class: 'muted' }, 'No properties yet.'),
      ),
    );
    setStatus(keys.length === 1 ? '1 property' : keys.length + ' properties');
  };

  const load = async () => {
    const res = await getContact(pageId);
    if (res.status === 404) return notFound('Contact');
    if (res.status !== 200) throw new Error(errorText(res));
    draw(res.body);
  };
  content.replaceChildren(h('p', {}, h('a', { href: '/app/contacts' }, '← All contacts')), details, properties, form);
  void load().catch((err) => setStatus(err.message));
}
