// @ts-check
/* Webhooks: the team's outbound endpoints and their deliveries. */
import { createEndpoint, deleteEndpoint, listDeliveries, listEndpoints, updateEndpoint } from '../api/endpoints.js';
import { errorText } from '../lib/api.js';
import { badge, count, facts, field, fill, h, table, when } from '../lib/dom.js';
import { content, every, setStatus, vocabulary } from '../lib/frame.js';
import { pagedList } from '../lib/paged.js';
import { shownOnce } from '../lib/widgets.js';
/** @import { Body, Item, PageAsked } from '../api/types' */

/** @param {Item<'/webhooks/endpoints/{endpointId}/deliveries'>[]} items */
function deliveriesTable(items) {
  return table(
    ['Event', 'Status', 'Attempts', 'Last answer', 'Delivered', 'Next attempt'],
    items.map((d) =>
      h(
        'tr',
        { dataset: { id: d.id } },
        h('td', {}, d.eventType),
        h('td', {}, badge(d.status)),
        h('td', {}, String(d.attempts)),
        h('td', {}, d.lastStatusCode ? 'HTTP ' + d.lastStatusCode : d.lastError || ''),
        h('td', {}, d.deliveredAt ? when(d.deliveredAt) : ''),
        h('td', {}, d.nextAttemptAt ? when(d.nextAttemptAt) : ''),
      ),
    ),
    'Nothing delivered yet.',
    'Deliveries',
  );
}

export default function webhooksPage() {
  const list = h('div', { class: 'cards', id: 'endpoint-list' });
  const created = h('div', { id: 'endpoint-created' });
  const url = h('input', {
    type: 'url',
    id: 'endpoint-url',
    required: true,
    placeholder: 'https://example.com/hooks',
  });
  const description = h('input', { type: 'text', id: 'endpoint-description', maxlength: 500 });
  const secret = h('input', {
    type: 'text',
    id: 'endpoint-secret',
    placeholder: 'whsec_… (empty: one is made for you)',
    autocomplete: 'off',
  });
  const typeBoxes = vocabulary.webhookEventTypes.map((t) =>
    h('input', { type: 'checkbox', value: t, id: 'event-' + t }),
  );
  const outcome = h('p', { role: 'status', class: 'outcome' });
  const form = h(
    'form',
    {
      class: 'card',
      onsubmit: async (ev) => {
        ev.preventDefault();
        // The ticked ones of the vocabulary's event types (services/events/outbox.ts).
        const eventTypes = /** @type {NonNullable<Body<'/webhooks/endpoints', 'post'>['eventTypes']>} */ (
          typeBoxes.filter((b) => b.checked).map((b) => b.value)
        );
        const res = await createEndpoint({
          url: url.value.trim(),
          ...(description.value.trim() ? { description: description.value.trim() } : {}),
          ...(secret.value.trim() ? { secret: secret.value.trim() } : {}),
          ...(eventTypes.length ? { eventTypes } : {}),
        });
        if (res.status !== 201) return (outcome.textContent = errorText(res));
        outcome.textContent = 'Added ' + res.body.url + '.';
        fill(created, shownOnce('endpoint-secret-value', 'Signing secret of ' + res.body.url, res.body.secret));
        form.reset();
        await refresh();
      },
    },
    h('h2', {}, 'New endpoint'),
    h(
      'p',
      { class: 'muted' },
      'Every platform event of the team is POSTed to it, signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature).',
    ),
    field('endpoint-url', 'URL', url),
    field('endpoint-description', 'Description', description),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Events it receives (none ticked: every event)'),
      typeBoxes.map((b) => h('label', { for: b.id, class: 'check' }, b, ' ', b.value)),
    ),
    field('endpoint-secret', 'Signing secret (optional)', secret),
    h('div', { class: 'actions' }, h('button', { class: 'primary', type: 'submit' }, 'Add endpoint')),
    outcome,
  );
  content.replaceChildren(created, list, form);

  /** @type {Map<string, { refresh: () => Promise<unknown> }>} */
  const deliveryLists = new Map();
  /** @param {Item<'/webhooks/endpoints'>} e */
  const endpointCard = (e) => {
    const out = h('p', { role: 'status', class: 'outcome' });
    const secretSlot = h('div', {});
    const deliveries = pagedList(
      'Deliveries to ' + e.url,
      (/** @type {PageAsked} */ page) => listDeliveries(e.id, page),
      10,
      deliveriesTable,
    );
    deliveryLists.set(e.id, deliveries);
    /** @param {Body<'/webhooks/endpoints/{endpointId}', 'patch'>} body @param {string} done */
    const patch = async (body, done) => {
      const r = await updateEndpoint(e.id, body);
      if (r.status !== 200) return (out.textContent = errorText(r));
      out.textContent = done;
      if (r.body.secret) fill(secretSlot, shownOnce('rotated-secret-' + e.id, 'New signing secret', r.body.secret));
      else await refresh();
    };
    let confirming = false;
    const del = h(
      'button',
      {
        type: 'button',
        class: 'danger',
        onclick: async () => {
          if (!confirming) {
            confirming = true;
            del.textContent = 'Really delete, with its history?';
            return;
          }
          const r = await deleteEndpoint(e.id);
          if (r.status !== 204) return (out.textContent = errorText(r));
          await refresh();
        },
      },
      'Delete',
    );
    return h(
      'article',
      { class: 'card', dataset: { id: e.id }, 'aria-labelledby': 'title-' + e.id },
      h('h3', { id: 'title-' + e.id }, e.url),
      h('p', {}, badge(e.enabled ? 'enabled' : 'disabled')),
      facts([
        ['Description', e.description],
        ['Events', e.eventTypes.length ? e.eventTypes.join(', ') : 'every event'],
        ['Extra headers', Object.keys(e.headers || {}).join(', ')],
        ['Added', when(e.createdAt)],
      ]),
      h(
        'div',
        { class: 'actions' },
        h(
          'button',
          { type: 'button', onclick: () => patch({ enabled: !e.enabled }, e.enabled ? 'Disabled.' : 'Enabled.') },
          e.enabled ? 'Disable' : 'Enable',
        ),
        h(
          'button',
          { type: 'button', onclick: () => patch({ secret: 'rotate' }, 'The old secret no longer signs.') },
          'New secret',
        ),
        del,
      ),
      out,
      secretSlot,
      h('h4', {}, 'Deliveries'),
      deliveries.el,
    );
  };
  const refresh = async () => {
    const res = await listEndpoints({ limit: 100 });
    if (res.status !== 200) throw new Error(errorText(res));
    deliveryLists.clear();
    fill(
      list,
      res.body.data.length ? res.body.data.map(endpointCard) : h('p', { class: 'muted' }, 'No endpoints yet.'),
    );
    await Promise.all([...deliveryLists.values()].map((d) => d.refresh()));
    setStatus(count(res.body.data.length, 'endpoint'));
  };
  void refresh()
    .then(() =>
      // Deliveries arrive and retry in the background: follow them without redrawing the cards.
      every(3000, async () => {
        await Promise.all([...deliveryLists.values()].map((d) => d.refresh()));
      }),
    )
    .catch((err) => setStatus(err.message));
}
