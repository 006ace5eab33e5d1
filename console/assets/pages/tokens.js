// @ts-check
/* API tokens: the signed-in person's tokens. */
import { createApiToken, listApiTokens, revokeApiToken } from '../api/endpoints.js';
import { errorText } from '../lib/api.js';
import { badge, count, fill, h, table, when } from '../lib/dom.js';
import { content, setStatus } from '../lib/frame.js';
import { pagedList } from '../lib/paged.js';
import { deleteButton, shownOnce, smallForm } from '../lib/widgets.js';

export default function tokensPage() {
  const created = h('div', { id: 'token-created' });
  // After every change too: the status line counts what the page shows.
  const refresh = async () => {
    const res = await tokens.refresh();
    setStatus(count(res.body.data.length, 'token') + ' on this page');
  };
  const tokens = pagedList('API tokens', listApiTokens, 25, (items) =>
    table(
      ['Name', 'Token', 'Created', 'Last used', 'Expires', ''],
      items.map((t) =>
        h(
          'tr',
          { dataset: { id: t.id } },
          h('td', {}, t.name),
          h('td', {}, t.prefix + '…'),
          h('td', {}, when(t.createdAt)),
          h('td', {}, t.lastUsedAt ? when(t.lastUsedAt) : 'never'),
          h('td', {}, t.expiresAt ? when(t.expiresAt) : 'when revoked'),
          h(
            'td',
            {},
            t.revokedAt
              ? badge('revoked')
              : deleteButton({
                  text: 'Revoke',
                  label: 'Revoke ' + t.name + ' (' + t.prefix + ')',
                  remove: () => revokeApiToken(t.id),
                  ok: 200,
                  after: refresh,
                }),
          ),
        ),
      ),
      'No tokens.',
      'API tokens',
    ),
  );
  const { form } = smallForm(
    'token',
    'New API token',
    [
      { name: 'name', label: 'Name (what uses it)', required: true },
      { name: 'days', label: 'Valid for days (empty: until revoked)', type: 'number' },
    ],
    'Create token',
    async (/** @type {{ name: string, days: string }} */ v) => {
      const res = await createApiToken({
        name: v.name.trim(),
        ...(v.days ? { expiresInDays: Number(v.days) } : {}),
      });
      if (res.status !== 201) return errorText(res);
      fill(created, shownOnce('api-token-value', 'API token ' + res.body.name, res.body.token));
      await refresh();
      return { text: 'Created ' + res.body.name + '.', done: true };
    },
  );
  content.replaceChildren(
    h(
      'p',
      { class: 'muted' },
      'Your own tokens, for curl, scripts and the MCP Inspector (Authorization: Bearer tap_… with X-Team-Slug). Your console sign-in is one of them: revoking it signs this browser out.',
    ),
    created,
    tokens.el,
    form,
  );
  void refresh().catch((err) => setStatus(err.message));
}
