import * as client from 'openid-client';
import { newTeam, startTestApi, testDb } from '../support/helpers';
import {
  codeFlow,
  insecure,
  REDIRECT_URI,
  registerClient,
  ownerWithoutAgent,
  withPassword,
} from '../support/oauthHelpers';
import type { Db } from '../../db/knex';
import type { RunningServer } from '../../server';

/** The whole OAuth story end to end, with openid-client as the real client and the pages driven over HTTP. */
describe('OAuth authorization server, end to end', () => {
  let db: Db;
  let server: RunningServer & { baseUrl: string };
  let issuer: string;
  let owner: Awaited<ReturnType<typeof withPassword>>;

  beforeAll(async () => {
    db = testDb();
    server = await startTestApi(db);
    issuer = server.url;
    owner = await withPassword(db, await newTeam(db, 'oauth'));
  });
  afterAll(async () => {
    await server?.close();
    await db?.destroy();
  });

  const callApi = (token: string, path: string, init: RequestInit = {}, slug = owner.slug) =>
    fetch(`${server.baseUrl}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${token}`,
        'x-team-slug': slug,
        'content-type': 'application/json',
        ...init.headers,
      },
    });

  it('serves authorization-server metadata with every field the spec lists, at the issuer and the MCP host', async () => {
    const res = await fetch(`${issuer}/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(200);
    const metadata = await res.json();
    expect(metadata).toMatchObject({
      issuer,
      authorization_endpoint: `${issuer}/oauth/authorize`,
      token_endpoint: `${issuer}/oauth/token`,
      registration_endpoint: `${issuer}/oauth/register`,
      revocation_endpoint: `${issuer}/oauth/token/revoke`,
      introspection_endpoint: `${issuer}/mcp/introspect`,
      scopes_supported: ['mcp:read', 'mcp:write', 'mcp:use'],
      grant_types_supported: ['authorization_code', 'client_credentials', 'refresh_token'],
      code_challenge_methods_supported: ['S256', 'plain'],
      authorization_response_iss_parameter_supported: true,
    });
    // RFC 8414 path-suffixed form for the MCP endpoint.
    expect((await (await fetch(`${issuer}/.well-known/oauth-authorization-server/mcp`)).json()) as any).toEqual(
      metadata,
    );
    // openid-client accepts it (it checks the issuer exactly).
    const config = await client.discovery(new URL(issuer), 'anyone', undefined, undefined, insecure);
    expect(config.serverMetadata().issuer).toBe(issuer);
  });

  it('serves protected-resource metadata (RFC 9728) for the MCP endpoint and the HTTP API', async () => {
    const expected = {
      resource: `${issuer}/mcp`,
      authorization_servers: [issuer],
      scopes_supported: ['mcp:read', 'mcp:write', 'mcp:use'],
      bearer_methods_supported: ['header'],
    };
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const res = await fetch(`${issuer}${path}`);
      expect(res.status).toBe(200);
      expect((await res.json()) as any).toMatchObject(expected);
    }
    const api = await (await fetch(`${issuer}/.well-known/oauth-protected-resource/v1`)).json();
    expect(api).toMatchObject({ ...expected, resource: server.baseUrl });
    // An API 401 points at it.
    const unauth = await fetch(`${server.baseUrl}/agents`, { headers: { 'x-team-slug': owner.slug } });
    expect(unauth.status).toBe(401);
    expect(unauth.headers.get('www-authenticate')).toContain(
      `resource_metadata="${issuer}/.well-known/oauth-protected-resource/v1"`,
    );
  });

  it('runs registration → authorization code with PKCE → token → API → refresh → introspect → revoke (confidential client, Basic)', async () => {
    const config = await registerClient(
      issuer,
      { client_name: 'Flow test', redirect_uris: [REDIRECT_URI] },
      client.ClientSecretBasic,
    );
    const registered = config.clientMetadata();
    expect(registered.client_id).toMatch(/^cli_/);
    expect(registered.client_secret).toMatch(/^ocs_/);
    expect(registered.token_endpoint_auth_method).toBe('client_secret_basic');

    const run = await codeFlow(config, owner);
    expect(run.loginPage.status).toBe(200);
    expect(run.loginPage.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(run.loginPage.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(run.loginPage.headers.get('cache-control')).toBe('no-store');
    expect(run.loginPage.html).toContain('Flow test');
    expect(run.consentPage!.html).toContain('act as your agent');
    expect(run.callback!.origin + run.callback!.pathname).toBe(REDIRECT_URI);
    expect(run.callback!.searchParams.get('state')).toBe(run.state);
    expect(run.callback!.searchParams.get('iss')).toBe(issuer);
    expect(run.callback!.searchParams.get('code')).toMatch(/^oac_/);

    // openid-client checks state and iss itself.
    const tokens = await client.authorizationCodeGrant(config, run.callback!, {
      pkceCodeVerifier: run.verifier,
      expectedState: run.state,
    });
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.access_token).toMatch(/^oat_/);
    expect(tokens.refresh_token).toMatch(/^ort_/);
    expect(tokens.expires_in).toBeGreaterThanOrEqual(3599);
    expect(tokens.expires_in).toBeLessThanOrEqual(3600);
    expect(tokens.scope).toBe('mcp:use');

    const agents = await callApi(tokens.access_token, '/agents');
    expect(agents.status).toBe(200);
    expect(((await agents.json()) as any).data.map((a: { uuid: string }) => a.uuid)).toContain(owner.agentId);
    const created = await callApi(tokens.access_token, '/contacts', {
      method: 'POST',
      body: JSON.stringify({ name: 'Via OAuth' }),
    });
    expect(created.status).toBe(201);

    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(refreshed.scope).toBe('mcp:use');
    expect((await callApi(refreshed.access_token, '/agents')).status).toBe(200);

    const introspection = await client.tokenIntrospection(config, refreshed.access_token);
    expect(introspection).toMatchObject({
      active: true,
      scope: 'mcp:use',
      client_id: registered.client_id,
      token_type: 'access_token',
      iss: issuer,
      team: owner.slug,
      sub: owner.userId,
    });
    expect(introspection.agent_id).toBe(owner.agentId);

    await client.tokenRevocation(config, refreshed.refresh_token!, { token_type_hint: 'refresh_token' });
    // Revoking the refresh token ends its access tokens too, at once.
    expect(await client.tokenIntrospection(config, refreshed.access_token)).toEqual({ active: false });
    expect((await callApi(refreshed.access_token, '/agents')).status).toBe(401);
    await expect(client.refreshTokenGrant(config, refreshed.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('runs the MCP client shape: public client (none), no state, S256, then refresh with client_id only', async () => {
    const config = await registerClient(
      issuer,
      { client_name: 'MCP-style', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' },
      () => client.None(),
    );
    expect(config.clientMetadata().client_secret).toBeUndefined();
    const run = await codeFlow(config, owner, { state: '' });
    expect(run.callback!.searchParams.has('state')).toBe(false);
    const tokens = await client.authorizationCodeGrant(config, run.callback!, {
      pkceCodeVerifier: run.verifier,
      expectedState: client.skipStateCheck,
    });
    expect((await callApi(tokens.access_token, '/agents')).status).toBe(200);
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect((await callApi(refreshed.access_token, '/contacts')).status).toBe(200);
    // A public client may introspect and revoke its own tokens with its client_id.
    expect(await client.tokenIntrospection(config, refreshed.access_token)).toMatchObject({ active: true });
    await client.tokenRevocation(config, refreshed.access_token);
    expect((await callApi(refreshed.access_token, '/contacts')).status).toBe(401);
  });

  it('answers the token endpoint with Cache-Control: no-store', async () => {
    const config = await registerClient(
      issuer,
      { client_name: 'Headers', redirect_uris: [REDIRECT_URI] },
      client.ClientSecretPost,
    );
    const run = await codeFlow(config, owner);
    const res = await fetch(`${issuer}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: run.callback!.searchParams.get('code')!,
        redirect_uri: REDIRECT_URI,
        code_verifier: run.verifier,
        client_id: config.clientMetadata().client_id,
        client_secret: config.clientMetadata().client_secret as string,
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
  });

  async function teamClient(auth: (secret: string) => client.ClientAuth, scope?: string) {
    const registration = await fetch(`${issuer}/oauth/register`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${owner.token}`,
        'x-team-slug': owner.slug,
      },
      body: JSON.stringify({
        client_name: 'Backend',
        grant_types: ['client_credentials'],
        ...(scope ? { scope } : {}),
      }),
    });
    expect(registration.status).toBe(201);
    const registered = (await registration.json()) as any;
    expect(registered.grant_types).toEqual(['client_credentials']);
    return client.discovery(
      new URL(issuer),
      registered.client_id,
      registered,
      auth(registered.client_secret),
      insecure,
    );
  }

  it.each([
    ['HTTP Basic', client.ClientSecretBasic],
    ['client_secret_post', client.ClientSecretPost],
  ])("issues client_credentials tokens for the client's team, secret by %s", async (_name, auth) => {
    const config = await teamClient(auth);
    const tokens = await client.clientCredentialsGrant(config, { scope: 'mcp:read' });
    expect(tokens.scope).toBe('mcp:read');
    expect(tokens.refresh_token).toBeUndefined();
    expect((await callApi(tokens.access_token, '/contacts')).status).toBe(200);
    const write = await callApi(tokens.access_token, '/contacts', {
      method: 'POST',
      body: JSON.stringify({ name: 'Nope' }),
    });
    expect(write.status).toBe(403);
    expect(((await write.json()) as any).error.code).toBe('insufficient_scope');
    expect(await client.tokenIntrospection(config, tokens.access_token)).toMatchObject({
      active: true,
      team: owner.slug,
      scope: 'mcp:read',
    });
  });

  it('refuses to register a client_credentials client without a team member behind it', async () => {
    const res = await fetch(`${issuer}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Orphan', grant_types: ['client_credentials'] }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error).toBe('invalid_client_metadata');
  });

  it('lets a user with no agent create and name one on the consent page', async () => {
    const person = await ownerWithoutAgent(db, 'noagent', 'No Agent Yet');

    const config = await registerClient(
      issuer,
      { client_name: 'First agent', redirect_uris: [REDIRECT_URI] },
      client.ClientSecretBasic,
    );
    const run = await codeFlow(config, person, {}, { newAgentName: 'Research helper' });
    expect(run.consentPage!.html).toContain('You have no agent yet');
    const tokens = await client.authorizationCodeGrant(config, run.callback!, {
      pkceCodeVerifier: run.verifier,
      expectedState: run.state,
    });
    const agents = await db('agents').where({ team_id: person.teamId });
    expect(agents.map((a) => a.name)).toEqual(['Research helper']);
    expect(await client.tokenIntrospection(config, tokens.access_token)).toMatchObject({
      active: true,
      team: person.slug,
      agent_id: agents[0].id,
    });
    const listed = await callApi(tokens.access_token, '/agents', {}, person.slug);
    expect(((await listed.json()) as any).data.map((a: { name: string }) => a.name)).toEqual(['Research helper']);
  });

  it('sends a denial back to the client as access_denied with state and iss, and issues nothing', async () => {
    const config = await registerClient(
      issuer,
      { client_name: 'Denied', redirect_uris: [REDIRECT_URI] },
      client.ClientSecretBasic,
    );
    const run = await codeFlow(config, owner, {}, { decision: 'deny' });
    expect(run.callback!.searchParams.get('error')).toBe('access_denied');
    expect(run.callback!.searchParams.get('state')).toBe(run.state);
    expect(run.callback!.searchParams.get('iss')).toBe(issuer);
    expect(run.callback!.searchParams.has('code')).toBe(false);
    const grants = await db('oauth_grants').where({ client_id: config.clientMetadata().client_id });
    expect(grants).toHaveLength(0);
  });

  it('binds the token to the resource asked for (RFC 8707)', async () => {
    const config = await registerClient(
      issuer,
      { client_name: 'API only', redirect_uris: [REDIRECT_URI] },
      client.ClientSecretBasic,
    );
    const run = await codeFlow(config, owner, { resource: server.baseUrl });
    const tokens = await client.authorizationCodeGrant(
      config,
      run.callback!,
      { pkceCodeVerifier: run.verifier, expectedState: run.state },
      { resource: server.baseUrl },
    );
    expect(await client.tokenIntrospection(config, tokens.access_token)).toMatchObject({
      active: true,
      aud: server.baseUrl,
    });
    expect((await callApi(tokens.access_token, '/agents')).status).toBe(200);
  });
});
