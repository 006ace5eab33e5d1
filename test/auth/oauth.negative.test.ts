import * as client from 'openid-client';
import type { Db } from '../../db/knex';
import type { RunningServer } from '../../server';
import { newTeam, startTestApi, testDb, TestTeam } from '../support/helpers';
import {
  authorizeInBrowser,
  codeFlow,
  hiddenField,
  REDIRECT_URI,
  registerClient,
  withPassword,
} from '../support/oauthHelpers';

/**
 * Every way an OAuth exchange or an API call can be wrong, each with the exact answer a client
 * gets. Raw HTTP is used where openid-client would refuse to send the bad request itself.
 */
describe('OAuth negative cases', () => {
  let db: Db;
  let server: RunningServer & { baseUrl: string };
  let issuer: string;
  let owner: TestTeam & { email: string; password: string };
  let confidential: client.Configuration;
  let publicClient: client.Configuration;

  beforeAll(async () => {
    db = testDb();
    server = await startTestApi(db);
    issuer = server.url;
    owner = await withPassword(db, await newTeam(db, 'oauthneg'));
    confidential = await registerClient(
      issuer,
      { client_name: 'Negative', redirect_uris: [REDIRECT_URI] },
      client.ClientSecretBasic,
    );
    publicClient = await registerClient(
      issuer,
      { client_name: 'Negative public', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' },
      () => client.None(),
    );
  });
  afterAll(async () => {
    await server?.close();
    await db?.destroy();
  });

  const meta = (config: client.Configuration) =>
    config.clientMetadata() as { client_id: string; client_secret?: string };
  const basic = (config: client.Configuration) =>
    `Basic ${Buffer.from(`${meta(config).client_id}:${meta(config).client_secret}`).toString('base64')}`;

  async function tokenRequest(fields: Record<string, string>, authorization?: string) {
    const res = await fetch(`${issuer}/oauth/token`, {
      method: 'POST',
      headers: authorization ? { authorization } : {},
      body: new URLSearchParams(fields),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  }

  async function freshCode(config: client.Configuration, params: Record<string, string> = {}) {
    const run = await codeFlow(config, owner, params);
    return {
      code: run.callback!.searchParams.get('code')!,
      verifier: run.verifier,
      state: run.state,
      callback: run.callback!,
    };
  }

  const api = (token: string, path = '/agents', init: RequestInit = {}) =>
    fetch(`${server.baseUrl}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, 'x-team-slug': owner.slug, 'content-type': 'application/json' },
    });

  async function tokensFor(
    config: client.Configuration,
    params: Record<string, string> = {},
    tokenParams: Record<string, string> = {},
  ) {
    const { callback, verifier, state } = await freshCode(config, params);
    return client.authorizationCodeGrant(
      config,
      callback,
      { pkceCodeVerifier: verifier, expectedState: state },
      tokenParams,
    );
  }

  it('reused code → 400 invalid_grant, and the tokens issued from it are revoked', async () => {
    const { code, verifier } = await freshCode(confidential);
    const exchange = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier };
    const first = await tokenRequest(exchange, basic(confidential));
    expect(first.status).toBe(200);
    expect((await api(first.body.access_token)).status).toBe(200);
    const second = await tokenRequest(exchange, basic(confidential));
    expect(second.status).toBe(400);
    expect(second.body.error).toBe('invalid_grant');
    expect((await api(first.body.access_token)).status).toBe(401);
    const refresh = await tokenRequest(
      { grant_type: 'refresh_token', refresh_token: first.body.refresh_token },
      basic(confidential),
    );
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('wrong verifier → 400 invalid_grant (and the code is spent)', async () => {
    const { code, verifier } = await freshCode(publicClient);
    const wrong = await tokenRequest({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      client_id: meta(publicClient).client_id,
      code_verifier: client.randomPKCECodeVerifier(),
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({
      error: 'invalid_grant',
      error_description: expect.stringContaining('code verifier is invalid'),
    });
    const right = await tokenRequest({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      client_id: meta(publicClient).client_id,
      code_verifier: verifier,
    });
    expect(right.body.error).toBe('invalid_grant');
  });

  it('missing verifier → 400 invalid_grant', async () => {
    const { code } = await freshCode(publicClient);
    const res = await tokenRequest({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      client_id: meta(publicClient).client_id,
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: 'invalid_grant',
      error_description: expect.stringContaining('code_verifier'),
    });
  });

  it('redirect_uri mismatch at the token endpoint → 400 invalid_grant', async () => {
    const { code, verifier } = await freshCode(confidential);
    const res = await tokenRequest(
      { grant_type: 'authorization_code', code, redirect_uri: 'http://127.0.0.1:8976/other', code_verifier: verifier },
      basic(confidential),
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });

  it('unknown client → 401 invalid_client with WWW-Authenticate: Basic at the token endpoint', async () => {
    const res = await tokenRequest(
      { grant_type: 'client_credentials' },
      `Basic ${Buffer.from('cli_nobody:ocs_nothing').toString('base64')}`,
    );
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic /);
  });

  it('unknown client or unregistered redirect at /oauth/authorize → an error page, never a redirect', async () => {
    const challenge = await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier());
    const base = {
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'x',
    };
    for (const query of [
      { ...base, client_id: 'cli_unknown' },
      { ...base, client_id: meta(confidential).client_id, redirect_uri: 'https://attacker.example/cb' },
    ]) {
      const res = await fetch(`${issuer}/oauth/authorize?${new URLSearchParams(query)}`, { redirect: 'manual' });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(await res.text()).toContain('This sign-in link is not valid');
    }
  });

  it('authorization request without PKCE, or with a malformed challenge → redirected back with invalid_request', async () => {
    const base = {
      response_type: 'code',
      client_id: meta(confidential).client_id,
      redirect_uri: REDIRECT_URI,
      state: 's1',
    };
    for (const extra of [
      {} as Record<string, string>,
      { code_challenge: 'short', code_challenge_method: 'S256' },
      { code_challenge: 'a'.repeat(43), code_challenge_method: 'S512' },
    ]) {
      const res = await fetch(`${issuer}/oauth/authorize?${new URLSearchParams({ ...base, ...extra })}`, {
        redirect: 'manual',
      });
      expect(res.status).toBe(302);
      const back = new URL(res.headers.get('location')!);
      expect(back.origin + back.pathname).toBe(REDIRECT_URI);
      expect(back.searchParams.get('error')).toBe('invalid_request');
      expect(back.searchParams.get('state')).toBe('s1');
      expect(back.searchParams.get('iss')).toBe(issuer);
    }
  });

  it('wrong secret → 401 invalid_client with WWW-Authenticate: Basic (Basic and post alike)', async () => {
    const wrongBasic = `Basic ${Buffer.from(`${meta(confidential).client_id}:ocs_wrong`).toString('base64')}`;
    const viaBasic = await tokenRequest({ grant_type: 'refresh_token', refresh_token: 'ort_x' }, wrongBasic);
    expect(viaBasic.status).toBe(401);
    expect(viaBasic.body.error).toBe('invalid_client');
    expect(viaBasic.headers.get('www-authenticate')).toMatch(/^Basic /);
    const viaPost = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: 'ort_x',
      client_id: meta(confidential).client_id,
      client_secret: 'ocs_wrong',
    });
    expect(viaPost.status).toBe(401);
    expect(viaPost.body.error).toBe('invalid_client');
  });

  it('a confidential client cannot exchange a code with its client_id and verifier alone → 401 invalid_client', async () => {
    const { code, verifier } = await freshCode(confidential);
    const res = await tokenRequest({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      client_id: meta(confidential).client_id,
      code_verifier: verifier,
    });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
  });

  it('scope escalation on refresh → 400 invalid_scope (narrowing is allowed)', async () => {
    const readOnly = await tokensFor(confidential, { scope: 'mcp:read' });
    expect(readOnly.scope).toBe('mcp:read');
    const escalate = await tokenRequest(
      { grant_type: 'refresh_token', refresh_token: readOnly.refresh_token!, scope: 'mcp:use' },
      basic(confidential),
    );
    expect(escalate.status).toBe(400);
    expect(escalate.body.error).toBe('invalid_scope');

    const full = await tokensFor(confidential, { scope: 'mcp:use' });
    const narrowed = await client.refreshTokenGrant(confidential, full.refresh_token!, { scope: 'mcp:read' });
    expect(narrowed.scope).toBe('mcp:read');
    expect((await api(narrowed.access_token, '/contacts', { method: 'POST', body: '{}' })).status).toBe(403);
  });

  it('reused refresh token → 400 invalid_grant, and the whole grant (the rotated tokens too) is revoked', async () => {
    const tokens = await tokensFor(confidential);
    const rotated = await client.refreshTokenGrant(confidential, tokens.refresh_token!);
    expect((await api(rotated.access_token)).status).toBe(200);
    const reuse = await tokenRequest(
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! },
      basic(confidential),
    );
    expect(reuse.status).toBe(400);
    expect(reuse.body.error).toBe('invalid_grant');
    expect((await api(rotated.access_token)).status).toBe(401);
    const next = await tokenRequest(
      { grant_type: 'refresh_token', refresh_token: rotated.refresh_token! },
      basic(confidential),
    );
    expect(next.body.error).toBe('invalid_grant');
  });

  it('expired code → 400 invalid_grant', async () => {
    const { code, verifier } = await freshCode(confidential);
    await db('oauth_codes')
      .update({ expires_at: db.raw("now() - interval '1 second'") })
      .whereRaw("code_hash = encode(sha256(?::bytea), 'hex')", [code]);
    const res = await tokenRequest(
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier },
      basic(confidential),
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('expired') });
  });

  it('expired access token on the API → 401 unauthorized with an invalid_token challenge', async () => {
    const tokens = await tokensFor(confidential);
    await db('oauth_tokens')
      .update({ expires_at: db.raw("now() - interval '1 second'") })
      .whereRaw("token_hash = encode(sha256(?::bytea), 'hex')", [tokens.access_token]);
    const res = await api(tokens.access_token);
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).error.code).toBe('unauthorized');
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('revoked access token on the API → 401 unauthorized, at once', async () => {
    const tokens = await tokensFor(confidential);
    expect((await api(tokens.access_token)).status).toBe(200);
    await client.tokenRevocation(confidential, tokens.access_token, { token_type_hint: 'access_token' });
    const res = await api(tokens.access_token);
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).error.code).toBe('unauthorized');
  });

  it('token for another resource → 401 on the API; an unknown resource at the token endpoint → 400 invalid_target', async () => {
    const mcpOnly = await tokensFor(confidential, { resource: `${issuer}/mcp` });
    const res = await api(mcpOnly.access_token);
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).error.message).toContain('another resource');

    const { code, verifier } = await freshCode(confidential);
    const foreign = await tokenRequest(
      {
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT_URI,
        code_verifier: verifier,
        resource: 'https://elsewhere.example/api',
      },
      basic(confidential),
    );
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toBe('invalid_target');
  });

  it('read-scoped token on a write → 403 insufficient_scope with the scope it needs', async () => {
    const readOnly = await tokensFor(confidential, { scope: 'mcp:read' });
    expect((await api(readOnly.access_token, '/contacts')).status).toBe(200);
    const res = await api(readOnly.access_token, '/contacts', { method: 'POST', body: JSON.stringify({ name: 'x' }) });
    expect(res.status).toBe(403);
    expect((await res.json()) as any).toMatchObject({
      error: { code: 'insufficient_scope', details: { requiredScope: 'mcp:write' } },
    });
    expect(res.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
  });

  it("API token with a team it is not in → 403 forbidden; an OAuth token with another team's slug → 403 forbidden", async () => {
    const other = await newTeam(db, 'oauthneg-other');
    const res = await fetch(`${server.baseUrl}/agents`, {
      headers: { authorization: `Bearer ${owner.token}`, 'x-team-slug': other.slug },
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as any).error.code).toBe('forbidden');
    const tokens = await tokensFor(confidential);
    const oauth = await fetch(`${server.baseUrl}/agents`, {
      headers: { authorization: `Bearer ${tokens.access_token}`, 'x-team-slug': other.slug },
    });
    expect(oauth.status).toBe(403);
    expect(((await oauth.json()) as any).error.code).toBe('forbidden');
  });

  it('login brute force is throttled: after 5 failures even the right password gets 429 with Retry-After', async () => {
    const victim = await withPassword(db, await newTeam(db, 'oauthneg-brute'));
    const url = client.buildAuthorizationUrl(confidential, {
      redirect_uri: REDIRECT_URI,
      code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 5; attempt++) {
      const run = await authorizeInBrowser(url, { email: victim.email, password: `wrong-password-${attempt}` }).catch(
        (err: Error) => err,
      );
      statuses.push(Number(/login answered (\d+)/.exec(String(run))?.[1]));
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    const blocked = await authorizeInBrowser(url, victim).catch((err: Error) => err);
    expect(String(blocked)).toMatch(/login answered 429/);
    expect(String(blocked)).toContain('Too many failed sign-ins');
  });

  it('consent form without its CSRF token → 403 page, and no code is issued', async () => {
    const url = client.buildAuthorizationUrl(confidential, {
      redirect_uri: REDIRECT_URI,
      code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
      state: 'csrf',
    });
    const grantsOfClient = async () =>
      (
        await db('oauth_grants')
          .where({ client_id: meta(confidential).client_id })
          .count<{ count: string }[]>('* as count')
      )[0].count;
    const grantsBefore = await grantsOfClient();
    // Sign in for real, then post the consent form without csrf_token.
    const cookieJar: string[] = [];
    const remember = (res: Response) => res.headers.getSetCookie().forEach((c) => cookieJar.push(c.split(';')[0]));
    const loginPage = await fetch(url, { redirect: 'manual' });
    remember(loginPage);
    const html = await loginPage.text();
    const requestId = hiddenField(html, 'request_id')!;
    const login = await fetch(`${issuer}/oauth/authorize/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: cookieJar.join('; ') },
      body: new URLSearchParams({
        request_id: requestId,
        csrf_token: hiddenField(html, 'csrf_token')!,
        email: owner.email,
        password: owner.password,
      }),
    });
    expect(login.status).toBe(303);
    const consent = await fetch(`${issuer}/oauth/authorize/consent`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: cookieJar.join('; ') },
      body: new URLSearchParams({
        request_id: requestId,
        decision: 'approve',
        agent: `${owner.teamId}:${owner.agentId}`,
      }),
    });
    expect(consent.status).toBe(403);
    expect(consent.headers.get('location')).toBeNull();
    expect(await consent.text()).toContain('This page has expired');
    // The same form from another browser (no cookie) with the token is refused too.
    const noCookie = await fetch(`${issuer}/oauth/authorize/login`, {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams({
        request_id: requestId,
        csrf_token: hiddenField(html, 'csrf_token')!,
        email: owner.email,
        password: owner.password,
      }),
    });
    expect(noCookie.status).toBe(403);
    expect(await grantsOfClient()).toBe(grantsBefore);
  });

  it('unsupported grant type → 400 unsupported_grant_type; a non-form body → 400 invalid_request', async () => {
    const res = await tokenRequest({ grant_type: 'password', username: 'a', password: 'b' }, basic(confidential));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('unauthorized_client');
    const unknown = await tokenRequest({ grant_type: 'urn:example:nothing' }, basic(confidential));
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toBe('unsupported_grant_type');
    const json = await fetch(`${issuer}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"grant_type":"client_credentials"}',
    });
    expect(json.status).toBe(400);
    expect(((await json.json()) as any).error).toBe('invalid_request');
  });

  it('registration with a bad redirect URI → 400 invalid_redirect_uri', async () => {
    for (const uri of ['http://example.com/cb', 'javascript:alert(1)', 'https://ok.example/cb#frag']) {
      const res = await fetch(`${issuer}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [uri] }),
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).error).toBe('invalid_redirect_uri');
    }
  });
});
