// @ts-check
/* An agent's memories: searched (full text and typo-tolerant, as the API ranks them), added, edited, deleted. */
import { createMemory, deleteMemory, searchMemories, updateMemory } from '../api/endpoints.js';
import { errorText } from './api.js';
import { fill, h } from './dom.js';
import { setStatus } from './frame.js';
import { pagedList } from './paged.js';
import { deleteButton, smallForm } from './widgets.js';
/** @import { Item } from '../api/types' */
/** @typedef {Item<'/agents/{agentId}/memories'>} Memory */

/** Tags written as "a, b": the list the API takes. */
export const tagList = (/** @type {string} */ text) =>
  text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);

/**
 * The memories panel of agent `agentId`.
 * @param {string} agentId
 */
export function memoriesPanel(agentId) {
  let q = '';
  const editBox = h('div', { id: 'memory-edit' });
  const list = pagedList(
    'Memories',
    (page) => searchMemories(agentId, { ...page, q: q || undefined }),
    10,
    (items) =>
      items.length
        ? h(
            'ul',
            { class: 'decide', id: 'memory-list', 'aria-label': 'Memories' },
            items.map((m) =>
              h(
                'li',
                { dataset: { id: m.id } },
                h(
                  'span',
                  { class: 'address' },
                  h('span', { class: 'content' }, m.content),
                  h(
                    'span',
                    { class: 'muted' },
                    ' — importance ' + m.importance + (m.tags.length ? ', tags: ' + m.tags.join(', ') : ''),
                  ),
                ),
                h(
                  'span',
                  { class: 'small-actions' },
                  h(
                    'button',
                    { type: 'button', 'aria-label': 'Edit memory: ' + m.content, onclick: () => edit(m) },
                    'Edit…',
                  ),
                  deleteButton({
                    text: 'Delete',
                    label: 'Delete memory: ' + m.content,
                    remove: () => deleteMemory(agentId, m.id),
                    ok: 204,
                    after: async () => {
                      fill(editBox);
                      await list.refresh();
                      setStatus('Memory deleted.');
                    },
                  }),
                ),
              ),
            ),
          )
        : h('p', { class: 'muted' }, q ? 'No memory matches.' : 'No memories yet.'),
  );

  /** The edit form of one memory, below the list. */
  const edit = (/** @type {Memory} */ m) => {
    const { form, inputs } = smallForm(
      'memory-change',
      'Edit memory',
      [
        { name: 'content', label: 'What to remember', type: 'textarea', required: true },
        { name: 'tags', label: 'Tags (comma separated)' },
        { name: 'importance', label: 'Importance (1 trivia … 5 always relevant)', type: 'number' },
      ],
      'Save memory',
      async (/** @type {{ content: string, tags: string, importance: string }} */ v) => {
        const res = await updateMemory(agentId, m.id, {
          content: v.content.trim(),
          tags: tagList(v.tags),
          importance: Number(v.importance),
        });
        if (res.status !== 200) return errorText(res);
        await list.refresh();
        return 'Saved.';
      },
    );
    inputs.content.value = m.content;
    inputs.tags.value = m.tags.join(', ');
    inputs.importance.value = String(m.importance);
    fill(editBox, form);
    form.scrollIntoView({ block: 'nearest' });
    inputs.content.focus();
  };

  const searchInput = h('input', { id: 'memory-q', type: 'search', placeholder: 'words, typos allowed' });
  const searchForm = h(
    'form',
    {
      class: 'toolbar',
      role: 'search',
      onsubmit: (ev) => {
        ev.preventDefault();
        q = searchInput.value.trim();
        void list
          .restart(list.load)
          .then((res) => setStatus(q ? res.body.data.length + ' found for “' + q + '”' : ''))
          .catch((err) => setStatus(err.message));
      },
    },
    h('label', { for: 'memory-q' }, 'Search memories'),
    searchInput,
    h('button', { type: 'submit' }, 'Search'),
  );

  const { form: newForm } = smallForm(
    'memory',
    'Remember a fact',
    [
      { name: 'content', label: 'What to remember', type: 'textarea', required: true },
      { name: 'tags', label: 'Tags (comma separated)' },
      { name: 'importance', label: 'Importance (1 trivia … 5 always relevant)', type: 'number' },
    ],
    'Add memory',
    async (/** @type {{ content: string, tags: string, importance: string }} */ v) => {
      const res = await createMemory(agentId, {
        content: v.content.trim(),
        tags: tagList(v.tags),
        ...(v.importance.trim() ? { importance: Number(v.importance) } : {}),
      });
      if (res.status !== 201) return errorText(res);
      await list.refresh();
      return { text: 'Remembered.', done: true };
    },
  );
  newForm.id = 'memory-new';

  return {
    el: h('div', {}, h('section', { class: 'card', 'aria-label': 'Memories' }, searchForm, list.el), editBox, newForm),
    load: () => list.refresh(),
  };
}
