// @ts-check
/* Automations: the list with step counts, and the New automation form. */
import { getStepCounts, listAutomations, updateAutomation } from '../api/endpoints.js';
import { errorText } from '../lib/api.js';
import { automationForm } from '../lib/automationForm.js';
import { enrollmentTotals, stepsWithCounts } from '../lib/automations.js';
import { badge, count, h } from '../lib/dom.js';
import { content, every, setStatus } from '../lib/frame.js';

export default async function automationsPage() {
  const list = h('div', { class: 'cards', id: 'automation-list' });
  content.replaceChildren(list, await automationForm());
  every(4000, async () => {
    const res = await listAutomations({ limit: 100 });
    if (res.status !== 200) throw new Error(errorText(res));
    const counts = await Promise.all(res.body.data.map((a) => getStepCounts(a.id)));
    list.replaceChildren(
      ...res.body.data.map((a, i) => {
        const rows = counts[i].status === 200 ? counts[i].body.data : [];
        const older = rows.filter((r) => r.version !== a.version);
        const toggle = h(
          'button',
          {
            type: 'button',
            onclick: async () => {
              const r = await updateAutomation(a.id, { enabled: !a.enabled });
              toggle.textContent = r.status === 200 ? (r.body.enabled ? 'Disable' : 'Enable') : errorText(r);
            },
          },
          a.enabled ? 'Disable' : 'Enable',
        );
        return h(
          'article',
          { class: 'card', dataset: { id: a.id }, 'aria-labelledby': 'title-' + a.id },
          h('h3', { id: 'title-' + a.id }, h('a', { href: '/app/automations/' + encodeURIComponent(a.id) }, a.name)),
          h(
            'p',
            {},
            badge(a.enabled ? 'enabled' : 'disabled'),
            ' trigger: ',
            a.trigger.kind + (a.trigger.source ? ' ' + a.trigger.source : a.trigger.event ? ' ' + a.trigger.event : ''),
            ' · version ',
            String(a.version),
          ),
          h('p', { class: 'muted enrollment-totals' }, enrollmentTotals(rows)),
          stepsWithCounts(a, rows),
          older.length
            ? h('p', { class: 'muted' }, 'On older versions: ' + older.reduce((n, r) => n + r.active, 0) + ' active')
            : null,
          h('div', { class: 'actions' }, toggle),
        );
      }),
    );
    if (!res.body.data.length) list.replaceChildren(h('p', { class: 'muted' }, 'No automations yet.'));
    setStatus(count(res.body.data.length, 'automation') + ' · updated ' + new Date().toLocaleTimeString());
  });
}
