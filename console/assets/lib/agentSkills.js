// @ts-check
/* An agent's skills: named instructions a turn loads when a message matches their description. */
import { createSkill, deleteSkill, listSkills, updateSkill } from '../api/endpoints.js';
import { errorText } from './api.js';
import { fill, h } from './dom.js';
import { setStatus } from './frame.js';
import { pagedList } from './paged.js';
import { deleteButton, smallForm } from './widgets.js';
/** @import { Item } from '../api/types' */
/** @typedef {Item<'/agents/{agentId}/skills'>} Skill */

const FIELDS = [
  { name: 'name', label: 'Name (lowercase-with-hyphens, e.g. write-invoice)', required: true },
  { name: 'description', label: 'When it applies (a turn loads it when a message matches)', required: true },
  { name: 'instructions', label: 'Instructions', type: 'textarea', required: true },
];

/**
 * The skills panel of agent `agentId`.
 * @param {string} agentId
 */
export function skillsPanel(agentId) {
  const editBox = h('div', { id: 'skill-edit' });
  const list = pagedList(
    'Skills',
    (page) => listSkills(agentId, page),
    25,
    (items) =>
      items.length
        ? h(
            'ul',
            { class: 'decide', id: 'skill-list', 'aria-label': 'Skills' },
            items.map((s) =>
              h(
                'li',
                { dataset: { id: s.id, name: s.name } },
                h(
                  'span',
                  { class: 'address' },
                  h('strong', {}, s.name),
                  ': ',
                  s.description,
                  h('details', {}, h('summary', {}, 'Instructions'), h('p', { class: 'message' }, s.instructions)),
                ),
                h(
                  'span',
                  { class: 'small-actions' },
                  h(
                    'button',
                    { type: 'button', 'aria-label': 'Edit skill ' + s.name, onclick: () => edit(s) },
                    'Edit…',
                  ),
                  deleteButton({
                    text: 'Delete',
                    label: 'Delete skill ' + s.name,
                    remove: () => deleteSkill(agentId, s.id),
                    ok: 204,
                    after: async () => {
                      fill(editBox);
                      await list.refresh();
                      setStatus('Skill ' + s.name + ' deleted.');
                    },
                  }),
                ),
              ),
            ),
          )
        : h('p', { class: 'muted' }, 'No skills yet.'),
  );

  const edit = (/** @type {Skill} */ s) => {
    const { form, inputs } = smallForm(
      'skill-change',
      'Edit skill ' + s.name,
      FIELDS,
      'Save skill',
      async (/** @type {{ name: string, description: string, instructions: string }} */ v) => {
        const res = await updateSkill(agentId, s.id, {
          name: v.name.trim(),
          description: v.description.trim(),
          instructions: v.instructions.trim(),
        });
        if (res.status !== 200) return errorText(res);
        await list.refresh();
        return 'Saved.';
      },
    );
    inputs.name.value = s.name;
    inputs.description.value = s.description;
    inputs.instructions.value = s.instructions;
    fill(editBox, form);
    form.scrollIntoView({ block: 'nearest' });
    inputs.name.focus();
  };

  const { form: newForm } = smallForm(
    'skill',
    'New skill',
    FIELDS,
    'Add skill',
    async (/** @type {{ name: string, description: string, instructions: string }} */ v) => {
      const res = await createSkill(agentId, {
        name: v.name.trim(),
        description: v.description.trim(),
        instructions: v.instructions.trim(),
      });
      if (res.status !== 201) return errorText(res);
      await list.refresh();
      return { text: 'Added ' + res.body.name + '.', done: true };
    },
  );
  newForm.id = 'skill-new';

  return {
    el: h('div', {}, h('section', { class: 'card', 'aria-label': 'Skills' }, list.el), editBox, newForm),
    load: () => list.refresh(),
  };
}
