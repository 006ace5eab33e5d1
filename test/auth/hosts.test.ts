import type { Db } from '../../db/knex';
import type { RunningServer } from '../../server';
import { apiClient, newTeam, startTestApiOnFourHosts, testDb, TestTeam } from '../support/helpers';

/**
 * The four hosts of the spec as four settings: {base_url}, {mcp_url}, {auth_url} and {site_url} on
 * distinct origins, each advertised where the spec puts it, all served by one process.
 */
describe('hosts as the spec draws them: four distinct origins', () => {
  let db: Db;
  let server: RunningServer & { baseUrl: string };
  let team: TestTeam;
  let base: string, mcp: string, auth: string, site: string;

  beforeAll(async () => {
    db = testDb();
    server = await startTestApiOnFourHosts(db);
    team = await newTeam(db, 'hosts');
    ({ baseUrl: base, mcpUrl: mcp, authUrl: auth, siteUrl: site } = server.ctx.config);
  });
  afterAll(async () => {
    await server?.close();
    await db?.destroy();
  });

  it('are four origins', () => {
    const origins = [base, mcp, auth, site].map((u) => new URL(u).origin);
    expect(new Set(origins).size).toBe(4);
    expect(base).toMatch(/\/v1$/);
  });

  it('the server card, on {site_url}, points at the MCP endpoint on {mcp_url} and the metadata on {auth_url}', async () => {
    const card = (await (await fetch(`${site}/.well-known/mcp/server-card.json`)).json()) as any;
    expect(card.transport.url).toBe(`${mcp}/mcp`);
    expect(card.authentication.protectedResourceMetadata).toBe(`${auth}/.well-known/oauth-protected-resource/mcp`);
    expect(card.endpoints).toMatchObject({ agent: `${mcp}/mcp/agents/{agentUuid}`, app: `${mcp}/mcp/apps/{appSlug}` });
  });

  it('the authorization server metadata names {auth_url} as issuer and for every endpoint, on both hosts the spec lists', async () => {
    for (const host of [auth, mcp]) {
      const meta = (await (await fetch(`${host}/.well-known/oauth-authorization-server`)).json()) as any;
      expect(meta.issuer).toBe(auth);
      for (const key of ['authorization_endpoint', 'token_endpoint', 'registration_endpoint', 'revocation_endpoint'])
        expect(meta[key].startsWith(`${auth}/oauth/`)).toBe(true);
      expect(meta.introspection_endpoint).toBe(`${auth}/mcp/introspect`);
    }
  });

  it('protected-resource metadata on {site_url} and {auth_url}: the MCP resource on {mcp_url}, the API on {base_url}', async () => {
    for (const host of [site, auth]) {
      const ofMcp = (await (await fetch(`${host}/.well-known/oauth-protected-resource/mcp`)).json()) as any;
      expect(ofMcp).toMatchObject({ resource: `${mcp}/mcp`, authorization_servers: [auth] });
      const ofApi = (await (await fetch(`${host}/.well-known/oauth-protected-resource/v1`)).json()) as any;
      expect(ofApi).toMatchObject({ resource: base, authorization_servers: [auth] });
    }
  });

  it('a 401 from MCP or the API points at the metadata on {auth_url}', async () => {
    const fromMcp = await fetch(`${mcp}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(fromMcp.status).toBe(401);
    expect(fromMcp.headers.get('www-authenticate')).toContain(
      `resource_metadata="${auth}/.well-known/oauth-protected-resource/mcp"`,
    );
    const fromApi = await fetch(`${base}/agents`);
    expect(fromApi.status).toBe(401);
    expect(fromApi.headers.get('www-authenticate')).toContain(
      `resource_metadata="${auth}/.well-known/oauth-protected-resource/v1"`,
    );
  });

  it('API links stay on {base_url}; a room streams from {mcp_url}, and the stream answers there', async () => {
    const api = apiClient(base, team);
    const created = await api.post('/contacts', { email: `hosts-${Date.now()}@example.com` });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${base}/contacts/${created.body.id}`);
    const opened = await api.post('/rooms', { name: 'hosts' });
    expect([200, 201]).toContain(opened.status);
    expect(opened.body.streamUrl.startsWith(`${mcp}/agents/stream/${opened.body.room.id}?key=`)).toBe(true);
    const stream = await fetch(opened.body.streamUrl, { headers: { accept: 'text/event-stream' } });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    await stream.body?.cancel();
  });

  it('the console signs in on {site_url}', async () => {
    const res = await fetch(`${site}/app`, { redirect: 'manual' });
    expect(res.status).toBe(303);
  });
});
