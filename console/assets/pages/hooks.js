// @ts-check
/* Hooks and keys: an agent's AGENT_AUTH_KEYs and hook rules. */
import {
  createAuthKey,
  createHookRule,
  deleteHookRule,
  listAuthKeys,
  listHookRules,
  revokeAuthKey,
  updateHookRule,
} from '../api/endpoints.js';
import { errorText } from '../lib/api.js';
import { badge, field, fill, h, options, table, when } from '../lib/dom.js';
import { content, setStatus, vocabulary } from '../lib/frame.js';
import { pairs } from '../lib/lines.js';
import { agents } from '../lib/names.js';
import { pagedList } from '../lib/paged.js';
import { deleteButton, shownOnce } from '../lib/widgets.js';
/** @import { Body, Item, PageAsked } from '../api/types' */

export default async function hooksPage() {
  const names = await agents();
  const wanted = new URLSearchParams(window.location.search).get('agent');
  const agentSelect = h(
    'select',
    { id: 'hooks-agent' },
    options([...names], wanted !== null && names.has(wanted) ? wanted : [...names.keys()][0]),
  );
  const keysBox = h('div', { id: 'auth-keys' });
  const rulesBox = h('div', { id: 'hook-rules' });
  content.replaceChildren(
    h('div', { class: 'toolbar' }, h('div', {}, field('hooks-agent', 'Agent', agentSelect))),
    keysBox,
    rulesBox,
  );
  /** The hook rules of an agent, a page at a time. @param {string} agentId */
  const rulesOf = (agentId) => (/** @type {PageAsked} */ page) => listHookRules(agentId, page);

  const drawKeys = async () => {
    const agentId = agentSelect.value;
    const res = await listAuthKeys(agentId, { limit: 100 });
    if (res.status !== 200) throw new Error(errorText(res));
    const shown = h('div', { id: 'auth-key-created' });
    const out = h('p', { role: 'status', class: 'outcome' });
    const hookUrl = vocabulary.apiBaseUrl + '/agents/' + agentId + '/hooks';
    fill(
      keysBox,
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'keys-title' },
        h('h2', { id: 'keys-title' }, 'AGENT_AUTH_KEYs'),
        h(
          'p',
          {},
          'External systems and runtimes call the agent hooks path with one of these keys: ',
          h('code', { id: 'hook-url' }, 'POST ' + hookUrl + '?source=<source>'),
          ' with ',
          h('code', {}, 'Authorization: Bearer ak_…'),
          '.',
        ),
        table(
          ['Key', 'Created', 'Last used', ''],
          res.body.data.map((k) =>
            h(
              'tr',
              { dataset: { id: k.id } },
              h('td', {}, k.prefix + '…'),
              h('td', {}, when(k.createdAt)),
              h('td', {}, k.lastUsedAt ? when(k.lastUsedAt) : 'never'),
              h(
                'td',
                {},
                deleteButton({
                  text: 'Revoke',
                  label: 'Revoke key ' + k.prefix,
                  remove: () => revokeAuthKey(agentId, k.id),
                  ok: 204,
                  after: drawKeys,
                  report: (text) => (out.textContent = text),
                }),
              ),
            ),
          ),
          'No keys yet.',
          'AGENT_AUTH_KEYs',
        ),
        h(
          'div',
          { class: 'actions' },
          h(
            'button',
            {
              type: 'button',
              class: 'primary',
              onclick: async () => {
                const r = await createAuthKey(agentSelect.value);
                if (r.status !== 201) return (out.textContent = errorText(r));
                await drawKeys();
                // The box of the keys just drawn again (drawKeys made a new one).
                const created = keysBox.querySelector('#auth-key-created');
                if (created) fill(created, shownOnce('auth-key-value', 'AGENT_AUTH_KEY ' + r.body.prefix, r.body.key));
              },
            },
            'Create key',
          ),
        ),
        out,
        shown,
      ),
    );
  };

  const source = h('select', { id: 'rule-source' }, options(vocabulary.hookSources.map((s) => [s, s])));
  const eventInput = h('input', { type: 'text', id: 'rule-event', required: true, list: 'rule-events' });
  const eventList = h(
    'datalist',
    { id: 'rule-events' },
    [...vocabulary.webhookEventTypes, ...vocabulary.webHookEvents]
      .filter((v, i, all) => all.indexOf(v) === i)
      .map((e) => h('option', { value: e })),
  );
  const warp = h('input', { type: 'text', id: 'rule-warp', placeholder: 'a built-in or private warp' });
  const inputs = h('textarea', { id: 'rule-inputs', placeholder: 'name=value' });
  const mapping = h('textarea', { id: 'rule-mapping', placeholder: 'email=$.user.email' });
  const url = h('input', { type: 'url', id: 'rule-url', placeholder: 'https://…' });
  const ruleOut = h('p', { role: 'status', class: 'outcome' });
  const ruleSecret = h('div', {});
  const ruleForm = h(
    'form',
    {
      class: 'card',
      onsubmit: async (ev) => {
        ev.preventDefault();
        const web = source.value === 'web';
        const res = await createHookRule(agentSelect.value, {
          // One of the vocabulary's hook kinds (services/hooks/).
          source: /** @type {Body<'/agents/{agentId}/hook-rules', 'post'>['source']} */ (source.value),
          event: eventInput.value.trim(),
          ...(web ? { url: url.value.trim() } : { warp: warp.value.trim() }),
          ...(!web && inputs.value.trim() ? { inputs: pairs(inputs.value) } : {}),
          ...(mapping.value.trim() ? { mapping: pairs(mapping.value) } : {}),
        });
        if (res.status !== 201) return (ruleOut.textContent = errorText(res));
        ruleOut.textContent = 'Created the ' + res.body.hook.source + ' hook on ' + res.body.hook.event + '.';
        fill(ruleSecret, res.body.secret ? shownOnce('hook-secret-value', 'Signing secret', res.body.secret) : null);
        ruleForm.reset();
        await rules.refresh();
      },
    },
    h('h2', {}, 'New hook'),
    h(
      'p',
      { class: 'muted' },
      'internal: a platform event runs the warp; inbound: a POST to the hooks path with ?source=<event> runs it; web: the agent’s output events are POSTed, signed, to the URL.',
    ),
    field('rule-source', 'Kind', source),
    field('rule-event', 'Event (a platform event, an inbound source name, or an agent output event)', eventInput),
    eventList,
    field('rule-warp', 'Warp (internal, inbound)', warp),
    field('rule-inputs', 'Warp inputs, one per line: name=value', inputs),
    field('rule-mapping', 'Mapping, one per line: input=$.payload.path', mapping),
    field('rule-url', 'URL (web)', url),
    h('div', { class: 'actions' }, h('button', { class: 'primary', type: 'submit' }, 'Create hook')),
    ruleOut,
    ruleSecret,
  );
  const drawRules = (/** @type {Item<'/agents/{agentId}/hook-rules'>[]} */ items) =>
    table(
      ['Kind', 'Event', 'Runs', 'State', 'Owner', ''],
      items.map((r) =>
        h(
          'tr',
          { dataset: { id: r.id } },
          h('td', {}, r.source),
          h('td', {}, r.event),
          h('td', {}, r.url || r.warp || ''),
          h('td', {}, badge(r.enabled ? 'enabled' : 'disabled')),
          h(
            'td',
            {},
            r.automationId
              ? h('a', { href: '/app/automations/' + encodeURIComponent(r.automationId) }, 'an automation')
              : 'the team',
          ),
          h(
            'td',
            {},
            // A system-owned hook follows its automation (the API answers 422 system_owned_hook).
            r.systemOwned
              ? h('span', { class: 'muted' }, 'switched with its automation')
              : h(
                  'span',
                  { class: 'small-actions' },
                  h(
                    'button',
                    {
                      type: 'button',
                      'aria-label': (r.enabled ? 'Disable' : 'Enable') + ' hook ' + r.event,
                      onclick: async () => {
                        const x = await updateHookRule(agentSelect.value, r.id, {
                          enabled: !r.enabled,
                        });
                        if (x.status !== 200) setStatus(errorText(x));
                        await rules.refresh();
                      },
                    },
                    r.enabled ? 'Disable' : 'Enable',
                  ),
                  h(
                    'button',
                    {
                      type: 'button',
                      class: 'danger',
                      'aria-label': 'Delete hook ' + r.event,
                      onclick: async () => {
                        const x = await deleteHookRule(agentSelect.value, r.id);
                        if (x.status !== 204) setStatus(errorText(x));
                        await rules.refresh();
                      },
                    },
                    'Delete',
                  ),
                ),
          ),
        ),
      ),
      'No hooks yet.',
      'Hooks',
    );
  const rules = pagedList('Hooks', rulesOf(agentSelect.value), 25, drawRules);
  fill(
    rulesBox,
    h('section', { 'aria-labelledby': 'rules-title' }, h('h2', { id: 'rules-title' }, 'Hooks'), rules.el),
    ruleForm,
  );
  const load = async () => {
    await Promise.all([drawKeys(), rules.restart(rulesOf(agentSelect.value))]);
    setStatus('Agent ' + (names.get(agentSelect.value) || agentSelect.value));
  };
  agentSelect.addEventListener('change', () => void load().catch((err) => setStatus(err.message)));
  await load();
}
