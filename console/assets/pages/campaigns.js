// @ts-check
/* Campaigns: the list and the New campaign form. */
import { createCampaign, listCampaigns, listSegments, previewAudience as askPreview } from '../api/endpoints.js';
import { errorText } from '../lib/api.js';
import { badge, count, h, options, table } from '../lib/dom.js';
import { content, every, setStatus } from '../lib/frame.js';
import { pairs } from '../lib/lines.js';
import { CHANNELS } from '../lib/names.js';
import { pagedList } from '../lib/paged.js';
/** @import { Answer, Body, Ok } from '../api/types' */
/** @typedef {Body<'/campaigns', 'post'>['channel']} Channel */

export default function campaignsPage() {
  const archivedBox = h('input', { type: 'checkbox', id: 'show-archived' });
  const list = h('div', { id: 'campaign-list' });
  const name = h('input', { type: 'text', id: 'new-name', required: true, maxlength: 200 });
  const channel = h(
    'select',
    { id: 'new-channel' },
    ['email', 'sms', 'push', 'whatsapp'].map((c) => h('option', { value: c }, CHANNELS[c])),
  );
  const subject = h('input', { type: 'text', id: 'new-subject', maxlength: 300 });
  const body = h('textarea', { id: 'new-content', required: true, maxlength: 5000 });
  const tags = h('input', { type: 'text', id: 'new-tags', placeholder: 'newsletter, vip' });
  const segment = h('select', { id: 'new-segment' }, h('option', { value: '' }, 'No segment: by tags'));
  // The team's segments, for an audience by segment (the list is read once; a new one needs a reload).
  void listSegments({ limit: 100 }).then((res) => {
    if (res.status === 200) segment.append(...options(res.body.data.map((x) => [x.id, x.name])));
  });
  const params = h('textarea', { id: 'new-params', placeholder: 'first=contact.firstName' });
  const outcome = h('p', { role: 'status', class: 'outcome' });
  const audience = () =>
    segment.value
      ? { segmentId: segment.value }
      : {
          tags: tags.value
            .split(',')
            .map((t) => t.trim())
            .filter(Boolean),
        };
  const previewOutcome = h('p', { role: 'status', class: 'outcome', id: 'audience-preview' });
  const previewAudience = async () => {
    const res = await askPreview({ channel: /** @type {Channel} */ (channel.value), ...audience() });
    if (res.status !== 200) return (previewOutcome.textContent = errorText(res));
    const skipped = Object.entries(res.body.skipped)
      .filter(([, n]) => n > 0)
      .map(([reason, n]) => n + ' ' + reason.replace(/_/g, ' '));
    previewOutcome.textContent =
      res.body.sendable +
      ' of ' +
      res.body.total +
      ' can be sent' +
      (skipped.length ? '; skipped: ' + skipped.join(', ') : '') +
      '.';
  };
  const create = h(
    'form',
    {
      class: 'card',
      onsubmit: async (ev) => {
        ev.preventDefault();
        const res = await createCampaign({
          name: name.value.trim(),
          channel: /** @type {Channel} */ (channel.value),
          // One field for both: a push notification's is its title.
          ...(subject.value.trim() ? { [channel.value === 'push' ? 'title' : 'subject']: subject.value.trim() } : {}),
          content: body.value,
          ...audience(),
          templateParams: pairs(params.value),
        });
        if (res.status === 201) window.location.assign('/app/campaigns/' + encodeURIComponent(res.body.id));
        else outcome.textContent = errorText(res);
      },
    },
    h('h2', {}, 'New campaign'),
    h('label', { for: 'new-name' }, 'Name'),
    name,
    h('label', { for: 'new-channel' }, 'Channel'),
    channel,
    h('label', { for: 'new-subject' }, 'Subject (email, push)'),
    subject,
    h('label', { for: 'new-content' }, 'Message ({{placeholder}} allowed)'),
    body,
    h('label', { for: 'new-tags' }, 'Audience: contacts with any of these tags'),
    tags,
    h('label', { for: 'new-segment' }, 'or a saved segment (instead of tags)'),
    segment,
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'button', onclick: () => void previewAudience() }, 'Preview audience'),
    ),
    previewOutcome,
    h('label', { for: 'new-params' }, 'Placeholders, one per line: name=contact.firstName or a literal'),
    params,
    h('div', { class: 'actions' }, h('button', { class: 'primary', type: 'submit' }, 'Create draft')),
    outcome,
  );
  content.replaceChildren(
    h('div', { class: 'toolbar' }, h('label', { for: 'show-archived' }, archivedBox, ' Show archived')),
    list,
    create,
  );
  /** @param {import('../api/types').PageAsked} page */
  const listPage = (page) => listCampaigns({ ...(archivedBox.checked ? { archived: 'true' } : {}), ...page });
  // In pages; a click on "Show archived" starts again at the first page of the other list
  // (pagedList shows only the latest answer when a poll and the click overlap).
  const campaigns = pagedList('Campaigns', listPage, 25, (items) =>
    table(
      ['Campaign', 'Channel', 'Status', 'Recipients', 'Sent', 'Skipped', 'Failed', 'Opened', 'Clicked'],
      items.map((c) =>
        h(
          'tr',
          { dataset: { id: c.id } },
          h('td', {}, h('a', { href: '/app/campaigns/' + encodeURIComponent(c.id) }, c.name)),
          h('td', {}, CHANNELS[c.channel] || c.channel),
          h('td', {}, badge(c.status)),
          h('td', {}, String(c.recipientCount)),
          h('td', {}, String(c.sentCount)),
          h('td', {}, String(c.skippedCount)),
          h('td', {}, String(c.failedCount)),
          h('td', {}, String(c.openedCount)),
          h('td', {}, String(c.clickedCount)),
        ),
      ),
      archivedBox.checked ? 'No archived campaigns.' : 'No campaigns yet.',
      'Campaigns',
    ),
  );
  list.append(campaigns.el);
  const shown = (/** @type {Answer<Ok<'/campaigns', 'get'>>} */ res) =>
    setStatus(count(res.body.data.length, 'campaign') + ' · updated ' + new Date().toLocaleTimeString());
  archivedBox.addEventListener('change', () => void campaigns.restart(listPage).then(shown));
  every(5000, async () => shown(await campaigns.refresh()));
}
