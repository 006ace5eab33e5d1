import type { Db } from '../../db/knex';
import type { RunningServer } from '../../server';
import { apiClient, newTeam, startTestApi, testDb } from '../support/helpers';
import { mcpClient, ok } from '../support/mcpHelpers';

describe('API tokens, owned by their user', () => {
  let db: Db;
  let server: RunningServer & { baseUrl: string };
  beforeAll(async () => {
    db = testDb();
    server = await startTestApi(db);
  });
  afterAll(async () => {
    await server?.close();
    await db?.destroy();
  });

  it('creates (shown once), lists (never the secret), and revokes a token at once; revoking again is harmless', async () => {
    const team = await newTeam(db, 'tokens');
    const api = apiClient(server.baseUrl, team);
    const created = await api.post('/api-tokens', { name: 'CI', expiresInDays: 30 });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(created.body).toMatchObject({ name: 'CI', token: expect.stringMatching(/^tap_/), revokedAt: null });
    expect(new Date(created.body.expiresAt).getTime()).toBeGreaterThan(Date.now() + 29 * 86400_000);

    const ci = apiClient(server.baseUrl, { token: created.body.token, slug: team.slug });
    expect((await ci.get('/agents')).status).toBe(200);

    const listed = await api.get('/api-tokens');
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((t: { name: string }) => t.name)).toEqual(['bootstrap', 'CI']);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.token);
    expect(listed.body.data[0].lastUsedAt).not.toBeNull();
    expect(listed.body.data[1].prefix).toBe(created.body.token.slice(0, 10));

    const revoked = await api.call('DELETE', `/api-tokens/${created.body.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedAt).not.toBeNull();
    const denied = await ci.get('/agents');
    expect(denied.status).toBe(401);
    expect(denied.body.error.code).toBe('unauthorized');
    const again = await api.call('DELETE', `/api-tokens/${created.body.id}`);
    expect(again.status).toBe(200);
    expect(again.body.revokedAt).toBe(revoked.body.revokedAt);
  });

  it('rejects a bad token request with validation_error and an unknown id with not_found', async () => {
    const api = apiClient(server.baseUrl, await newTeam(db, 'tokens-bad'));
    const bad = await api.post('/api-tokens', { name: '', expiresInDays: 0 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_error');
    expect((await api.call('DELETE', '/api-tokens/tok_doesnotexist')).status).toBe(404);
  });
});

describe('rate limits per plan, shared by every API process', () => {
  let db: Db;
  const servers: (RunningServer & { baseUrl: string })[] = [];
  const RATE_LIMITS = JSON.stringify({
    free: { requests: 600, perSeconds: 60 },
    tiny: { requests: 3, perSeconds: 60 },
  });

  beforeAll(async () => {
    db = testDb();
    // Two API processes' worth of servers over one database: the quota is one.
    servers.push(await startTestApi(db, { RATE_LIMITS }), await startTestApi(db, { RATE_LIMITS }));
  });
  afterAll(async () => {
    for (const server of servers) await server.close();
    await db?.destroy();
  });

  it("counts a team's requests across processes and answers 429 rate_limited with Retry-After and RateLimit-* headers", async () => {
    const team = await newTeam(db, 'tiny');
    await db('teams').where({ id: team.teamId }).update({ plan: 'tiny' });
    const [one, two] = servers.map((s) => apiClient(s.baseUrl, team));
    const first = await one.get('/agents');
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-limit')).toBe('3');
    expect(first.headers.get('ratelimit-remaining')).toBe('2');
    expect((await two.get('/agents')).headers.get('ratelimit-remaining')).toBe('1');
    expect((await one.get('/contacts')).headers.get('ratelimit-remaining')).toBe('0');

    const limited = await two.get('/agents');
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(limited.headers.get('ratelimit-limit')).toBe('3');
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');

    // A write that was limited did nothing.
    const write = await one.post('/contacts', { name: 'Over the limit' });
    expect(write.status).toBe(429);
    expect(await db('contacts').where({ team_id: team.teamId })).toHaveLength(0);

    // Another team, on the free plan, is not affected.
    const other = apiClient(servers[0].baseUrl, await newTeam(db, 'free'));
    const free = await other.get('/agents');
    expect(free.status).toBe(200);
    expect(free.headers.get('ratelimit-limit')).toBe('600');
  });

  it("counts an MCP request with an API token on the team's counter, in the statement that finds its agent", async () => {
    const team = await newTeam(db, 'tiny');
    await db('teams').where({ id: team.teamId }).update({ plan: 'tiny' });
    // Counted in the authentication's statement: the limiter's own upsert (a second round trip) is never used.
    const separateCount = jest.spyOn(servers[0].ctx.rateLimits, 'consumeApiRequest');
    const mcp = await mcpClient(servers[0].ctx.config.mcpEndpoint, team.token, { 'x-team-slug': team.slug });
    // initialize and notifications/initialized are two requests of the connection; the call the third.
    expect((await ok(mcp, 'svc_agent_info')).agent.uuid).toBe(team.agentId);
    const key = `api:tiny:${team.teamId}`;
    expect(await db('rate_limits').where({ key }).first('points')).toEqual({ points: 3 });
    const http = await apiClient(servers[1].baseUrl, team).get('/agents');
    expect(http.status).toBe(429);
    await expect(mcp.callTool({ name: 'svc_agent_info', arguments: {} })).rejects.toThrow(/rate_limited/);
    await mcp.close();
    expect(await db('rate_limits').where({ key }).first('points')).toEqual({ points: 5 });
    expect(separateCount).not.toHaveBeenCalled();
    separateCount.mockRestore();
  });

  it('one counter per team whichever path counts a request, reset when its window has passed; an unknown plan counts as free', async () => {
    const team = await newTeam(db, 'tiny');
    await db('teams').where({ id: team.teamId }).update({ plan: 'tiny' });
    const api = apiClient(servers[0].baseUrl, team);
    const limiter = servers[1].ctx.rateLimits;
    // An API token is counted in its authentication's statement; the limiter itself counts the rest (OAuth, MCP rooms).
    expect((await api.get('/agents')).headers.get('ratelimit-remaining')).toBe('2');
    expect((await limiter.consumeApiRequest({ id: team.teamId, plan: 'tiny' })).remaining).toBe(1);
    expect((await api.get('/agents')).headers.get('ratelimit-remaining')).toBe('0');
    await expect(limiter.consumeApiRequest({ id: team.teamId, plan: 'tiny' })).rejects.toMatchObject({
      code: 'rate_limited',
    });
    expect((await api.get('/agents')).status).toBe(429);
    const key = `api:tiny:${team.teamId}`;
    expect(await db('rate_limits').where({ key }).first('points')).toEqual({ points: 5 });

    // The window has passed: the count starts again at one, with a new window.
    await db('rate_limits')
      .where({ key })
      .update({ expire: Date.now() - 1 });
    const again = await api.get('/agents');
    expect(again.status).toBe(200);
    expect(again.headers.get('ratelimit-remaining')).toBe('2');
    expect(Number(again.headers.get('ratelimit-reset'))).toBe(60);
    const { expire } = await db('rate_limits').where({ key }).first('expire');
    expect(Number(expire)).toBeGreaterThan(Date.now() + 55_000);

    // A plan the settings do not name gets free's quota and counter.
    const gold = await newTeam(db, 'gold');
    await db('teams').where({ id: gold.teamId }).update({ plan: 'gold' });
    const res = await apiClient(servers[0].baseUrl, gold).get('/agents');
    expect(res.headers.get('ratelimit-limit')).toBe('600');
    expect(res.headers.get('ratelimit-remaining')).toBe('599');
    expect(
      await db('rate_limits')
        .where({ key: `api:free:${gold.teamId}` })
        .first('points'),
    ).toEqual({ points: 1 });
    expect((await limiter.consumeApiRequest({ id: gold.teamId, plan: 'gold' })).remaining).toBe(598);
  });
});
