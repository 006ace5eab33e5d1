// @ts-check
/* Agents: mode, channels, model and secrets; the native apps and the MCP credits. */
import {
  clearSecret,
  getCredits,
  installApp,
  listAgents,
  listApps,
  listIntegrations,
  listSecrets,
  setIntegration,
  setSecret,
  uninstallApp,
  updateAgent,
} from '../api/endpoints.js';
import { errorText } from '../lib/api.js';
import { badge, count, facts, fill, h, table, when } from '../lib/dom.js';
import { content, setStatus } from '../lib/frame.js';
import { CHANNELS } from '../lib/names.js';
import { deleteButton, smallForm } from '../lib/widgets.js';
/** @import { Answer, Item } from '../api/types' */
/** @typedef {Item<'/agents'>} Agent */

/** The native apps (each adds its MCP tools; install is idempotent) and the MCP credits of this cycle. */
async function drawApps(/** @type {HTMLElement} */ box) {
  const [apps, credits] = await Promise.all([listApps({ limit: 100 }), getCredits()]);
  if (apps.status !== 200) throw new Error(errorText(apps));
  const out = h('p', { role: 'status', class: 'outcome' });
  const c = credits.status === 200 ? credits.body : null;
  fill(
    box,
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'apps-title' },
      h('h2', { id: 'apps-title' }, 'Apps'),
      c
        ? h(
            'p',
            { class: 'muted', id: 'credits' },
            'MCP credits this cycle (' +
              c.plan +
              '): ' +
              c.used +
              ' used' +
              (c.allowance === null ? ', not metered' : ' of ' + c.allowance) +
              ', until ' +
              when(c.cycleEnd),
          )
        : null,
      h(
        'ul',
        { class: 'decide' },
        apps.body.data.map((a) =>
          h(
            'li',
            { dataset: { slug: a.slug } },
            h(
              'span',
              { class: 'address' },
              h('strong', {}, a.name),
              ' ',
              badge(a.installed ? 'installed' : 'not_installed'),
              ' ',
              h('span', { class: 'muted' }, a.description),
            ),
            h(
              'span',
              { class: 'small-actions' },
              h(
                'button',
                {
                  type: 'button',
                  'aria-label': (a.installed ? 'Uninstall ' : 'Install ') + a.name,
                  onclick: async () => {
                    const r = await (a.installed ? uninstallApp : installApp)(a.slug);
                    if (r.status !== 200) return (out.textContent = errorText(r));
                    await drawApps(box);
                  },
                },
                a.installed ? 'Uninstall' : 'Install',
              ),
            ),
          ),
        ),
      ),
      out,
    ),
  );
}

/**
 * An agent's model (PATCH {"model"}: an OpenAI-compatible server; empty fields clear it, back to
 * the server's default) and its secrets (keys and whether set, never values; PUT sets, DELETE clears).
 */
/**
 * @param {Agent} a
 * @param {HTMLElement} box
 * @param {() => Promise<unknown>} afterModel
 */
async function agentSettings(a, box, afterModel) {
  const { form: modelForm, inputs } = smallForm(
    'model',
    'Model of ' + a.name,
    [
      { name: 'baseUrl', label: 'OpenAI-compatible base URL (empty: the server default)', type: 'url' },
      { name: 'name', label: 'Model name' },
    ],
    'Save model',
    async (/** @type {{ baseUrl: string, name: string }} */ v) => {
      const res = await updateAgent(a.uuid, {
        model: { baseUrl: v.baseUrl.trim() || null, name: v.name.trim() || null },
      });
      if (res.status !== 200) return errorText(res);
      await afterModel();
      return 'Saved. Its key, if the server needs one, is the secret AI_API_KEY.';
    },
  );
  inputs.baseUrl.value = (a.model && a.model.baseUrl) || '';
  inputs.name.value = (a.model && a.model.name) || '';
  const secretsBox = h('div', { id: 'agent-secrets' });
  const drawSecrets = async () => {
    const secrets = await listSecrets(a.uuid, { limit: 100 });
    if (secrets.status !== 200) return setStatus(errorText(secrets));
    fill(
      secretsBox,
      table(
        ['Key', 'Set', 'Updated', ''],
        secrets.body.data.map((x) =>
          h(
            'tr',
            { dataset: { key: x.key } },
            h('td', {}, x.key),
            h('td', {}, x.set ? 'yes' : 'no'),
            h('td', {}, x.updatedAt ? when(x.updatedAt) : ''),
            h(
              'td',
              {},
              x.set
                ? deleteButton({
                    text: 'Clear',
                    label: 'Clear ' + x.key,
                    remove: () => clearSecret(a.uuid, x.key),
                    ok: 200,
                    after: drawSecrets,
                  })
                : '',
            ),
          ),
        ),
        'No secrets.',
        'Secrets',
      ),
    );
  };
  const { form: secretForm } = smallForm(
    'secret',
    'Set a secret',
    [
      { name: 'key', label: 'Key (UPPER_SNAKE_CASE, e.g. AI_API_KEY)', required: true },
      { name: 'value', label: 'Value (stored encrypted, never shown again)', type: 'password', required: true },
    ],
    'Set secret',
    async (/** @type {{ key: string, value: string }} */ v) => {
      const res = await setSecret(a.uuid, v.key.trim(), { value: v.value });
      if (res.status !== 200) return errorText(res);
      await drawSecrets();
      return { text: 'Set ' + v.key.trim() + '.', done: true };
    },
  );
  await drawSecrets();
  fill(
    box,
    modelForm,
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'secrets-title' },
      h('h2', { id: 'secrets-title' }, 'Secrets of ' + a.name),
      secretsBox,
    ),
    secretForm,
  );
  box.scrollIntoView({ block: 'nearest' });
}

