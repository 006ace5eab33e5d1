// @ts-check
/* Forms: the team's hosted sign-up forms (docs/FORMS.md), the Forms app's state, and the builder of a new one. */
import { installApp, listApps, listForms } from '../api/endpoints.js';
import { errorText } from '../lib/api.js';
import { badge, count, fill, h, table, when } from '../lib/dom.js';
import { content, setStatus } from '../lib/frame.js';
import { formBuilder } from '../lib/formBuilder.js';
import { pagedList } from '../lib/paged.js';

/** Whether the Forms app is installed: without it every form's page answers 404. */
async function drawApp(/** @type {HTMLElement} */ box) {
  const apps = await listApps({ limit: 100 });
  const app = apps.status === 200 ? apps.body.data.find((a) => a.slug === 'forms') : undefined;
  if (!app || app.installed) return fill(box);
  const out = h('p', { role: 'status', class: 'outcome' });
  fill(
    box,
    h(
      'div',
      { class: 'card' },
      h('p', {}, 'The Forms app is not installed: the forms below are offline (their pages answer 404).'),
      h(
        'div',
        { class: 'actions' },
        h(
          'button',
          {
            type: 'button',
            class: 'primary',
            onclick: async () => {
              const r = await installApp('forms');
              if (r.status !== 200) return (out.textContent = errorText(r));
              await drawApp(box);
            },
          },
          'Install the Forms app',
        ),
      ),
      out,
    ),
  );
}

export default async function formsPage() {
  const app = h('div', { id: 'forms-app' });
  const forms = pagedList('Forms', listForms, 25, (items) =>
    table(
      ['Form', 'State', 'Submissions', 'Public page', 'Created'],
      items.map((f) =>
        h(
          'tr',
          { dataset: { id: f.id } },
          h('td', {}, h('a', { href: '/app/forms/' + encodeURIComponent(f.id) }, f.name)),
          h('td', {}, badge(f.active ? 'active' : 'inactive')),
          h('td', { class: 'submission-count' }, String(f.submissionCount)),
          h('td', {}, h('a', { href: f.url, class: 'public-url', rel: 'noopener' }, h('code', {}, f.url))),
          h('td', {}, when(f.createdAt)),
        ),
      ),
      'No form yet: build one below.',
      'Forms',
    ),
  );
  content.replaceChildren(
    app,
    h('section', { 'aria-labelledby': 'forms-title' }, h('h2', { id: 'forms-title' }, 'Forms'), forms.el),
    await formBuilder(),
  );
  await drawApp(app);
  const res = await forms.refresh().catch((err) => setStatus(err.message));
  if (res) setStatus(count(res.body.data.length, 'form') + ' on this page');
}
