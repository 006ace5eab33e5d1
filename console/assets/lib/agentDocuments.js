// @ts-check
/* An agent's knowledge documents (added as a knowledge.ingest job, listed once it has run) and its character. */
import { createDocument, getCharacter, getJob, listDocuments, updateCharacter } from '../api/endpoints.js';
import { errorText } from './api.js';
import { h, table, when } from './dom.js';
import { pagedList } from './paged.js';
import { smallForm } from './widgets.js';
/** @import { Ok } from '../api/types' */

const sleep = (/** @type {number} */ ms) => new Promise((done) => setTimeout(done, ms));

/**
 * The documents panel of agent `agentId`: the list, and a form that adds one by title and text.
 * @param {string} agentId
 */
export function documentsPanel(agentId) {
  const list = pagedList(
    'Documents',
    (page) => listDocuments(agentId, page),
    25,
    (items) =>
      table(
        ['Title', 'Characters', 'Chunks', 'Added'],
        items.map((d) =>
          h(
            'tr',
            { dataset: { id: d.id } },
            h('td', {}, d.title),
            h('td', {}, String(d.charCount)),
            h('td', {}, String(d.chunkCount)),
            h('td', {}, when(d.createdAt)),
          ),
        ),
        'No documents yet.',
        'Documents',
      ),
  );
  const { form } = smallForm(
    'document',
    'Add a document',
    [
      { name: 'title', label: 'Title (e.g. Price list 2026)', required: true },
      { name: 'text', label: 'Text (split into chunks that conversations retrieve)', type: 'textarea', required: true },
    ],
    'Add document',
    async (/** @type {{ title: string, text: string }} */ v) => {
      const res = await createDocument(agentId, { title: v.title.trim(), text: v.text });
      if (res.status !== 202) return errorText(res);
      // The document is listed once its job has run: follow the job for a while.
      for (let i = 0; i < 120; i++) {
        const job = await getJob(res.body.jobId);
        if (job.status !== 200) return errorText(job);
        if (job.body.status === 'failed')
          return 'The document could not be added: ' + (job.body.error ? job.body.error.error.message : 'job failed');
        if (job.body.status === 'succeeded') {
          await list.refresh();
          return { text: 'Added ' + v.title.trim() + '.', done: true };
        }
        await sleep(500);
      }
      return 'Started job ' + res.body.jobId + '; the document is listed once it has run (see Jobs).';
    },
  );
  form.id = 'document-new';
  return {
    el: h('div', {}, h('section', { class: 'card', 'aria-label': 'Documents' }, list.el), form),
    load: () => list.refresh(),
  };
}

/**
 * The character panel: persona and instructions (each loaded into every turn), read and saved
 * with PUT; an emptied field clears it.
 * @param {string} agentId
 * @param {Ok<'/agents/{agentId}/character', 'get'>} character what the page read first
 */
export function characterPanel(agentId, character) {
  const { form, inputs } = smallForm(
    'character',
    'Character',
    [
      { name: 'persona', label: 'Persona: who the agent is (voice, role)', type: 'textarea' },
      { name: 'instructions', label: 'Instructions: rules for every conversation', type: 'textarea' },
    ],
    'Save character',
    async (/** @type {{ persona: string, instructions: string }} */ v) => {
      const res = await updateCharacter(agentId, {
        persona: v.persona.trim() || null,
        instructions: v.instructions.trim() || null,
      });
      if (res.status !== 200) return errorText(res);
      show(res.body);
      return 'Saved.';
    },
  );
  form.id = 'character-form';
  // What the person is typing is never overwritten by a re-read (the tab re-reads when shown).
  let typed = false;
  form.addEventListener('input', () => (typed = true));
  const show = (/** @type {Ok<'/agents/{agentId}/character', 'get'>} */ c) => {
    inputs.persona.value = c.persona || '';
    inputs.instructions.value = c.instructions || '';
    typed = false;
  };
  show(character);
  form.insertBefore(
    h('p', { class: 'muted' }, 'Each at most 8000 characters; an empty field clears it.'),
    form.querySelector('.actions'),
  );
  return {
    el: h('div', {}, form),
    load: async () => {
      const res = await getCharacter(agentId);
      if (res.status !== 200) throw new Error(errorText(res));
      if (!typed) show(res.body);
    },
  };
}
