import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { apiClient, newTeam, useApiSuite } from '../support/helpers';
import { failing, mcpClient, ok } from '../support/mcpHelpers';

/**
 * `search` (issue 16 § 6): one ranked list over the team's contacts, artifacts, campaigns and an
 * agent's documents and memories; misspellings and prefixes; scoped to the team and the agent.
 */
describe('search', () => {
  const suite = useApiSuite('search');
  let mcp: Client;
  const ids = {} as Record<string, string>;

  beforeAll(async () => {
    const api = suite.api;
    const agent = suite.team.agentId;
    ids.ada = (await api.post('/contacts', { name: 'Ada Lovelace', email: 'ada@analytical.example' })).body.id;
    ids.grace = (await api.post('/contacts', { name: 'Grace Hopper', email: 'grace@navy.example' })).body.id;
    ids.artifact = (await api.post('/artifacts', { title: 'Lovelace engine proposal', type: 'offer' })).body.id;
    ids.campaign = (
      await api.post('/campaigns', {
        name: 'Engine launch',
        channel: 'sms',
        content: 'The analytical engine is here',
        contactIds: [ids.ada],
      })
    ).body.id;
    ids.memory = (
      await api.post(`/agents/${agent}/memories`, { content: 'Ada prefers calls about the engine' })
    ).body.id;
    const doc = await api.post(`/agents/${agent}/documents`, {
      title: 'Engine pricing handbook',
      text: 'Partners such as Lovelace get the partner price for every engine.',
    });
    expect(doc.status).toBe(202);
    for (let i = 0; i < 100; i++) {
      const listed = (await api.get(`/agents/${agent}/documents`)).body.data;
      if (listed.length) {
        ids.document = listed[0].id;
        break;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(ids.document).toBeDefined();
    mcp = await mcpClient(suite.server.ctx.config.mcpEndpoint, suite.team.token, {
      'x-team-slug': suite.team.slug,
    });
  });
  afterAll(async () => {
    await mcp?.close();
  });

  const hits = async (query: string) => (await suite.api.get(`/search?${query}`)).body.data as any[];

  it('one list with a type per hit, what matches most first', async () => {
    const found = await hits('q=engine');
    expect(found.map((h) => [h.type, h.id]).sort()).toEqual(
      [
        ['artifact', ids.artifact],
        ['campaign', ids.campaign],
        ['document', ids.document],
        ['memory', ids.memory],
      ].sort(),
    );
    for (const hit of found) {
      expect(hit).toMatchObject({ title: expect.any(String), score: expect.any(Number) });
      expect(hit.agentId).toBe(hit.type === 'document' || hit.type === 'memory' ? suite.team.agentId : null);
    }
    // Found by both rankers (full text and the trigram of its title): first.
    const lovelace = await hits('q=lovelace');
    expect(lovelace[0]).toMatchObject({ type: 'artifact', id: ids.artifact });
    expect(lovelace.map((h) => h.id)).toEqual(expect.arrayContaining([ids.ada, ids.document]));
  });

  it('prefixes, misspellings, emails; types narrow; a cursor pages', async () => {
    expect((await hits('q=lovel'))[0]).toMatchObject({ id: expect.any(String) });
    expect((await hits('q=Ada%20Lovlace'))[0]).toMatchObject({ type: 'contact', id: ids.ada });
    expect((await hits('q=grace%40navy.example')).map((h) => h.id)).toEqual([ids.grace]);
    expect((await hits('q=engine&types=memory,campaign')).map((h) => h.type).sort()).toEqual(['campaign', 'memory']);
    const first = await suite.api.get('/search?q=engine&limit=2');
    expect(first.body.data).toHaveLength(2);
    const second = await suite.api.get(`/search?q=engine&limit=2&cursor=${first.body.pagination.nextCursor}`);
    expect(second.body.data).toHaveLength(2);
    expect(second.body.pagination.nextCursor).toBeNull();
    expect([...first.body.data, ...second.body.data].map((h: any) => h.id).sort()).toEqual(
      [ids.artifact, ids.campaign, ids.document, ids.memory].sort(),
    );
    expect(await hits('q=zebra')).toEqual([]);
  });

  it('bad queries are the error envelope', async () => {
    for (const query of ['', 'q=', 'q=x&types=planet', 'q=x&limit=0', 'q=x&cursor=nope']) {
      const res = await suite.api.get(`/search?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
    // Punctuation and operators are just text, never a syntax error.
    expect((await suite.api.get(`/search?q=${encodeURIComponent("!&|:*()'\\ -- ")}`)).status).toBe(200);
  });

  it('another team finds nothing of ours, and cannot name our agent', async () => {
    const other = await newTeam(suite.db, 'search-other');
    const theirs = apiClient(suite.server.baseUrl, other);
    expect((await theirs.get('/search?q=engine')).body.data).toEqual([]);
    expect((await theirs.get('/search?q=lovelace')).body.data).toEqual([]);
    const named = await theirs.get(`/search?q=engine&agentId=${suite.team.agentId}`);
    expect(named.status).toBe(404);
    expect(named.body.error.code).toBe('not_found');
  });

  it('the search tool through the MCP SDK client', async () => {
    const answer = await ok(mcp, 'search', { q: 'engine', types: ['artifact', 'document'] });
    expect(answer.data.map((h: any) => h.id).sort()).toEqual([ids.artifact, ids.document].sort());
    expect(answer.pagination).toEqual({ nextCursor: null, limit: 25 });
    expect(await failing(mcp, 'search', { q: 'engine', types: 'artifact' })).toMatchObject({
      code: 'validation_error',
    });
  });
});
