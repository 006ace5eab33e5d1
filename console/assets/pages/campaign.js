// @ts-check
/* A campaign: counts, the actions its state allows, plots, recipients. */
import {
  archiveCampaign,
  cancelCampaignSchedule,
  cancelCampaignSend,
  deleteCampaign,
  getCampaign,
  getCampaignStats,
  getCampaignTimeline,
  listCampaignRecipients,
  listContacts,
  refreshCampaignTemplate,
  retryCampaign,
  sendCampaign,
  sendCampaignTest,
  submitCampaignTemplate,
  unarchiveCampaign,
  updateCampaign,
} from '../api/endpoints.js';
import { errorText } from '../lib/api.js';
import { campaignForm, updateBody } from '../lib/campaignForm.js';
import { campaignDetails } from '../lib/campaignView.js';
import { badge, facts, fill, h, table, when } from '../lib/dom.js';
import { content, notFound, pageId, setStatus, setTitle } from '../lib/frame.js';
import { CHANNELS } from '../lib/names.js';
import { cumulative, plot } from '../lib/plot.js';
/** @import { Answer, Ok, Query } from '../api/types' */
/** @typedef {Ok<'/campaigns/{campaignId}', 'get'>} Campaign */
/** @typedef {Campaign['actions'][number]} Action */

/** @type {Record<Action, string>} */
const ACTION_LABELS = {
  edit: 'Edit',
  send: 'Send',
  'cancel-schedule': 'Cancel schedule',
  'cancel-send': 'Cancel send',
  'test-send': 'Test send',
  retry: 'Retry',
  archive: 'Archive',
  unarchive: 'Unarchive',
  delete: 'Delete',
  'whatsapp-submit': 'Submit template',
  'whatsapp-refresh': 'Refresh template status',
};
/**
 * The simple actions: one POST without a body (retry's is empty).
 * @type {Partial<Record<Action, (id: string) => Promise<Answer<unknown>>>>}
 */
const ACTION_CALLS = {
  'cancel-schedule': cancelCampaignSchedule,
  'cancel-send': cancelCampaignSend,
  retry: (id) => retryCampaign(id, {}),
  archive: archiveCampaign,
  unarchive: unarchiveCampaign,
  'whatsapp-submit': submitCampaignTemplate,
  'whatsapp-refresh': refreshCampaignTemplate,
};

/**
 * The code of a recipient's failed send, from its error as the API keeps it: an envelope (`{ error: { code, message } }`).
 * @param {unknown} stored
 */
const errorCode = (stored) => {
  const envelope = /** @type {{ error?: { code?: string } } | null | undefined} */ (stored);
  return envelope && envelope.error ? envelope.error.code : '';
};