export default function agentsPage() {
  const list = h('div', { class: 'cards', id: 'agent-list' });
  const settings = h('div', { id: 'agent-settings' });
  const appsBox = h('div', { id: 'apps' });
  content.replaceChildren(list, settings, appsBox);
  void drawApps(appsBox).catch((err) => setStatus(err.message));
  const refresh = async () => {
    const res = await listAgents({ limit: 100 });
    if (res.status !== 200) throw new Error(errorText(res));
    const integrations = await Promise.all(res.body.data.map((a) => listIntegrations(a.uuid)));
    list.replaceChildren(
      ...res.body.data.map((a, i) => {
        const outcome = h('p', { role: 'status', class: 'outcome' });
        /**
         * A button's change of the agent, and what the card says once it is made.
         * @param {() => Promise<Answer<unknown>>} call
         * @param {string} done
         */
        const set = (call, done) => async () => {
          const r = await call();
          outcome.textContent = r.status === 200 ? done : errorText(r);
          if (r.status === 200) await refresh();
        };
        const channels = integrations[i].status === 200 ? integrations[i].body.data : [];
        return h(
          'article',
          { class: 'card', dataset: { id: a.uuid }, 'aria-labelledby': 'title-' + a.uuid },
          h('h3', { id: 'title-' + a.uuid }, a.name),
          facts([
            ['Mode', a.mode === 'manual' ? 'manual: sensitive writes wait for approval' : 'auto: writes run at once'],
            ['Model', a.model && a.model.name ? a.model.name : 'the server default (offline when none)'],
            [
              'Channels',
              channels.length
                ? channels
                    .map((c) => (CHANNELS[c.channel] || c.channel) + ' via ' + c.provider + (c.active ? '' : ' (off)'))
                    .join(', ')
                : 'none',
            ],
          ]),
          h(
            'div',
            { class: 'actions' },
            h(
              'button',
              {
                type: 'button',
                onclick: set(
                  () => updateAgent(a.uuid, { mode: a.mode === 'manual' ? 'auto' : 'manual' }),
                  'Mode changed.',
                ),
              },
              a.mode === 'manual' ? 'Switch to auto' : 'Switch to manual',
            ),
            h(
              'button',
              {
                type: 'button',
                onclick: set(
                  () => setIntegration(a.uuid, 'email', { provider: 'sandbox' }),
                  'Email goes to the sandbox outbox.',
                ),
              },
              'Email through the sandbox',
            ),
            h(
              'button',
              {
                type: 'button',
                'aria-label': 'Model and secrets of ' + a.name,
                onclick: () => void agentSettings(a, settings, refresh),
              },
              'Model and secrets…',
            ),
            h('a', { class: 'button', href: '/app/hooks?agent=' + encodeURIComponent(a.uuid) }, 'Hooks and keys'),
            h(
              'a',
              {
                class: 'button',
                href: '/app/agents/' + encodeURIComponent(a.uuid),
                'aria-label': 'Knowledge and mailbox of ' + a.name,
              },
              'Knowledge and mailbox',
            ),
          ),
          outcome,
        );
      }),
    );
    setStatus(count(res.body.data.length, 'agent'));
  };
  void refresh().catch((err) => setStatus(err.message));
}
