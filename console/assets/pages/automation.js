// @ts-check
/* One automation: trigger, steps with counts, enrollments and what they did. */
import {
  getAutomation,
  getContact,
  getEnrollment,
  getStepCounts,
  listEnrollments,
  listMessages,
  updateAutomation,
} from '../api/endpoints.js';
import { errorText } from '../lib/api.js';
import { stepsEditForm } from '../lib/automationForm.js';
import { describeTrigger, enrollmentTotals, stepsWithCounts } from '../lib/automations.js';
import { badge, count, facts, fill, h, table, when } from '../lib/dom.js';
import { content, every, notFound, pageId, setStatus, setTitle, vocabulary } from '../lib/frame.js';
import { pairLines } from '../lib/lines.js';
import { agents, CHANNELS } from '../lib/names.js';
import { pagedList } from '../lib/paged.js';
/** @import { Item, Ok } from '../api/types' */

export default async function automationPage() {
  const first = await getAutomation(pageId);
  if (first.status === 404) return notFound('Automation');
  if (first.status !== 200) return setStatus(errorText(first));
  const names = await agents();
  const head = h('div', { id: 'automation-head' });
  const counts = h('div', { id: 'automation-steps' });
  const detail = h('div', { id: 'enrollment-detail' });
  /** @type {Map<string, string>} */
  const contactNames = new Map();
  const contactName = async (/** @type {string} */ id) => {
    if (!contactNames.has(id)) {
      const r = await getContact(id);
      contactNames.set(id, r.status === 200 ? r.body.name || r.body.email || id : id);
    }
    return contactNames.get(id);
  };
  /** @param {Item<'/automations/{automationId}/enrollments'>} e */
  const showEnrollment = async (e) => {
    const [one, sent] = await Promise.all([
      getEnrollment(pageId, e.id),
      listMessages({ sourceKind: 'automation', sourceId: e.id, limit: 100 }),
    ]);
    if (one.status !== 200) return setStatus(errorText(one));
    const steps = one.body.steps || [];
    fill(
      detail,
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'enrollment-title', dataset: { id: e.id } },
        h('h3', { id: 'enrollment-title' }, 'Enrollment of ' + (await contactName(e.contactId))),
        facts([
          ['Status', badge(one.body.status)],
          ['Version', String(one.body.version)],
          ['At step', String(one.body.step)],
          ['Waiting for', one.body.waitingFor],
          ['Exit reason', one.body.exitReason],
          ['Started', when(one.body.createdAt)],
          ['Ended', one.body.endedAt ? when(one.body.endedAt) : null],
        ]),
        h('h4', {}, 'What its steps did'),
        steps.length
          ? h(
              'ul',
              { class: 'plain step-results' },
              steps.map((s) => {
                // What the step did: where it sent, or why it skipped (the answer's schema leaves it open).
                const detail = /** @type {{ to?: string, reason?: string } | null | undefined} */ (s.detail);
                return h(
                  'li',
                  {},
                  'Step ' + s.step + ': ',
                  badge(s.status),
                  detail && detail.to ? ' to ' + detail.to : '',
                  detail && detail.reason ? ' (' + detail.reason + ')' : '',
                );
              }),
            )
          : h('p', { class: 'muted' }, 'No step has acted yet.'),
        h('h4', {}, 'Messages sent for it'),
        table(
          ['Sent', 'Channel', 'To', 'Status'],
          (sent.status === 200 ? sent.body.data : []).map((m) =>
            h(
              'tr',
              { dataset: { id: m.id } },
              h('td', {}, when(m.createdAt)),
              h('td', {}, CHANNELS[m.channel] || m.channel),
              h('td', {}, m.address),
              h('td', {}, badge(m.status)),
            ),
          ),
          'No message yet.',
          'Messages of this enrollment',
        ),
      ),
    );
  };
  const enrollments = pagedList(
    'Enrollments',
    (page) => listEnrollments(pageId, page),
    25,
    (items) =>
      table(
        ['Contact', 'Version', 'Status', 'Step', 'Waiting for', 'Started', 'Ended', ''],
        items.map((e) =>
          h(
            'tr',
            { dataset: { id: e.id } },
            h('td', { class: 'contact' }, contactNames.get(e.contactId) || e.contactId),
            h('td', { class: 'version' }, 'v' + e.version),
            h('td', {}, badge(e.status)),
            h('td', {}, String(e.step)),
            h('td', {}, e.waitingFor || ''),
            h('td', {}, when(e.createdAt)),
            h('td', {}, e.endedAt ? when(e.endedAt) : ''),
            h(
              'td',
              {},
              h(
                'button',
                {
                  type: 'button',
                  'aria-label': 'Details of the enrollment of ' + (contactNames.get(e.contactId) || e.contactId),
                  onclick: () => void showEnrollment(e),
                },
                'Details',
              ),
            ),
          ),
        ),
        'Nobody enrolled yet.',
        'Enrollments',
      ),
  );
  const edit = h('div', { id: 'automation-edit' });
  content.replaceChildren(
    head,
    counts,
    edit,
    h(
      'section',
      { 'aria-labelledby': 'enrollments-title' },
      h('h2', { id: 'enrollments-title' }, 'Enrollments'),
      enrollments.el,
    ),
    detail,
  );
  /** @param {Ok<'/automations/{automationId}', 'get'>} a */
  const drawHead = (a) => {
    const out = h('p', { role: 'status', class: 'outcome' });
    const inbound = a.trigger.kind === 'inbound';
    const hookUrl = vocabulary.apiBaseUrl + '/agents/' + a.agentId + '/hooks?source=' + a.trigger.source;
    fill(
      head,
      h(
        'div',
        { class: 'card' },
        h('p', {}, badge(a.enabled ? 'enabled' : 'disabled'), ' version ' + a.version),
        facts([
          ['Trigger', describeTrigger(a.trigger)],
          [
            'Mapping',
            inbound && a.trigger.mapping
              ? h(
                  'ul',
                  { class: 'plain' },
                  pairLines(a.trigger.mapping)
                    .split('\n')
                    .map((line) => h('li', {}, line)),
                )
              : null,
          ],
          ['Agent', names.get(a.agentId) || a.agentId],
          ['Created', when(a.createdAt)],
        ]),
        inbound
          ? [
              h('h3', {}, 'Where the sign-ups are POSTed'),
              h('p', {}, h('code', { id: 'inbound-url' }, 'POST ' + hookUrl)),
              h(
                'p',
                { class: 'muted' },
                'With Authorization: Bearer and an AGENT_AUTH_KEY of the agent (',
                h('a', { href: '/app/hooks?agent=' + encodeURIComponent(a.agentId) }, 'Hooks and keys'),
                '), and a webhook-id header: a repeat of one webhook-id enrolls nobody again.',
              ),
            ]
          : null,
        h(
          'div',
          { class: 'actions' },
          h(
            'button',
            {
              type: 'button',
              onclick: async () => {
                const r = await updateAutomation(a.id, { enabled: !a.enabled });
                if (r.status !== 200) return (out.textContent = errorText(r));
                drawHead(r.body);
              },
            },
            a.enabled ? 'Disable' : 'Enable',
          ),
        ),
        out,
      ),
    );
  };
  /** @param {Ok<'/automations/{automationId}', 'get'>} a */
  const drawEdit = (a) =>
    fill(
      edit,
      h(
        'details',
        { class: 'edit-steps' },
        h('summary', {}, 'Edit the steps (version ' + a.version + ')'),
        stepsEditForm(a, (saved) => {
          drawHead(saved);
          const open = edit.querySelector('details');
          drawEdit(saved);
          const again = edit.querySelector('details');
          if (open && again) again.open = true;
          const note = edit.querySelector('.outcome');
          if (note) note.textContent = 'Saved as version ' + saved.version + '. Running enrollments keep theirs.';
        }),
      ),
    );
  setTitle('Automation: ' + first.body.name);
  drawHead(first.body);
  drawEdit(first.body);
  every(3000, async () => {
    const [a, stepCounts] = await Promise.all([getAutomation(pageId), getStepCounts(pageId)]);
    if (a.status !== 200) throw new Error(errorText(a));
    const rows = stepCounts.status === 200 ? stepCounts.body.data : [];
    fill(
      counts,
      h(
        'section',
        { class: 'card', dataset: { id: a.body.id }, 'aria-labelledby': 'steps-title' },
        h('h2', { id: 'steps-title' }, 'Steps'),
        h('p', { class: 'muted enrollment-totals' }, enrollmentTotals(rows)),
        stepsWithCounts(a.body, rows),
      ),
    );
    const res = await enrollments.refresh();
    // Names for the rows, read once per contact; the next round shows them.
    await Promise.all(res.body.data.map((e) => contactName(e.contactId)));
    setStatus(count(res.body.data.length, 'enrollment') + ' on this page · updated ' + new Date().toLocaleTimeString());
  });
}
