// @ts-check
/* Campaigns: the list and the New campaign form (lib/campaignForm.js). */
import { createCampaign, listCampaigns } from '../api/endpoints.js';
import { errorText } from '../lib/api.js';
import { campaignForm, createBody } from '../lib/campaignForm.js';
import { badge, count, h, table } from '../lib/dom.js';
import { content, every, setStatus } from '../lib/frame.js';
import { CHANNELS } from '../lib/names.js';
import { pagedList } from '../lib/paged.js';
/** @import { Answer, Ok } from '../api/types' */

export default function campaignsPage() {
  const archivedBox = h('input', { type: 'checkbox', id: 'show-archived' });
  const list = h('div', { id: 'campaign-list' });
  const create = campaignForm({
    prefix: 'new',
    title: 'New campaign',
    submitLabel: 'Create draft',
    submit: async (values) => {
      const res = await createCampaign(createBody(values));
      if (res.status !== 201) return errorText(res);
      window.location.assign('/app/campaigns/' + encodeURIComponent(res.body.id));
      return 'Created.';
    },
  });
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
