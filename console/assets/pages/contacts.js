// @ts-check
/* Contacts: the list, a New contact form, and a change of addresses and tags. */
import { createContact, listContacts, updateContact } from '../api/endpoints.js';
import { errorText } from '../lib/api.js';
import { count, fill, h, table } from '../lib/dom.js';
import { content, setStatus } from '../lib/frame.js';
import { pagedList } from '../lib/paged.js';
import { smallForm } from '../lib/widgets.js';
/** @import { Item } from '../api/types' */

export default function contactsPage() {
  const list = h('div', { id: 'contact-list' });
  const { form } = smallForm(
    'contact',
    'New contact',
    [
      { name: 'name', label: 'Name', required: true },
      { name: 'email', label: 'Email', type: 'email' },
      { name: 'phone', label: 'Phone' },
      { name: 'tags', label: 'Tags (comma separated)' },
      { name: 'consent', label: 'Agreed to marketing messages', type: 'checkbox' },
    ],
    'Add contact',
    async (/** @type {{ name: string, email: string, phone: string, tags: string, consent: boolean }} */ v) => {
      const created = await createContact({
        name: v.name.trim(),
        ...(v.email.trim() ? { email: v.email.trim() } : {}),
        ...(v.phone.trim() ? { phone: v.phone.trim() } : {}),
        tags: v.tags
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean),
      });
      if (created.status !== 201) return errorText(created);
      if (v.consent) {
        const consent = await updateContact(created.body.id, {
          marketingConsent: 'granted',
          consentSource: 'console',
        });
        if (consent.status !== 200) return errorText(consent);
      }
      await refresh();
      return { text: 'Added ' + created.body.name + '.', done: true };
    },
  );
  const editPanel = h('div', { id: 'contact-edit' });
  /** A contact's addresses and tags, changed with PATCH (a contact a send skipped for want of an address gets one here). */
  const editForm = (/** @type {Item<'/contacts'>} */ c) => {
    const { form: f, inputs } = smallForm(
      'edit',
      'Change ' + (c.name || c.email || c.id),
      [
        { name: 'email', label: 'New email', type: 'email' },
        { name: 'phone', label: 'New phone' },
        { name: 'tags', label: 'Tags (comma separated), replacing the current ones' },
      ],
      'Save',
      async (/** @type {{ email: string, phone: string, tags: string }} */ v) => {
        const tagList = v.tags
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean);
        const res = await updateContact(c.id, {
          ...(v.email.trim() ? { email: v.email.trim() } : {}),
          ...(v.phone.trim() ? { phone: v.phone.trim() } : {}),
          ...(v.tags.trim() ? { tags: tagList } : {}),
        });
        if (res.status !== 200) return errorText(res);
        await contacts.refresh();
        return 'Saved.';
      },
    );
    inputs.email.value = c.email || '';
    inputs.phone.value = c.phone || '';
    inputs.tags.value = (c.tags || []).join(', ');
    return f;
  };
  const contacts = pagedList('Contacts', listContacts, 50, (items) =>
    table(
      ['Name', 'Email', 'Phone', 'Tags', 'Marketing', ''],
      items.map((c) =>
        h(
          'tr',
          { dataset: { id: c.id } },
          h(
            'td',
            {},
            h('a', { href: '/app/contacts/' + encodeURIComponent(c.id) }, c.name || c.email || c.phone || c.id),
          ),
          h('td', {}, c.email || ''),
          h('td', {}, c.phone || ''),
          h('td', {}, (c.tags || []).join(', ')),
          h('td', {}, c.optedOut ? 'opted out' : c.marketingConsent),
          h(
            'td',
            {},
            h(
              'button',
              {
                type: 'button',
                'aria-label': 'Change ' + (c.name || c.email || c.id),
                onclick: () => {
                  fill(editPanel, editForm(c));
                  editPanel.scrollIntoView({ block: 'nearest' });
                },
              },
              'Change…',
            ),
          ),
        ),
      ),
      'No contacts yet.',
      'Contacts',
    ),
  );
  list.append(contacts.el);
  content.replaceChildren(list, editPanel, form);
  const refresh = async () => {
    const res = await contacts.refresh();
    setStatus(count(res.body.data.length, 'contact') + ' on this page');
  };
  void refresh().catch((err) => setStatus(err.message));
}
