import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { issueApiToken } from '../../services/identity/apiTokens';
import { apiClient, newTeam, TestTeam, useApiSuite } from '../support/helpers';
import { failing, mcpClient, ok } from '../support/mcpHelpers';

/**
 * Team admin (issue 16 § 6): create_team, update_team, update_team_place, update_team_settings,
 * over HTTP and through the MCP SDK client; a team admin only; retried creates answer the same team.
 */
describe('team admin', () => {
  const suite = useApiSuite('teamadm');
  let mcp: Client;
  let mcpUrl: string;
  let n = 0;

  beforeAll(async () => {
    mcpUrl = suite.server.ctx.config.mcpEndpoint;
    mcp = await mcpClient(mcpUrl, suite.team.token, { 'x-team-slug': suite.team.slug });
  });
  afterAll(async () => {
    await mcp?.close();
  });

  /** A second person in the team, with a role, and their own API token. */
  async function personIn(team: TestTeam, role: 'member' | 'admin'): Promise<TestTeam> {
    const [user] = await suite
      .db('users')
      .insert({ email: `${role}-${Date.now()}-${++n}@example.test`, name: role })
      .returning('id');
    await suite.db('memberships').insert({ team_id: team.teamId, user_id: user.id, role });
    const { token } = await issueApiToken(suite.db, user.id, 'test');
    return { ...team, userId: user.id, token };
  }

  it('POST /teams: the caller owns the new team, which has a first agent; a retry answers the same team', async () => {
    const slug = `studio-${Date.now().toString(36)}`;
    const body = { slug, name: 'Studio North', agentName: 'Mira', place: { timezone: 'Europe/Oslo', locale: 'nb-no' } };
    const created = await suite.api.post('/teams', body);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      created: true,
      team: { slug, name: 'Studio North', plan: 'free', place: { timezone: 'Europe/Oslo', locale: 'nb-NO' } },
      agent: { name: 'Mira', slug: 'mira' },
    });
    // Retried (the answer was lost): the same team, not a second one, not an error.
    const again = await suite.api.post('/teams', body);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ created: false, agent: { uuid: created.body.agent.uuid } });
    // The same token now works for the new team, as its owner.
    const inNew = apiClient(suite.server.baseUrl, { token: suite.team.token, slug });
    expect((await inNew.get('/agents')).body.data.map((a: any) => a.uuid)).toEqual([created.body.agent.uuid]);
    expect((await inNew.call('PATCH', '/team', { description: 'North office' })).body.description).toBe('North office');

    // Someone else cannot take the slug (nor learn more than that it is taken).
    const other = await newTeam(suite.db, 'teamadm-other');
    const taken = await apiClient(suite.server.baseUrl, other).post('/teams', body);
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('conflict');
    // Bad input is the error envelope.
    const bad = await suite.api.post('/teams', { slug: 'Not A Slug', name: '' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_error');
    expect(bad.body.error.details.issues.map((i: any) => i.path).sort()).toEqual(['name', 'slug']);
  });

  it('PATCH /team/place and /team/settings: validated, merged (null removes), shown on GET /team', async () => {
    const place = await suite.api.call('PATCH', '/team/place', {
      address: { line1: 'Keizersgracht 1', city: 'Amsterdam', postalCode: '1015 CJ', country: 'NL' },
      locale: 'en-gb',
      timezone: 'Europe/Amsterdam',
    });
    expect(place.status).toBe(200);
    expect(place.body.place).toEqual({
      address: { line1: 'Keizersgracht 1', city: 'Amsterdam', postalCode: '1015 CJ', country: 'NL' },
      locale: 'en-GB',
      timezone: 'Europe/Amsterdam',
    });
    const moved = await suite.api.call('PATCH', '/team/place', { address: { city: 'Utrecht', postalCode: null } });
    expect(moved.body.place).toMatchObject({
      address: { line1: 'Keizersgracht 1', city: 'Utrecht', country: 'NL' },
      timezone: 'Europe/Amsterdam',
    });
    expect(moved.body.place.address.postalCode).toBeUndefined();
    for (const wrong of [{ timezone: 'Mars/Olympus' }, { locale: 'not a locale!' }, { address: { country: 'nl' } }]) {
      const res = await suite.api.call('PATCH', '/team/place', wrong);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }

    const settings = await suite.api.call('PATCH', '/team/settings', {
      brand: { color: '#112233' },
      studio: { artifactType: 'concept' },
    });
    expect(settings.status).toBe(200);
    expect(settings.body.settings).toEqual({ brand: { color: '#112233' }, studio: { artifactType: 'concept' } });
    const cleared = await suite.api.call('PATCH', '/team/settings', { brand: null });
    expect(cleared.body.settings).toEqual({ studio: { artifactType: 'concept' } });
    const logo = await suite.api.call('PATCH', '/team/settings', { brand: { logoMediaId: 'med_nope' } });
    expect(logo.status).toBe(422);
    expect(logo.body.error.code).toBe('unknown_media');
    const unknownKey = await suite.api.call('PATCH', '/team/settings', { theme: 'dark' });
    expect(unknownKey.status).toBe(400);
    expect((await suite.api.get('/team')).body).toMatchObject({
      place: { timezone: 'Europe/Amsterdam' },
      settings: { studio: { artifactType: 'concept' } },
    });
  });

  it('only a team admin changes the team: a member gets 403 over HTTP and MCP; an admin may', async () => {
    const member = await personIn(suite.team, 'member');
    const memberApi = apiClient(suite.server.baseUrl, member);
    for (const [path, body] of [
      ['/team', { name: 'Hijacked' }],
      ['/team/place', { timezone: 'UTC' }],
      ['/team/settings', { brand: { color: '#000000' } }],
    ] as const) {
      const res = await memberApi.call('PATCH', path, body);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    }
    expect((await memberApi.get('/team')).status).toBe(200);
    const memberMcp = await mcpClient(mcpUrl, member.token, { 'x-team-slug': member.slug });
    expect(await failing(memberMcp, 'update_team', { name: 'Hijacked' })).toMatchObject({ code: 'forbidden' });
    await memberMcp.close();
    expect((await suite.api.get('/team')).body.name).not.toBe('Hijacked');

    const admin = await personIn(suite.team, 'admin');
    const res = await apiClient(suite.server.baseUrl, admin).call('PATCH', '/team/place', { timezone: 'UTC' });
    expect(res.status).toBe(200);
    expect(res.body.place.timezone).toBe('UTC');
  });

  it('the team admin tools through the MCP SDK client', async () => {
    const tools = (await mcp.listTools()).tools;
    for (const name of ['create_team', 'update_team', 'update_team_place', 'update_team_settings'])
      expect(tools.find((t) => t.name === name)?.annotations?.readOnlyHint).toBe(false);

    const slug = `mcp-made-${Date.now().toString(36)}`;
    const made = await ok(mcp, 'create_team', { slug, name: 'Made over MCP' });
    expect(made).toMatchObject({ created: true, team: { slug }, agent: { name: 'Assistant' } });
    expect(await ok(mcp, 'create_team', { slug, name: 'Made over MCP' })).toMatchObject({ created: false });
    // This connection still acts for its own team.
    expect((await ok(mcp, 'svc_agent_info')).team.slug).toBe(suite.team.slug);

    expect(await ok(mcp, 'update_team', { name: 'Renamed over MCP' })).toMatchObject({ name: 'Renamed over MCP' });
    expect(await ok(mcp, 'update_team_place', { timezone: 'Asia/Tokyo', locale: 'ja' })).toMatchObject({
      place: { timezone: 'Asia/Tokyo', locale: 'ja' },
    });
    expect(await ok(mcp, 'update_team_settings', { studio: { artifactStatus: 'ready' } })).toMatchObject({
      settings: { studio: { artifactType: 'concept', artifactStatus: 'ready' } },
    });
    expect(await failing(mcp, 'update_team_place', { timezone: 'Nowhere/Land' })).toMatchObject({
      code: 'validation_error',
    });
  });
});
