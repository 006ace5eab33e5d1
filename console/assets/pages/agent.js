// @ts-check
/* An agent's knowledge, in tabs: memories, skills, documents, character, and its mailbox. The tab
 * shown is in the address (#memories, #skills, …), so a reload or a link opens the same one. */
import { getCharacter } from '../api/endpoints.js';
import { characterPanel, documentsPanel } from '../lib/agentDocuments.js';
import { mailboxPanel } from '../lib/agentMailbox.js';
import { memoriesPanel } from '../lib/agentMemories.js';
import { skillsPanel } from '../lib/agentSkills.js';
import { errorText } from '../lib/api.js';
import { h } from '../lib/dom.js';
import { content, notFound, pageId, setStatus, setTitle } from '../lib/frame.js';

/** @typedef {{ el: HTMLElement, load: () => Promise<unknown> }} Panel */

export default async function agentPage() {
  // The character names the agent, and answers 404 for an agent that is not this team's.
  const character = await getCharacter(pageId);
  if (character.status === 404) return notFound('Agent');
  if (character.status !== 200) return setStatus(errorText(character));
  setTitle('Agent: ' + character.body.name);

  /** @type {[string, string, Panel][]} */
  const tabs = [
    ['memories', 'Memories', memoriesPanel(pageId)],
    ['skills', 'Skills', skillsPanel(pageId)],
    ['documents', 'Documents', documentsPanel(pageId)],
    ['character', 'Character', characterPanel(pageId, character.body)],
    ['mailbox', 'Mailbox', mailboxPanel(pageId)],
  ];
  /** @type {HTMLButtonElement[]} */
  const buttons = [];
  const panels = tabs.map(([name, , panel]) =>
    h('div', { role: 'tabpanel', id: 'panel-' + name, 'aria-labelledby': 'tab-' + name, hidden: true }, panel.el),
  );
  const show = (/** @type {number} */ at, /** @type {boolean} */ focus = false) => {
    tabs.forEach((_, i) => {
      buttons[i].setAttribute('aria-selected', String(i === at));
      buttons[i].tabIndex = i === at ? 0 : -1;
      panels[i].hidden = i !== at;
    });
    if (focus) buttons[at].focus();
    history.replaceState(null, '', '#' + tabs[at][0]);
    setStatus('');
    void tabs[at][2].load().catch((/** @type {Error} */ err) => setStatus(err.message));
  };
  tabs.forEach(([name, label], i) =>
    buttons.push(
      h(
        'button',
        {
          type: 'button',
          role: 'tab',
          id: 'tab-' + name,
          'aria-controls': 'panel-' + name,
          onclick: () => show(i),
          onkeydown: (/** @type {KeyboardEvent} */ ev) => {
            // Arrow keys move between tabs, as a tab list does.
            const step = ev.key === 'ArrowRight' ? 1 : ev.key === 'ArrowLeft' ? -1 : 0;
            if (step) show((i + step + tabs.length) % tabs.length, true);
          },
        },
        label,
      ),
    ),
  );
  content.replaceChildren(
    h('p', {}, h('a', { href: '/app/agents' }, '← All agents')),
    h('div', { class: 'tabs', role: 'tablist', 'aria-label': 'Knowledge of ' + character.body.name }, buttons),
    ...panels,
  );
  const asked = tabs.findIndex(([name]) => '#' + name === window.location.hash);
  show(asked < 0 ? 0 : asked);
}
