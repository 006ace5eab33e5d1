import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as client from 'openid-client';
import type { Db } from '../../db/knex';
import type { RunningServer } from '../../server';
import { createAgent } from '../../services/agents/agents';
import { TOOLS } from '../../services/catalog/features';
import { apiClient, newTeam, startTestApi, testDb } from '../support/helpers';
import { callTool, failing, InMemoryHostProvider, mcpClient, ok } from '../support/mcpHelpers';
import { authorizeInBrowser, codeFlow, REDIRECT_URI, registerClient, withPassword } from '../support/oauthHelpers';

/** MCP authentication and addressing: discovery from the 401, audiences, scopes, agents and apps. */
describe('MCP authentication and endpoints', () => {
  let db: Db;
  let server: RunningServer & { baseUrl: string };
  let issuer: string;
  let mcpUrl: string;
  let owner: Awaited<ReturnType<typeof withPassword>>;
  let secondAgent: string;

  beforeAll(async () => {
    db = testDb();
    server = await startTestApi(db);
    issuer = server.url;
    mcpUrl = server.ctx.config.mcpEndpoint;
    owner = await withPassword(db, await newTeam(db, 'mcp-auth'));
    secondAgent = (await createAgent(db, owner.teamId, 'Closer')).uuid;
  });
  afterAll(async () => {
    await server?.close();
    await db?.destroy();
  });

  const post = (url: string, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });

  /** An OAuth access token for the owner, by the code flow with openid-client. */
  async function accessToken(params: Record<string, string>) {
    const config = await registerClient(issuer, {
      client_name: 'probe',
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: 'none',
    });
    const run = await codeFlow(config, owner, params);
    const tokens = await client.authorizationCodeGrant(
      config,
      run.callback!,
      { pkceCodeVerifier: run.verifier, expectedState: run.state },
      params.resource ? { resource: params.resource } : undefined,
    );
    return tokens.access_token;
  }

  it('the SDK client discovers everything from the 401, registers, runs PKCE through the login form, and calls a tool as the agent of ?agent=', async () => {
    const provider = new InMemoryHostProvider(REDIRECT_URI, 'SDK host');
    const url = new URL(`${mcpUrl}?agent=${secondAgent}`);
    const first = new Client({ name: 'sdk-host', version: '1.0.0' });
    await expect(first.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }))).rejects.toThrow(
      UnauthorizedError,
    );

    // The SDK followed the 401 to the metadata, registered itself, and built a PKCE S256 authorization URL.
    const authorizationUrl = provider.authorizationUrl!;
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`${issuer}/oauth/authorize`);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    const clientId = authorizationUrl.searchParams.get('client_id')!;
    expect(clientId).toMatch(/^cli_/);
    expect(await db('oauth_clients').where({ id: clientId }).first('name')).toEqual({ name: 'SDK host' });
    expect(authorizationUrl.searchParams.get('resource')).toBe(`${mcpUrl}?agent=${secondAgent}`);

    // The login preselects the agent the MCP URL named.
    const run = await authorizeInBrowser(authorizationUrl, owner);
    expect(run.consentPage!.html).toContain(`value="${owner.teamId}:${secondAgent}" checked`);
    const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await transport.finishAuth(run.callback!.searchParams.get('code')!);
    expect(provider.tokens()).toMatchObject({
      access_token: expect.stringMatching(/^oat_/),
      refresh_token: expect.stringMatching(/^ort_/),
      scope: 'mcp:use',
    });

    const connected = new Client({ name: 'sdk-host', version: '1.0.0' });
    await connected.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }));
    const { tools } = await connected.listTools();
    expect(tools.map((t) => t.name)).toContain('svc_agent_info');
    // The grant's agent is the one chosen at login, even on the plain /mcp URL.
    expect((await ok(connected, 'svc_agent_info')).agent).toMatchObject({ uuid: secondAgent, name: 'Closer' });
    await connected.close();

    // The token is for {mcp_url}: the HTTP API refuses it.
    const onApi = await fetch(`${server.baseUrl}/agents`, {
      headers: { authorization: `Bearer ${provider.tokens()!.access_token}`, 'x-team-slug': owner.slug },
    });
    expect(onApi.status).toBe(401);
  });

  it('no credential or a bad one: 401 with WWW-Authenticate pointing at the protected-resource metadata (carrying ?agent=)', async () => {
    const none = await post(`${issuer}/mcp`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe(
      `Bearer realm="team-agent-platform", resource_metadata="${issuer}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(((await none.json()) as any).error.code).toBe('unauthorized');

    const bad = await post(`${issuer}/mcp`, { authorization: 'Bearer oat_not-a-token' });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toContain('error="invalid_token"');

    const agentScoped = await post(`${issuer}/mcp/agents/${secondAgent}`);
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(agentScoped.headers.get('www-authenticate')!)![1];
    expect(metadataUrl).toBe(`${issuer}/.well-known/oauth-protected-resource/mcp?agent=${secondAgent}`);
    expect(await (await fetch(metadataUrl)).json()).toMatchObject({
      resource: `${mcpUrl}?agent=${secondAgent}`,
      authorization_servers: [issuer],
      scopes_supported: ['mcp:read', 'mcp:write', 'mcp:use'],
      bearer_methods_supported: ['header'],
    });
  });

  it('a token for another resource is 401; a token without mcp:use is 403 insufficient_scope', async () => {
    const forApi = await accessToken({ resource: server.baseUrl });
    const res = await post(`${issuer}/mcp`, { authorization: `Bearer ${forApi}` });
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).error.message).toContain('another resource');

    const readOnly = await accessToken({ scope: 'mcp:read', resource: mcpUrl });
    const narrow = await post(`${issuer}/mcp`, { authorization: `Bearer ${readOnly}` });
    expect(narrow.status).toBe(403);
    expect(await narrow.json()).toMatchObject({
      error: { code: 'insufficient_scope', details: { requiredScope: 'mcp:use' } },
    });
    expect(narrow.headers.get('www-authenticate')).toContain('scope="mcp:use"');
  });

  it("/mcp/agents/{uuid} acts as that agent; another team's agent is 404", async () => {
    const asCloser = await mcpClient(`${mcpUrl}/agents/${secondAgent}`, owner.token);
    expect((await ok(asCloser, 'svc_agent_info')).agent.uuid).toBe(secondAgent);
    await asCloser.close();
    const other = await newTeam(db, 'mcp-other');
    const res = await post(`${mcpUrl}/agents/${other.agentId}`, { authorization: `Bearer ${owner.token}` });
    expect(res.status).toBe(404);
    expect((await post(`${mcpUrl}?agent=${other.agentId}`, { authorization: `Bearer ${owner.token}` })).status).toBe(
      404,
    );
  });

  it("/mcp/apps/{slug} serves one installed app's tools; unknown apps are 404, uninstalled ones 403", async () => {
    expect((await post(`${mcpUrl}/apps/no-such-app`, { authorization: `Bearer ${owner.token}` })).status).toBe(404);
    const notInstalled = await post(`${mcpUrl}/apps/campaigns`, { authorization: `Bearer ${owner.token}` });
    expect(notInstalled.status).toBe(403);
    expect(((await notInstalled.json()) as any).error.code).toBe('app_not_installed');
    await apiClient(server.baseUrl, owner).call('PUT', '/apps/campaigns');
    const app = await mcpClient(`${mcpUrl}/apps/campaigns`, owner.token);
    expect((await app.listTools()).tools.map((t) => t.name).sort()).toEqual([
      'campaign_stats',
      'campaign_totals',
      'check_warp_executions',
      'create_campaign',
      'delete_campaign',
      'list_campaigns',
      'preview_campaign_audience',
      'send_campaign',
    ]);
    expect((await callTool(app, 'list_campaigns')).isError).toBe(false);
    await expect(app.callTool({ name: 'svc_agent_info', arguments: {} })).rejects.toThrow(/Unknown tool/);
    await app.close();
  });

  it('an API token names its team with X-Team-Slug when its user is in several; a team it is not in is 403', async () => {
    const second = await newTeam(db, 'mcp-second');
    await db('memberships').insert({ team_id: second.teamId, user_id: owner.userId, role: 'member' });
    const ambiguous = await post(`${mcpUrl}`, { authorization: `Bearer ${owner.token}` });
    expect(ambiguous.status).toBe(400);
    expect(((await ambiguous.json()) as any).error).toMatchObject({
      code: 'validation_error',
      details: { issues: [expect.objectContaining({ path: 'x-team-slug' })] },
    });
    const named = await mcpClient(mcpUrl, owner.token, { 'x-team-slug': second.slug });
    expect((await ok(named, 'svc_agent_info')).team.slug).toBe(second.slug);
    await named.close();
    const stranger = await newTeam(db, 'mcp-stranger');
    expect((await post(mcpUrl, { authorization: `Bearer ${owner.token}`, 'x-team-slug': stranger.slug })).status).toBe(
      403,
    );
    await db('memberships').where({ team_id: second.teamId, user_id: owner.userId }).delete();
  });

  it('GET and DELETE are 405 (stateless: no stream, no session); the body must be JSON-RPC', async () => {
    const get = await fetch(`${mcpUrl}`, {
      headers: { authorization: `Bearer ${owner.token}`, accept: 'text/event-stream' },
    });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(
      (await fetch(`${mcpUrl}`, { method: 'DELETE', headers: { authorization: `Bearer ${owner.token}` } })).status,
    ).toBe(405);
    const notRpc = await fetch(`${mcpUrl}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${owner.token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{"hello":1}',
    });
    expect(notRpc.status).toBe(400);
    expect(((await notRpc.json()) as any).error.code).toBe(-32700);
  });

  it('browser-based hosts may call discovery, registration, the token endpoint and MCP from another origin', async () => {
    const preflight = await fetch(`${mcpUrl}`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:6274',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, mcp-protocol-version',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('Mcp-Protocol-Version');
    const unauthorized = await fetch(`${mcpUrl}`, {
      method: 'POST',
      headers: { origin: 'http://localhost:6274', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(unauthorized.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate');
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-authorization-server']) {
      expect(
        (await fetch(`${issuer}${path}`, { headers: { origin: 'http://localhost:6274' } })).headers.get(
          'access-control-allow-origin',
        ),
      ).toBe('*');
    }
    // The sign-in pages are not for other origins.
    expect(
      (await fetch(`${issuer}/oauth/authorize`, { headers: { origin: 'http://localhost:6274' } })).headers.get(
        'access-control-allow-origin',
      ),
    ).toBeNull();
  });

  it('serves the server card: name, transport, authentication and a preview of every live tool', async () => {
    const card = (await (await fetch(`${issuer}/.well-known/mcp/server-card.json`)).json()) as any;
    expect(card).toMatchObject({
      name: 'team-agent-platform',
      version: '1.0.0',
      transport: { type: 'streamable-http', url: mcpUrl },
      authentication: {
        required: true,
        protectedResourceMetadata: `${issuer}/.well-known/oauth-protected-resource/mcp`,
      },
    });
    const names = card.tools.map((t: any) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'svc_agent_info',
        'deliver_artifacts',
        'send_campaign',
        'create_segment',
        'check_warp_executions',
      ]),
    );
    expect(card.tools.find((t: any) => t.name === 'create_segment')).toMatchObject({
      app: 'contacts',
      readOnly: false,
    });
    expect(names).toEqual(expect.arrayContaining(['prompt_agent', 'list_rooms', 'get_room_messages']));
    expect(names).toEqual(
      expect.arrayContaining([
        'create_team',
        'update_team',
        'update_team_place',
        'update_team_settings',
        'search',
        'studio_send',
        'studio_produce',
        'studio_wait',
        'studio_export',
        'create_private_app',
      ]),
    );
    expect(names).toEqual(expect.arrayContaining(['list_hooks', 'create_hook', 'toggle_hook', 'delete_hook']));
    // The card previews every live tool, each with its app: the Automations app's too, now that they work.
    expect(card.tools.find((t: any) => t.name === 'create_automation')).toMatchObject({
      app: 'automations',
      readOnly: false,
    });
    expect(names).toEqual(
      expect.arrayContaining(['list_automations', 'get_automation', 'list_enrollments', 'exit_enrollment']),
    );
    // Nothing that does not work is advertised: the card lists exactly the live tools.
    expect([...names].sort()).toEqual(TOOLS.map((t) => t.name).sort());
  });

  it('an OAuth token acts for the team and agent of its grant, whatever header it sends', async () => {
    const token = await accessToken({ resource: mcpUrl });
    const mcp = await mcpClient(mcpUrl, token, { 'x-team-slug': 'some-other-team' });
    const info = await ok(mcp, 'svc_agent_info');
    expect(info.team.slug).toBe(owner.slug);
    expect(await failing(mcp, 'create_api_token', { name: '' })).toMatchObject({ code: 'validation_error' });
    await mcp.close();
  });
});