export default async function campaignPage() {
  const id = pageId;
  const first = await getCampaign(id);
  if (first.status === 404) return notFound('Campaign');
  const header = h('div', {});
  const counts = h('div', { class: 'counts', id: 'counts' });
  const toolbar = h('div', { class: 'toolbar', id: 'actions', role: 'group', 'aria-label': 'Actions' });
  const panel = h('div', { id: 'action-panel' });
  const outcome = h('p', { role: 'status', class: 'outcome', id: 'action-outcome' });
  const sentPlot = plot('plot-sent', 'Messages sent over time (cumulative)', ['sent'], ['#1d4ed8']);
  const engagementPlot = plot(
    'plot-engagement',
    'Opens and clicks over time (cumulative)',
    ['opened', 'clicked'],
    ['#15803d', '#b45309'],
  );
  const statusFilter = h(
    'select',
    { id: 'recipient-status' },
    ['', 'sent', 'failed', 'skipped', 'pending'].map((s) => h('option', { value: s }, s || 'all')),
  );
  const recipients = h('div', { id: 'recipients' });
  const message = h('div', {});
  const details = campaignDetails();
  content.replaceChildren(
    header,
    counts,
    toolbar,
    panel,
    outcome,
    h('h2', {}, 'Message'),
    message,
    details.el,
    h('h2', {}, 'Over time'),
    sentPlot.el,
    engagementPlot.el,
    h('h2', {}, 'Recipients'),
    h('div', { class: 'toolbar' }, h('label', { for: 'recipient-status' }, 'Status'), statusFilter),
    recipients,
  );

  let campaign = first.body;
  let shownActions = '';
  /**
   * An action's call, its outcome in words, and the page redrawn.
   * @param {() => Promise<Answer<unknown>>} call
   */
  const act = async (call) => {
    outcome.textContent = '…';
    const res = await call();
    // What an action may answer: a write held for approval, or a retry's count.
    const body = /** @type {{ pending?: boolean, executionId?: string, retried?: number } | undefined} */ (res.body);
    if (res.status === 202 && body && body.pending)
      outcome.textContent = 'Waiting for approval: see Approvals (' + body.executionId + ')';
    else if (res.status >= 200 && res.status < 300)
      outcome.textContent = 'Done' + (body && body.retried !== undefined ? ': ' + body.retried + ' retried' : '') + '.';
    else outcome.textContent = errorText(res);
    panel.replaceChildren();
    await refresh();
    return res;
  };
  /** @type {Partial<Record<Action, () => Element | Promise<Element>>>} */
  const forms = {
    send() {
      // The campaign's own time, if it has one (in local time, as the input shows it).
      const own = campaign.scheduledAt ? new Date(campaign.scheduledAt) : null;
      const at = h('input', {
        type: 'datetime-local',
        id: 'send-at',
        value: own ? new Date(own.getTime() - own.getTimezoneOffset() * 60_000).toISOString().slice(0, 16) : '',
      });
      return h(
        'form',
        {
          class: 'card',
          onsubmit: (ev) => {
            ev.preventDefault();
            // Empty is now, even for a campaign with a scheduledAt of its own.
            void act(() => sendCampaign(id, { scheduledAt: at.value ? new Date(at.value).toISOString() : null }));
          },
        },
        h('label', { for: 'send-at' }, 'Send at (empty: now)'),
        at,
        h('div', { class: 'actions' }, h('button', { class: 'primary', type: 'submit' }, 'Send campaign')),
      );
    },
    edit() {
      return campaignForm({
        prefix: 'edit',
        title: 'Edit campaign',
        campaign,
        submitLabel: 'Save',
        submit: async (values) => {
          const res = await act(() => updateCampaign(id, updateBody(campaign, values)));
          return res.status === 200 ? 'Saved.' : errorText(res);
        },
      });
    },
    'test-send': async () => {
      const contacts = await listContacts({ limit: 100 });
      const pick = h(
        'select',
        { id: 'test-contact' },
        (contacts.body.data || [])
          .filter((c) => c.email)
          .map((c) => h('option', { value: c.id }, (c.name || '') + ' <' + c.email + '>')),
      );
      return h(
        'form',
        {
          class: 'card',
          onsubmit: (ev) => {
            ev.preventDefault();
            void act(() => sendCampaignTest(id, { contactId: pick.value }));
          },
        },
        h('label', { for: 'test-contact' }, 'Send a [TEST] copy to'),
        pick,
        h('div', { class: 'actions' }, h('button', { class: 'primary', type: 'submit' }, 'Send test')),
      );
    },
    delete() {
      return h(
        'div',
        { class: 'card' },
        h('p', {}, 'Delete “' + campaign.name + '” for good?'),
        h(
          'button',
          {
            class: 'danger',
            type: 'button',
            onclick: async () => {
              const res = await act(() => deleteCampaign(id));
              if (res.status === 204) window.location.assign('/app/campaigns');
            },
          },
          'Delete for good',
        ),
      );
    },
  };

  /** @param {Campaign} c @param {Ok<'/campaigns/{campaignId}/stats', 'get'>} stats */
  const render = (c, stats) => {
    setTitle('Campaign: ' + c.name);
    header.replaceChildren(
      h(
        'p',
        {},
        badge(c.status),
        ' ',
        CHANNELS[c.channel] || c.channel,
        c.archived ? ' · archived' : '',
        c.scheduledAt ? ' · scheduled for ' + when(c.scheduledAt) : '',
        c.rejectionReason ? ' · template rejected: ' + c.rejectionReason : '',
      ),
    );
    const skipReasons = Object.entries(stats.skipReasons || {});
    fill(
      counts,
      .../** @type {[string, number][]} */ ([
        ['Recipients', stats.recipients],
        ['Sent', stats.sent],
        ['Pending', stats.pending],
        ['Skipped', stats.skipped],
        ['Failed', stats.failed],
        ['Opened', stats.opened],
        ['Clicked', stats.clicked],
        ['Awaiting approval', stats.awaitingApproval],
      ]).map(([label, n]) => h('div', { dataset: { count: label } }, h('strong', {}, String(n)), label)),
      skipReasons.length
        ? h(
            'div',
            { class: 'skip-reasons' },
            h('strong', {}, 'Skipped because'),
            skipReasons.map(([r, n]) => r.replace(/_/g, ' ') + ': ' + n).join(', '),
          )
        : null,
    );
    /** @type {[string, string | null]} */
    const heading = c.channel === 'push' ? ['Title', c.title] : ['Subject', c.subject];
    fill(message, heading[1] ? facts([heading]) : null, h('div', { class: 'message' }, c.content));
    details.show(c);
    // Only what the state allows, as the API lists it: the state table lives in the service.
    const key = c.actions.join(',');
    if (key !== shownActions) {
      shownActions = key;
      toolbar.replaceChildren(
        ...c.actions.map((a) =>
          h(
            'button',
            {
              type: 'button',
              class: a === 'delete' || a === 'cancel-send' ? 'danger' : a === 'send' ? 'primary' : undefined,
              dataset: { action: a },
              onclick: async () => {
                const call = ACTION_CALLS[a];
                if (call) return act(() => call(id));
                const form = forms[a];
                if (form) panel.replaceChildren(await form());
              },
            },
            ACTION_LABELS[a] || a,
          ),
        ),
      );
    }
  };

  // A refresh and a change of the filter can overlap: only the answer to the latest request is shown.
  let recipientsAsked = 0;
  const showRecipients = async () => {
    const asked = ++recipientsAsked;
    const status = /** @type {Query<'/campaigns/{campaignId}/recipients', 'get'>['status']} */ (statusFilter.value);
    const res = await listCampaignRecipients(id, { perPage: 100, ...(status ? { status } : {}) });
    if (res.status !== 200 || asked !== recipientsAsked) return;
    recipients.replaceChildren(
      table(
        ['Recipient', 'Status', 'Skip reason', 'Retryable', 'Sent', 'Opened', 'Clicked'],
        res.body.data.map((r) =>
          h(
            'tr',
            { dataset: { contact: r.contactId } },
            h('td', {}, r.address || r.contactId),
            h('td', {}, badge(r.status)),
            h('td', {}, r.skipReason ? r.skipReason.replace(/_/g, ' ') : errorCode(r.error)),
            h('td', {}, r.retryable ? 'yes' : 'no'),
            h('td', {}, r.sentAt ? when(r.sentAt) : ''),
            h('td', {}, r.opened_at ? when(r.opened_at) : ''),
            h('td', {}, r.clicked_at ? when(r.clicked_at) : ''),
          ),
        ),
        'No recipients' + (statusFilter.value ? ' ' + statusFilter.value : '') + '.',
        'Recipients',
      ),
    );
  };
  statusFilter.addEventListener('change', () => void showRecipients());

  const refresh = async () => {
    const [c, stats, timeline] = await Promise.all([getCampaign(id), getCampaignStats(id), getCampaignTimeline(id)]);
    if (c.status === 404) return notFound('Campaign');
    campaign = c.body;
    render(campaign, stats.body);
    sentPlot.update(cumulative(timeline.body.points, ['sent']));
    engagementPlot.update(cumulative(timeline.body.points, ['opened', 'clicked']));
    await showRecipients();
    setStatus('Updated ' + new Date().toLocaleTimeString());
  };
  // Live while a send runs; calmer otherwise.
  let stopped = false;
  const loop = async () => {
    try {
      await refresh();
    } catch (err) {
      setStatus('Could not refresh: ' + (err instanceof Error ? err.message : String(err)));
    }
    if (!stopped) setTimeout(loop, campaign.status === 'sending' || campaign.status === 'scheduled' ? 1500 : 5000);
  };
  window.addEventListener('pagehide', () => {
    stopped = true;
  });
  await loop();
}
