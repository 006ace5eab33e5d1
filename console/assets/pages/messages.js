// @ts-check
/* Messages: the message log and the sandbox outbox. */
import { listMessages, listOutbox } from '../api/endpoints.js';
import { badge, field, fill, h, options, table, when } from '../lib/dom.js';
import { content, every, setStatus, vocabulary } from '../lib/frame.js';
import { CHANNELS } from '../lib/names.js';
import { pagedList } from '../lib/paged.js';
/** @import { Item, PageAsked, Query } from '../api/types' */
/** @typedef {Query<'/messages', 'get'>} MessageQuery */

export default function messagesPage() {
  // A link from another page narrows the log: ?sourceKind=delivery&sourceId=<execution>&contactId=<contact>.
  const asked = new URLSearchParams(window.location.search);
  /** @type {{ sourceId?: string, contactId?: string }} */
  const narrowed = {};
  if (asked.get('sourceId')) narrowed.sourceId = asked.get('sourceId') || undefined;
  if (asked.get('contactId')) narrowed.contactId = asked.get('contactId') || undefined;
  const sourceFilter = h(
    'select',
    { id: 'message-source' },
    options([
      ['', 'Everything'],
      ...vocabulary.messageSources.map((s) => /** @type {[string, string]} */ ([s, s.replace(/_/g, ' ')])),
    ]),
  );
  const statusFilter = h(
    'select',
    { id: 'message-status' },
    options([
      ['', 'Any'],
      ['sent', 'sent'],
      ['failed', 'failed'],
    ]),
  );
  sourceFilter.value = vocabulary.messageSources.includes(asked.get('sourceKind') || '')
    ? asked.get('sourceKind') || ''
    : '';
  /** The log as filtered now, a page at a time (the filters' values are the API's: the vocabulary's source kinds, sent or failed). */
  const query = () => {
    /** @type {MessageQuery} */
    const filters = { ...narrowed };
    if (sourceFilter.value) filters.sourceKind = /** @type {MessageQuery['sourceKind']} */ (sourceFilter.value);
    if (statusFilter.value) filters.status = /** @type {MessageQuery['status']} */ (statusFilter.value);
    return (/** @type {PageAsked} */ page) => listMessages({ ...filters, ...page });
  };
  const sourceLink = (/** @type {Item<'/messages'>} */ m) =>
    m.sourceKind === 'campaign' || m.sourceKind === 'campaign_test'
      ? h('a', { href: '/app/campaigns/' + encodeURIComponent(m.sourceId) }, m.sourceKind.replace(/_/g, ' '))
      : m.sourceKind + ' ' + m.sourceId;
  const log = pagedList('Messages', query(), 25, (items) =>
    table(
      ['Sent', 'Channel', 'To', 'Status', 'For', 'Provider', 'Opened', 'Clicked'],
      items.map((m) =>
        h(
          'tr',
          { dataset: { id: m.id } },
          h('td', {}, when(m.createdAt)),
          h('td', {}, CHANNELS[m.channel] || m.channel),
          h('td', {}, m.address),
          h('td', {}, badge(m.status)),
          h('td', {}, sourceLink(m)),
          h('td', {}, m.provider),
          h('td', {}, m.openedAt ? when(m.openedAt) : ''),
          h('td', {}, m.clickedAt ? when(m.clickedAt) : ''),
        ),
      ),
      'No messages yet.',
      'Messages',
    ),
  );
  const outbox = pagedList('Sandbox outbox', listOutbox, 25, (items) =>
    table(
      ['When', 'To', 'Subject', 'Message'],
      items.map((m) =>
        h(
          'tr',
          { dataset: { id: m.id } },
          h('td', {}, when(m.createdAt)),
          h('td', {}, m.to),
          h('td', {}, m.subject || ''),
          h('td', { class: 'result' }, m.body.length > 160 ? m.body.slice(0, 160) + '…' : m.body),
        ),
      ),
      'The sandbox has sent nothing.',
      'Sandbox outbox',
    ),
  );
  const refilter = () => void log.restart(query()).catch((err) => setStatus(err.message));
  sourceFilter.addEventListener('change', refilter);
  statusFilter.addEventListener('change', refilter);
  fill(
    content,
    h(
      'div',
      { class: 'toolbar' },
      h('div', {}, field('message-source', 'Sent for', sourceFilter)),
      h('div', {}, field('message-status', 'Status', statusFilter)),
    ),
    narrowed.sourceId || narrowed.contactId
      ? h(
          'p',
          { class: 'muted', id: 'message-narrowed' },
          'Only the messages of ',
          [narrowed.sourceId, narrowed.contactId && 'contact ' + narrowed.contactId].filter(Boolean).join(', '),
          '. ',
          '(The sandbox outbox below is not narrowed.) ',
          h('a', { href: '/app/messages' }, 'Show every message'),
        )
      : null,
    h(
      'section',
      { 'aria-labelledby': 'log-title', id: 'message-log' },
      h('h2', { id: 'log-title' }, 'Every message a provider was asked to send'),
      log.el,
    ),
    h(
      'section',
      { 'aria-labelledby': 'outbox-title', id: 'outbox' },
      h('h2', { id: 'outbox-title' }, 'Sandbox outbox'),
      h('p', { class: 'muted' }, 'What the sandbox provider "sent": the whole message, as a recipient would read it.'),
      outbox.el,
    ),
  );
  every(5000, async () => {
    await Promise.all([log.refresh(), outbox.refresh()]);
    setStatus('Updated ' + new Date().toLocaleTimeString());
  });
}
