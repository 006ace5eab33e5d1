// @ts-check
/* One artifact: what it is, and its delivery records (recipient, channel, status, approval), each linked to the message log. */
import { getArtifact, getContact, getExecution, listDeliveryRecords } from '../api/endpoints.js';
import { errorText } from '../lib/api.js';
import { badge, count, facts, fill, h, when, wrappable } from '../lib/dom.js';
import { content, every, notFound, pageId, setStatus, setTitle } from '../lib/frame.js';
import { CHANNELS } from '../lib/names.js';
import { pagedList } from '../lib/paged.js';
/** @import { Item, Ok, PageAsked } from '../api/types' */
/** @typedef {Item<'/deliveries'>} Delivery */

/** What a person decided about a delivery's execution, from the execution (read once each). */
function approvalText(/** @type {Ok<'/warp-executions/{executionId}', 'get'> | undefined} */ execution) {
  if (!execution) return '—';
  // Auto mode opens no approval (no expiry); a manual-mode delivery is sent only once a person approved it.
  if (!execution.approvalExpiresAt) return 'not needed (auto mode)';
  if (execution.status === 'pending_approval') return 'waiting';
  if (execution.status === 'declined' || execution.status === 'expired') return execution.status;
  return 'approved';
}

/** Where the message log shows this record's message: the delivery's execution, this recipient. */
const messagesLink = (/** @type {Delivery} */ d) =>
  '/app/messages?' + new URLSearchParams({ sourceKind: 'delivery', sourceId: d.executionId, contactId: d.contactId });

export default async function artifactPage() {
  const res = await getArtifact(pageId);
  if (res.status === 404) return notFound('Artifact');
  if (res.status !== 200) return setStatus(errorText(res));
  const artifact = res.body;
  setTitle('Artifact: ' + artifact.title);

  /** @type {Map<string, string>} */
  const names = new Map();
  /** @type {Map<string, Ok<'/warp-executions/{executionId}', 'get'>>} */
  const executions = new Map();
  /** The names of contacts and the executions of delivery records, each read once (an open execution again). */
  const lookUp = async (/** @type {string[]} */ contacts, /** @type {string[]} */ executionsOf) => {
    const contactIds = [...new Set(contacts)].filter((id) => !names.has(id));
    const executionIds = [...new Set(executionsOf)].filter((id) => {
      const known = executions.get(id);
      return !known || known.status === 'pending_approval' || known.status === 'running';
    });
    await Promise.all([
      ...contactIds.map(async (id) => {
        const c = await getContact(id);
        if (c.status === 200) names.set(id, c.body.name || c.body.email || id);
      }),
      ...executionIds.map(async (id) => {
        const x = await getExecution(id);
        if (x.status === 200) executions.set(id, x.body);
      }),
    ]);
  };
  if (artifact.contactId) await lookUp([artifact.contactId], []);

  const records = pagedList(
    'Deliveries',
    async (/** @type {PageAsked} */ page) => {
      const answer = await listDeliveryRecords({ artifactId: artifact.id, ...page });
      if (answer.status === 200)
        await lookUp(
          answer.body.data.map((d) => d.contactId),
          answer.body.data.map((d) => d.executionId),
        );
      return answer;
    },
    25,
    (items) =>
      items.length
        ? h(
            'ul',
            { class: 'decide records', 'aria-label': 'Delivery records' },
            items.map((d) =>
              h(
                'li',
                { dataset: { id: d.id } },
                h(
                  'span',
                  { class: 'address' },
                  h('strong', {}, names.get(d.contactId) || d.contactId),
                  ' — ',
                  wrappable(d.to),
                  h(
                    'span',
                    { class: 'record-facts' },
                    CHANNELS[d.integration] || d.integration,
                    ' · ',
                    badge(d.status),
                    ' · approval: ',
                    approvalText(executions.get(d.executionId)),
                    d.sentAt ? ' · sent ' + when(d.sentAt) : '',
                  ),
                  d.subject ? h('span', { class: 'record-facts' }, 'Subject: ' + d.subject) : null,
                  d.error
                    ? h(
                        'span',
                        { class: 'record-facts error' },
                        d.error.error.message + ' (' + d.error.error.code + ')',
                      )
                    : null,
                ),
                h(
                  'span',
                  { class: 'small-actions' },
                  h(
                    'a',
                    { href: messagesLink(d), 'aria-label': 'Message log of the delivery to ' + d.to },
                    'Message log',
                  ),
                ),
              ),
            ),
          )
        : h('p', { class: 'muted' }, 'Not delivered yet: Deliver… on Artifacts sends it.'),
  );

  const about = h('section', { class: 'card', id: 'artifact-facts', 'aria-label': 'The artifact' });
  /** What the artifact is now (its status changes as it is delivered). */
  const drawAbout = (/** @type {Ok<'/artifacts/{artifactId}', 'get'>} */ a) =>
    fill(
      about,
      facts([
        ['Type', a.type],
        ['Status', badge(a.status)],
        ['For', a.contactId ? names.get(a.contactId) || a.contactId : 'no contact yet'],
        ['Link', a.url ? h('a', { href: a.url, rel: 'noopener noreferrer' }, a.url) : null],
        ['Files', a.media.map((m) => m.filename).join(', ')],
        ['Delivered', a.deliveredAt ? when(a.deliveredAt) : null],
        ['Created', when(a.createdAt)],
      ]),
    );
  drawAbout(artifact);
  content.replaceChildren(
    about,
    h(
      'section',
      { 'aria-labelledby': 'deliveries-title', id: 'deliveries' },
      h('h2', { id: 'deliveries-title' }, 'Deliveries'),
      h(
        'p',
        { class: 'muted' },
        'One record per recipient of each delivery: where it went and what came of it. ',
        h('a', { href: '/app/artifacts' }, 'All artifacts'),
      ),
      records.el,
    ),
  );
  every(5000, async () => {
    const [answer, now] = await Promise.all([records.refresh(), getArtifact(artifact.id)]);
    if (now.status === 200) drawAbout(now.body);
    setStatus(count(answer.body.data.length, 'delivery record') + ' on this page');
  });
}
