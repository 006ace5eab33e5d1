// @ts-check
/* An agent's mailbox: the mail its receive-only inbox address got, and one message read whole. */
import { getInboxMessage, listInbox } from '../api/endpoints.js';
import { errorText } from './api.js';
import { facts, fill, h, when, wrappable } from './dom.js';
import { pagedList } from './paged.js';
/** @import { Ok } from '../api/types' */
/** @typedef {{ address: string, name: string }} Address */

/** "Ada Lovelace <ada@example.com>", or the address alone. */
const person = (/** @type {Address} */ a) => (a.name ? a.name + ' <' + a.address + '>' : a.address);
const people = (/** @type {Address[]} */ list) => list.map(person).join(', ');
/** A header the message kept (a list of values joined). */
const header = (/** @type {string | string[] | undefined} */ v) => (Array.isArray(v) ? v.join(' ') : v);
const size = (/** @type {number} */ bytes) =>
  bytes < 1024
    ? bytes + ' B'
    : bytes < 1024 * 1024
      ? (bytes / 1024).toFixed(1) + ' kB'
      : (bytes / 1048576).toFixed(1) + ' MB';

/**
 * One message: its addresses, headers, attachments (names and sizes: their contents are not kept)
 * and its text body, as text (an HTML body is never drawn as HTML here).
 * @param {Ok<'/agents/{agentId}/inbox/{messageId}', 'get'>} m
 */
function messageView(m) {
  return h(
    'article',
    { class: 'card', id: 'inbox-message', dataset: { id: m.id }, 'aria-labelledby': 'inbox-message-title' },
    h('h2', { id: 'inbox-message-title' }, m.subject || '(no subject)'),
    facts([
      ['From', m.from ? wrappable(person(m.from)) : m.envelope.from],
      ['To', wrappable(people(m.to))],
      ['Cc', m.cc.length ? wrappable(people(m.cc)) : null],
      ['Reply-To', header(m.headers['reply-to'])],
      ['In reply to', header(m.headers['in-reply-to'])],
      ['Sent', m.sentAt ? when(m.sentAt) : null],
      ['Received', when(m.receivedAt)],
      ['Size', size(m.size)],
      [
        'Contact',
        m.contactId ? h('a', { href: '/app/contacts/' + encodeURIComponent(m.contactId) }, 'the sender') : null,
      ],
      [
        'Attachments',
        m.attachments.length
          ? m.attachments
              .map((a) => (a.filename || 'unnamed') + ' (' + a.contentType + ', ' + size(a.size) + ')')
              .join(', ')
          : null,
      ],
    ]),
    m.text !== null
      ? h('div', { class: 'message', id: 'inbox-message-text' }, m.text)
      : h(
          'p',
          { class: 'muted' },
          m.html
            ? 'This message has only an HTML body (' + m.html.length + ' characters), not shown here.'
            : 'No body.',
        ),
  );
}

/**
 * The mailbox panel of agent `agentId`: received mail, newest first; Read opens one below.
 * @param {string} agentId
 */
export function mailboxPanel(agentId) {
  const reader = h('div', { id: 'inbox-reader' });
  const open = async (/** @type {string} */ id) => {
    const res = await getInboxMessage(agentId, id);
    if (res.status !== 200) return fill(reader, h('p', { class: 'error', role: 'alert' }, errorText(res)));
    fill(reader, messageView(res.body));
    reader.scrollIntoView({ block: 'nearest' });
  };
  const list = pagedList(
    'Mailbox',
    (page) => listInbox(agentId, page),
    25,
    (items) =>
      items.length
        ? h(
            'ul',
            { class: 'decide', id: 'inbox-list', 'aria-label': 'Received mail' },
            items.map((m) =>
              h(
                'li',
                { dataset: { id: m.id } },
                h(
                  'span',
                  { class: 'address' },
                  h('strong', {}, m.subject || '(no subject)'),
                  h('br', {}),
                  h('span', {}, m.from ? wrappable(person(m.from)) : 'unknown sender'),
                  h(
                    'span',
                    { class: 'muted' },
                    ' — ' + when(m.receivedAt) + (m.hasAttachments ? ', with attachments' : ''),
                  ),
                  h('br', {}),
                  h('span', { class: 'muted' }, m.snippet),
                ),
                h(
                  'span',
                  { class: 'small-actions' },
                  h(
                    'button',
                    {
                      type: 'button',
                      'aria-label': 'Read ' + (m.subject || 'message') + (m.from ? ' from ' + m.from.address : ''),
                      onclick: () => void open(m.id),
                    },
                    'Read',
                  ),
                ),
              ),
            ),
          )
        : h('p', { class: 'muted' }, 'No mail yet.'),
  );
  return {
    el: h(
      'div',
      {},
      h(
        'section',
        { class: 'card', 'aria-label': 'Mailbox' },
        h(
          'p',
          { class: 'muted' },
          'Mail sent to ',
          h('code', {}, agentId + '@'),
          ' the inbox domain arrives here. The address only receives.',
        ),
        list.el,
      ),
      reader,
    ),
    load: () => list.refresh(),
  };
}
