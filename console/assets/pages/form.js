// @ts-check
/* One form: its public link, its submissions and their confirmations, its builder, delete. */
import { deleteForm, getForm, listFormSubmissions } from '../api/endpoints.js';
import { errorText } from '../lib/api.js';
import { badge, count, facts, fill, h, table, when } from '../lib/dom.js';
import { content, every, notFound, pageId, setStatus, setTitle } from '../lib/frame.js';
import { formBuilder } from '../lib/formBuilder.js';
import { agents } from '../lib/names.js';
import { pagedList } from '../lib/paged.js';
import { deleteButton } from '../lib/widgets.js';
/** @import { Ok } from '../api/types' */

export default async function formPage() {
  const first = await getForm(pageId);
  if (first.status === 404) return notFound('Form');
  if (first.status !== 200) return setStatus(errorText(first));
  const names = await agents();
  const head = h('div', { id: 'form-head' });
  const edit = h('div', { id: 'form-edit' });
  /** @param {Ok<'/forms/{formId}', 'get'>} f */
  const drawHead = (f) => {
    setTitle('Form: ' + f.name);
    fill(
      head,
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'public-title' },
        h('p', {}, badge(f.active ? 'active' : 'inactive'), ' ', count(f.submissionCount, 'submission')),
        h('h2', { id: 'public-title' }, 'Its public page'),
        h('p', {}, h('a', { id: 'public-url', href: f.url, rel: 'noopener' }, h('code', {}, f.url))),
        h(
          'p',
          { class: 'muted' },
          'Share or link this address; a site may also post its own <form> to it. It is served while the Forms app is installed and the form is active.',
        ),
        facts([
          ['Heading', f.title],
          ['Fields', f.fields.map((x) => x.label + (x.required ? ' (required)' : '')).join(', ')],
          ['Tags', f.tags.join(', ')],
          ['Consent', f.consentText],
          ['Double opt-in', f.doubleOptIn ? 'yes, sent by ' + (names.get(f.agentId || '') || f.agentId) : 'no'],
          ['Language', f.language],
          ['Created', when(f.createdAt)],
        ]),
        h(
          'div',
          { class: 'actions' },
          deleteButton({
            text: 'Delete form',
            label: 'Delete form ' + f.name,
            remove: () => deleteForm(f.id),
            ok: 204,
            after: async () => window.location.assign('/app/forms'),
          }),
        ),
      ),
    );
  };
  const submissions = pagedList(
    'Submissions',
    (page) => listFormSubmissions(pageId, page),
    25,
    (items) =>
      table(
        ['Consent', 'Email', 'Confirmation sent', 'Confirmed', 'Submitted'],
        items.map((s) =>
          h(
            'tr',
            { dataset: { id: s.id } },
            h('td', { class: 'consent' }, badge(s.consent)),
            h('td', { class: 'email' }, s.email),
            h('td', {}, s.confirmationSentAt ? when(s.confirmationSentAt) : ''),
            h('td', { class: 'confirmed' }, s.confirmedAt ? when(s.confirmedAt) : ''),
            h('td', {}, when(s.createdAt)),
          ),
        ),
        'No submission yet.',
        'Submissions',
      ),
  );
  drawHead(first.body);
  /** @param {Ok<'/forms/{formId}', 'get'>} f */
  const drawEdit = async (f) =>
    fill(
      edit,
      h(
        'details',
        { class: 'edit-form' },
        h('summary', {}, 'Edit the form'),
        await formBuilder(f, (saved) => drawHead(saved)),
      ),
    );
  await drawEdit(first.body);
  content.replaceChildren(
    head,
    h(
      'section',
      { 'aria-labelledby': 'submissions-title' },
      h('h2', { id: 'submissions-title' }, 'Submissions'),
      h(
        'p',
        { class: 'muted' },
        'Consent: granted at once, or with double opt-in awaiting confirmation until the emailed link is clicked, then confirmed.',
      ),
      submissions.el,
    ),
    edit,
  );
  every(5000, async () => {
    const [res, f] = await Promise.all([submissions.refresh(), getForm(pageId)]);
    if (f.status === 200) drawHead(f.body);
    setStatus(count(res.body.data.length, 'submission') + ' on this page · updated ' + new Date().toLocaleTimeString());
  });
}
