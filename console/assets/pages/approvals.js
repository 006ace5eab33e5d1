// @ts-check
/* The approvals inbox: pending warp executions and campaign approval cards. */
import {
  approveExecution,
  declineExecution,
  decideCampaignCards,
  getApprovalView,
  listCampaignCards,
  listCampaigns,
  listExecutions,
} from '../api/endpoints.js';
import { errorText } from '../lib/api.js';
import { facts, h, when, wrappable } from '../lib/dom.js';
import { content, every, setStatus } from '../lib/frame.js';
import { agents, CHANNELS } from '../lib/names.js';
/** @import { Body, Item, Ok } from '../api/types' */
/** @typedef {Item<'/warp-executions'>} Execution */
/** @typedef {Item<'/campaigns'> & { agentName?: string }} Campaign */
/** @typedef {Item<'/campaigns/{campaignId}/cards'>} ApprovalCard */

/** @type {Record<string, string>} */
const WARP_TITLES = {
  'artifact-deliver': 'Delivery',
  'agent-permission': 'Permission request',
  'svc-campaign-send': 'Campaign send',
};

/** A card for one pending warp execution, from the approval page's own view of it (GET …/approval-view). */
/**
 * A card for one pending warp execution, from the approval page's own view of it (GET …/approval-view).
 * @param {Execution} execution
 * @param {Ok<'/warp-executions/{executionId}/approval-view', 'get'>} view
 */
function executionCard(execution, view) {
  const draft = execution.draft;
  const title = WARP_TITLES[execution.warp] || 'Approval';
  // The API takes edits of a delivery's message and subject; other writes are approved as asked.
  const editable = execution.warp === 'artifact-deliver' && !!draft;
  const outcome = h('p', { class: 'outcome', role: 'status' });
  const subjectField = h('input', {
    type: 'text',
    id: 'subject-' + execution.id,
    value: (draft && draft.subject) || '',
  });
  const messageField = h('textarea', { id: 'message-' + execution.id }, (draft && draft.message) || '');

  /**
   * @param {'approve' | 'decline'} verb
   * @param {Body<'/warp-executions/{executionId}/approve', 'post'>} body
   */
  const decide = async (verb, body) => {
    for (const b of card.querySelectorAll('button')) b.disabled = true;
    // A refresh while the answer is on its way keeps the card, so the person sees how it went.
    card.dataset.deciding = 'true';
    const res = await (verb === 'approve' ? approveExecution(execution.id, body) : declineExecution(execution.id, {}));
    delete card.dataset.deciding;
    if (res.status === 200) {
      outcome.textContent = verb === 'approve' ? 'Approved (' + res.body.status + ')' : 'Declined';
      card.dataset.decided = verb;
    } else {
      outcome.textContent = errorText(res);
      for (const b of card.querySelectorAll('button')) b.disabled = false;
    }
  };
  const approve = () => {
    if (!editable) return decide('approve', {});
    const edits = {};
    const subject = subjectField.value.trim();
    const message = messageField.value.trim();
    if (subject && subject !== (draft.subject || '')) edits.subject = subject;
    if (message && message !== draft.message) edits.message = message;
    return decide('approve', edits);
  };

  const message = view.message;
  const card = h(
    'article',
    {
      class: 'card',
      dataset: { id: execution.id, warp: execution.warp },
      'aria-labelledby': 'title-' + execution.id,
    },
    h('span', { class: 'kind' }, title),
    h('h3', { id: 'title-' + execution.id }, view.question),
    h('p', {}, view.summary),
    facts([
      [
        'To',
        view.recipients.length
          ? h(
              'ul',
              { class: 'plain recipients' },
              view.recipients.map((r) => h('li', {}, r.name ? r.name + ' — ' : '', wrappable(r.address))),
            )
          : null,
      ],
      ...view.facts.map((f) => /** @type {[string, string]} */ ([f.label, f.value])),
      ['Asked', when(execution.createdAt)],
    ]),
    editable
      ? [
          h('label', { for: 'subject-' + execution.id }, 'Subject'),
          subjectField,
          h('label', { for: 'message-' + execution.id }, 'Message'),
          messageField,
          draft.links ? [h('h4', {}, 'Sent with the message'), h('div', { class: 'message' }, draft.links)] : null,
        ]
      : message
        ? [
            message.subject ? facts([['Subject', message.subject]]) : null,
            h('h4', {}, 'Message'),
            h('div', { class: 'message' }, message.body),
          ]
        : null,
    h(
      'div',
      { class: 'actions' },
      h('button', { class: 'primary', type: 'button', onclick: approve }, view.approveLabel),
      h('button', { class: 'danger', type: 'button', onclick: () => decide('decline', {}) }, 'Decline'),
    ),
    outcome,
  );
  return card;
}

/**
 * A campaign's approval cards: each recipient with Approve / Skip, or all at once.
 * @param {Campaign} campaign
 * @param {ApprovalCard[]} cards
 */
