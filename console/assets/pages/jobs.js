// @ts-check
/* Jobs: the list with progress, and a contacts import. */
import { getJob, listJobs, startJob } from '../api/endpoints.js';
import { errorText } from '../lib/api.js';
import { badge, count, h, table, when } from '../lib/dom.js';
import { content, every, setStatus } from '../lib/frame.js';
/** @import { Ok } from '../api/types' */
/** A job as GET /v1/jobs/{id} answers it (the list's rows lack `progress`). @typedef {Ok<'/jobs/{jobId}', 'get'>} Job */

/** @param {Job} job */
function progressBar(job) {
  const p = job.progress;
  const label = 'Progress of ' + job.jobId;
  if (job.status === 'succeeded') return h('progress', { max: 1, value: 1, 'aria-label': label }, 'done');
  if (!p) return h('span', { class: 'muted' }, job.status === 'failed' ? '—' : 'waiting');
  const bar =
    p.total !== null && p.total !== undefined
      ? h('progress', { max: Math.max(p.total, 1), value: p.completed, 'aria-label': label })
      : h('progress', { 'aria-label': label });
  return h(
    'span',
    {},
    bar,
    ' ',
    p.phase + ' ' + p.completed + (p.total !== null && p.total !== undefined ? ' / ' + p.total : ''),
  );
}

/** What a job came to, in words: its error's message, or what its result counts. */
/** @param {Job} job */
function jobOutcome(job) {
  if (job.error) return job.error.error.message + ' (' + job.error.error.code + ')';
  const r = job.result;
  if (!r) return '';
  if (typeof r.imported === 'number')
    return r.imported + ' imported, ' + r.duplicates + ' duplicates, ' + r.failed + ' failed';
  if (typeof r.rowCount === 'number') return r.rowCount + ' contacts in ' + r.filename;
  return JSON.stringify(r).slice(0, 160);
}

export default function jobsPage() {
  const list = h('div', { id: 'job-list' });
  const csv = h('textarea', {
    id: 'import-csv',
    required: true,
    placeholder: 'name,email,tags\nAda Lovelace,ada@example.com,newsletter',
  });
  const outcome = h('p', { role: 'status', class: 'outcome' });
  const form = h(
    'form',
    {
      class: 'card',
      onsubmit: async (ev) => {
        ev.preventDefault();
        const res = await startJob({ type: 'contacts.import', input: { csv: csv.value } });
        outcome.textContent = res.status === 202 ? 'Started ' + res.body.jobId : errorText(res);
        if (res.status === 202) csv.value = '';
      },
    },
    h('h2', {}, 'Import contacts'),
    h('label', { for: 'import-csv' }, 'CSV (name, email, phone, tags, marketingConsent…)'),
    csv,
    h('div', { class: 'actions' }, h('button', { class: 'primary', type: 'submit' }, 'Start import')),
    outcome,
  );
  content.replaceChildren(list, form);
  every(2000, async () => {
    const res = await listJobs({ limit: 50 });
    if (res.status !== 200) throw new Error(errorText(res));
    // The list has no progress; a job still at work is read one by one (its workflow answers the progress query).
    const jobs = await Promise.all(
      res.body.data.map(async (j) =>
        j.status === 'running' || j.status === 'queued' ? (await getJob(j.jobId)).body : j,
      ),
    );
    list.replaceChildren(
      table(
        ['Job', 'Type', 'Status', 'Progress', 'Started', 'Finished', 'Result'],
        jobs.map((j) =>
          h(
            'tr',
            { dataset: { id: j.jobId } },
            h('td', {}, j.jobId),
            h('td', {}, j.type),
            h('td', {}, badge(j.status)),
            h('td', {}, progressBar(j)),
            h('td', { class: 'when' }, when(j.startedAt || j.createdAt)),
            h('td', { class: 'when' }, j.finishedAt ? when(j.finishedAt) : ''),
            h('td', { class: 'result' }, jobOutcome(j)),
          ),
        ),
        'No jobs yet.',
        'Jobs',
      ),
    );
    setStatus(count(jobs.length, 'job') + ' · updated ' + new Date().toLocaleTimeString());
  });
}
