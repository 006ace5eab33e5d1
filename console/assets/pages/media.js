// @ts-check
/* Media: the team's files in pages; upload (with the types and size the API takes), download, delete. */
import { deleteMedia, downloadMedia, listMedia, uploadMedia } from '../api/endpoints.js';
import { errorText } from '../lib/api.js';
import { count, h, when } from '../lib/dom.js';
import { content, every, setStatus, vocabulary } from '../lib/frame.js';
import { pagedList } from '../lib/paged.js';
import { deleteButton, smallForm } from '../lib/widgets.js';
/** @import { Item } from '../api/types' */

/** "25 MB", "4 KB", "31 bytes" (powers of 1024, as the limit is set in bytes). */
function size(/** @type {number} */ bytes) {
  if (bytes < 1024) return bytes + (bytes === 1 ? ' byte' : ' bytes');
  const units = ['KB', 'MB', 'GB'];
  let n = bytes / 1024;
  let unit = 0;
  while (n >= 1024 && unit < units.length - 1) {
    n /= 1024;
    unit += 1;
  }
  return (Number.isInteger(n) ? String(n) : n.toFixed(1)) + ' ' + units[unit];
}

/** A media type that may wrap after "/" or "-" and before a dot, never inside a word (text and <wbr>s). */
const breakable = (/** @type {string} */ type) =>
  type.split(/(?<=[/-])|(?=\.)/).flatMap((part, i) => (i ? [document.createElement('wbr'), part] : [part]));

/** Saves a file the API answered as the browser saves a download. */
async function save(/** @type {Item<'/media'>} */ m, /** @type {(text: string) => unknown} */ report) {
  const res = await downloadMedia(m.id);
  if (res.status !== 200 || !res.blob) return report(errorText(res));
  const url = URL.createObjectURL(res.blob);
  const link = h('a', { href: url, download: res.filename || m.filename, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  report('Downloaded ' + m.filename + '.');
}

export default function mediaPage() {
  const outcome = h('p', { role: 'status', class: 'outcome', id: 'media-outcome' });
  const report = (/** @type {string} */ text) => {
    outcome.textContent = text;
  };
  const files = pagedList('Files', listMedia, 25, (items) =>
    items.length
      ? h(
          'ul',
          { class: 'decide records', 'aria-label': 'Files' },
          items.map((m) =>
            h(
              'li',
              { dataset: { id: m.id } },
              h(
                'span',
                { class: 'address' },
                h('strong', {}, m.filename),
                h(
                  'span',
                  { class: 'record-facts', dataset: { bytes: String(m.size) } },
                  m.contentType + ' · ' + size(m.size) + ' · uploaded ' + when(m.createdAt),
                ),
              ),
              h(
                'span',
                { class: 'small-actions' },
                h(
                  'button',
                  { type: 'button', 'aria-label': 'Download ' + m.filename, onclick: () => save(m, report) },
                  'Download',
                ),
                deleteButton({
                  text: 'Delete',
                  label: 'Delete ' + m.filename,
                  remove: () => deleteMedia(m.id),
                  ok: 204,
                  after: async () => {
                    report('Deleted ' + m.filename + '.');
                    await refresh();
                  },
                  report,
                }),
              ),
            ),
          ),
        )
      : h('p', { class: 'muted' }, 'No files yet.'),
  );
  const { form, inputs } = smallForm(
    'media',
    'Upload a file',
    [{ name: 'file', label: 'File', type: 'file', required: true }],
    'Upload',
    async (/** @type {{ file: FileList | null }} */ v) => {
      if (!v.file || !v.file.length) return 'Choose a file first.';
      const file = v.file[0];
      const res = await uploadMedia(file);
      if (res.status !== 201) return 'Not uploaded: ' + errorText(res);
      await refresh();
      return {
        text: 'Uploaded ' + res.body.filename + ' (' + res.body.contentType + ', ' + size(res.body.size) + ').',
        done: true,
      };
    },
  );
  inputs.file.setAttribute('accept', vocabulary.mediaTypes.join(','));
  inputs.file.setAttribute('aria-describedby', 'media-limits');
  const limits = h(
    'div',
    { id: 'media-limits', class: 'muted' },
    h(
      'p',
      {},
      'Up to ',
      h('strong', { id: 'media-max' }, size(vocabulary.mediaMaxBytes)),
      ' a file. Types the API takes:',
    ),
    h(
      'ul',
      { class: 'types', id: 'media-types' },
      vocabulary.mediaTypes.map((t) => h('li', {}, h('code', {}, breakable(t)))),
    ),
  );
  form.insertBefore(limits, form.querySelector('.actions'));
  content.replaceChildren(
    form,
    h(
      'section',
      { 'aria-labelledby': 'files-title', id: 'media-list' },
      h('h2', { id: 'files-title' }, "The team's files"),
      outcome,
      files.el,
    ),
  );
  const refresh = async () => {
    const res = await files.refresh();
    setStatus(count(res.body.data.length, 'file') + ' on this page');
  };
  every(10_000, refresh);
}