function campaignCardsCard(campaign, cards) {
  const outcome = h('p', { class: 'outcome', role: 'status' });
  const key = 'cards-' + campaign.id;
  /** @param {Body<'/campaigns/{campaignId}/cards', 'post'>} body */
  const decide = async (body) => {
    for (const b of card.querySelectorAll('button')) b.disabled = true;
    // As for an execution's card: the decision is written before its answer comes back.
    card.dataset.deciding = 'true';
    const res = await decideCampaignCards(campaign.id, body);
    delete card.dataset.deciding;
    outcome.textContent =
      res.status === 200 ? 'Approved ' + res.body.approved + ', skipped ' + res.body.skipped : errorText(res);
    if (res.status !== 200) for (const b of card.querySelectorAll('button')) b.disabled = false;
    else card.dataset.decided = 'cards';
  };
  const card = h(
    'article',
    { class: 'card', dataset: { id: key }, 'aria-labelledby': 'title-' + key },
    h('span', { class: 'kind' }, 'Campaign approval cards'),
    h(
      'h3',
      { id: 'title-' + key },
      h('a', { href: '/app/campaigns/' + encodeURIComponent(campaign.id) }, campaign.name),
    ),
    facts([
      ['Channel', CHANNELS[campaign.channel] || campaign.channel],
      campaign.channel === 'push' ? ['Title', campaign.title] : ['Subject', campaign.subject],
      ['Agent', campaign.agentName],
    ]),
    h('h4', {}, 'Waiting to be sent to ' + cards.length),
    h(
      'ul',
      { class: 'decide recipients' },
      cards.map((c) =>
        h(
          'li',
          {},
          h('span', { class: 'address' }, wrappable(c.address || c.contactId)),
          h(
            'span',
            { class: 'small-actions' },
            h(
              'button',
              {
                type: 'button',
                'aria-label': 'Approve ' + (c.address || c.contactId),
                onclick: () => decide({ approve: [c.contactId] }),
              },
              'Approve',
            ),
            h(
              'button',
              {
                type: 'button',
                'aria-label': 'Skip ' + (c.address || c.contactId),
                onclick: () => decide({ skip: [c.contactId] }),
              },
              'Skip',
            ),
          ),
        ),
      ),
    ),
    h('h4', {}, 'Message'),
    h('div', { class: 'message' }, campaign.content || ''),
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        { class: 'primary', type: 'button', onclick: () => decide({ approve: 'all' }) },
        'Approve all ' + cards.length,
      ),
      h('button', { class: 'danger', type: 'button', onclick: () => decide({ skip: 'all' }) }, 'Skip all'),
    ),
    outcome,
  );
  return card;
}

export default function approvalsPage() {
  const list = h('div', { class: 'cards', id: 'inbox' });
  const empty = h('p', { class: 'muted', id: 'inbox-empty' }, 'Nothing waits for your approval.');
  content.replaceChildren(list, empty);
  every(3000, async () => {
    const names = await agents();
    const [executions, campaigns] = await Promise.all([
      listExecutions({ status: 'pending_approval', limit: 100 }),
      listCampaigns({ limit: 100 }),
    ]);
    if (executions.status !== 200) throw new Error(errorText(executions));
    /** @type {Map<string, () => Promise<HTMLElement | null>>} */
    const wanted = new Map();
    for (const e of executions.body.data) {
      // A delivery is shown once drafted: its message is what an approver edits.
      if (e.warp === 'artifact-deliver' && !e.draft) continue;
      wanted.set(e.id, async () => {
        const view = await getApprovalView(e.id);
        return view.status === 200 ? executionCard(e, view.body) : null;
      });
    }
    /** @type {Campaign[]} */
    const sending = (campaigns.body.data || []).filter((c) => c.status === 'sending');
    const cardLists = await Promise.all(sending.map((c) => listCampaignCards(c.id, { perPage: 100 })));
    sending.forEach((c, i) => {
      const cards = cardLists[i].status === 200 ? cardLists[i].body.data : [];
      c.agentName = c.agentId ? names.get(c.agentId) : undefined;
      if (cards.length)
        wanted.set('cards-' + c.id + ':' + cards.map((x) => x.contactId).join(','), async () =>
          campaignCardsCard(c, cards),
        );
    });
    // Cards already shown stay as they are (a half-typed edit survives a refresh); gone ones leave,
    // a decided one after its outcome has been read, one being decided not before its answer.
    for (const el of /** @type {HTMLElement[]} */ ([...list.children])) {
      const key = el.dataset.key || '';
      if (wanted.has(key) || el.dataset.deciding) continue;
      if (el.dataset.decided) setTimeout(() => el.remove(), 5000);
      else el.remove();
    }
    const shown = new Set(/** @type {HTMLElement[]} */ ([...list.children]).map((el) => el.dataset.key));
    for (const [key, make] of wanted) {
      if (shown.has(key)) continue;
      const card = await make();
      if (!card) continue;
      card.dataset.key = key;
      list.prepend(card);
    }
    empty.hidden = list.children.length > 0;
    setStatus(wanted.size + ' waiting · updated ' + new Date().toLocaleTimeString());
  });
}
