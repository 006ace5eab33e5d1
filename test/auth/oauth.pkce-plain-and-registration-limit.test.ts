import { randomInt } from 'node:crypto';
import * as client from 'openid-client';
import type { Db } from '../../db/knex';
import type { RunningServer } from '../../server';
import { newTeam, startTestApi, testDb } from '../support/helpers';
import { authorizeInBrowser, REDIRECT_URI, registerClient, withPassword } from '../support/oauthHelpers';

/**
 * The spec's metadata lists `plain` PKCE (S256 preferred), so a `plain` challenge works end to
 * end; and the per-address limit on dynamic client registration (REGISTRATION_LIMIT) holds.
 * Issue 38 item 18.
 */
describe('OAuth: plain PKCE and the registration limit per address', () => {
  let db: Db;
  let server: RunningServer & { baseUrl: string };
  let issuer: string;
  let owner: Awaited<ReturnType<typeof withPassword>>;

  beforeAll(async () => {
    db = testDb();
    server = await startTestApi(db, { REGISTRATION_LIMIT: '3/600' });
    issuer = server.url;
    owner = await withPassword(db, await newTeam(db, 'oauth-plain'));
  });
  afterAll(async () => {
    await server?.close();
    await db?.destroy();
  });

  async function publicClient() {
    return registerClient(
      issuer,
      { client_name: 'Plain PKCE', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' },
      () => client.None(),
      // An address of its own: the suite's other registrations from loopback count against REGISTRATION_LIMIT's 3.
      `192.0.2.${randomInt(1, 255)}`,
    );
  }
  /** A sign-in with `plain` PKCE (or no method, which RFC 7636 reads as plain): the code it returns. */
  async function plainCode(config: client.Configuration, verifier: string, method: 'plain' | undefined) {
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'mcp:use',
      code_challenge: verifier,
      ...(method ? { code_challenge_method: method } : {}),
      state: client.randomState(),
    });
    const run = await authorizeInBrowser(url, owner);
    expect(run.callback!.searchParams.get('error')).toBeNull();
    return run.callback!.searchParams.get('code')!;
  }
  const exchange = (config: client.Configuration, code: string, verifier: string) =>
    fetch(`${issuer}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT_URI,
        code_verifier: verifier,
        client_id: config.clientMetadata().client_id,
      }),
    });

  it.each([
    ['plain', 'plain'],
    ['omitted (RFC 7636 reads it as plain)', undefined],
  ] as const)(
    'code_challenge_method %s: the verifier itself is the challenge; the code exchanges for a token the API takes',
    async (_label, method) => {
      const config = await publicClient();
      const verifier = client.randomPKCECodeVerifier();
      const res = await exchange(config, await plainCode(config, verifier, method), verifier);
      expect(res.status).toBe(200);
      const tokens = (await res.json()) as any;
      expect(tokens).toMatchObject({ token_type: 'Bearer', scope: 'mcp:use' });
      const agents = await fetch(`${server.baseUrl}/agents`, {
        headers: { authorization: `Bearer ${tokens.access_token}`, 'x-team-slug': owner.slug },
      });
      expect(agents.status).toBe(200);
    },
  );

  it('plain: a verifier other than the challenge is invalid_grant, and so is the S256 hash of the right one', async () => {
    const config = await publicClient();
    const verifier = client.randomPKCECodeVerifier();
    const code = await plainCode(config, verifier, 'plain');
    const hashed = await exchange(config, code, await client.calculatePKCECodeChallenge(verifier));
    expect([hashed.status, ((await hashed.json()) as any).error]).toEqual([400, 'invalid_grant']);
    // The code was spent by that try (a code is good for one exchange).
    const again = await exchange(config, code, verifier);
    expect([again.status, ((await again.json()) as any).error]).toEqual([400, 'invalid_grant']);

    const other = await plainCode(config, verifier, 'plain');
    const wrong = await exchange(config, other, client.randomPKCECodeVerifier());
    expect([wrong.status, ((await wrong.json()) as any).error]).toEqual([400, 'invalid_grant']);
  });

  it('the N+1th registration from one address is 429 rate_limited in the OAuth error envelope; another address still registers', async () => {
    // Addresses of their own (behind the loopback proxy the API trusts), so no other suite counts against them.
    const [first, second] = [`203.0.113.${randomInt(1, 255)}`, `198.51.100.${randomInt(1, 255)}`];
    const register = (from: string) =>
      fetch(`${issuer}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
        body: JSON.stringify({
          client_name: 'Limited',
          redirect_uris: [REDIRECT_URI],
          token_endpoint_auth_method: 'none',
        }),
      });
    for (let i = 0; i < 3; i++) expect((await register(first)).status).toBe(201);
    const limited = await register(first);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect([limited.headers.get('ratelimit-limit'), limited.headers.get('ratelimit-remaining')]).toEqual(['3', '0']);
    // The OAuth endpoints' envelope (RFC 7591 §3.2.2, RFC 6749 §5.2), as every other refusal there.
    expect(await limited.json()).toEqual({
      error: 'rate_limited',
      error_description: expect.stringContaining('registrations'),
    });
    const elsewhere = await register(second);
    expect(elsewhere.status).toBe(201);
    expect(((await elsewhere.json()) as any).client_id).toMatch(/^cli_/);
  });
});
