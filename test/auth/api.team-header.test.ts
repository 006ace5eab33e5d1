import * as client from 'openid-client';
import { apiClient, newTeam, TestTeam, useApiSuite } from '../support/helpers';
import { codeFlow, REDIRECT_URI, registerClient, withPassword } from '../support/oauthHelpers';

/**
 * X-Team-Slug on /v1: an OAuth access token names its team itself, so the header may be left
 * out (and, when sent, must name that team); an API token acts for every team of its user, so a
 * missing header is a 400 that says what to send.
 */
describe('the team of a /v1 request', () => {
  const suite = useApiSuite('header');
  let other: TestTeam;
  let userToken: string;
  let clientToken: string;

  beforeAll(async () => {
    const { db, server, team } = suite;
    other = await newTeam(db, 'header-other');
    // A person's token, as the README's OAuth walkthrough gets it (authorization code + PKCE).
    const owner = await withPassword(db, team);
    const config = await registerClient(server.url, {
      client_name: 'header test',
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: 'none',
    });
    const run = await codeFlow(config, owner);
    userToken = (
      await client.authorizationCodeGrant(config, run.callback!, {
        pkceCodeVerifier: run.verifier,
        expectedState: run.state,
      })
    ).access_token;
    // A team's backend: a confidential client_credentials client registered by a member.
    const registered = (await (
      await fetch(`${server.url}/oauth/register`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${team.token}`,
          'x-team-slug': team.slug,
        },
        body: JSON.stringify({ client_name: 'header backend', grant_types: ['client_credentials'] }),
      })
    ).json()) as any;
    const basic = `Basic ${Buffer.from(`${registered.client_id}:${registered.client_secret}`).toString('base64')}`;
    clientToken = (
      (await (
        await fetch(`${server.url}/oauth/token`, {
          method: 'POST',
          headers: { authorization: basic },
          body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'mcp:use' }),
        })
      ).json()) as any
    ).access_token;
  });

  const request = async (
    path: string,
    headers: Record<string, string>,
    init: { method?: string; body?: unknown } = {},
  ) => {
    const res = await fetch(`${suite.server.baseUrl}${path}`, {
      method: init.method ?? 'GET',
      headers: { ...headers, ...(init.body ? { 'content-type': 'application/json' } : {}) },
      body: init.body ? JSON.stringify(init.body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const oauthKinds = [
    ["a person's OAuth token", () => userToken],
    ['a client_credentials token', () => clientToken],
  ] as const;

  describe.each(oauthKinds)('%s', (_kind, token) => {
    it('works without X-Team-Slug, for its own team: reads and writes', async () => {
      const agents = await request('/agents', { authorization: `Bearer ${token()}` });
      expect(agents.status).toBe(200);
      expect(agents.body.data.map((a: { uuid: string }) => a.uuid)).toEqual([suite.team.agentId]);
      const email = `no-header-${Math.random().toString(36).slice(2)}@example.com`;
      const created = await request(
        '/contacts',
        { authorization: `Bearer ${token()}` },
        { method: 'POST', body: { name: 'No Header', email } },
      );
      expect(created.status).toBe(201);
      // The contact landed in the token's team, as the team's API token sees it.
      expect((await suite.api.get(`/contacts/${created.body.id}`)).body.email).toBe(email);
    });

    it('accepts X-Team-Slug naming its own team', async () => {
      const team = await request('/team', { authorization: `Bearer ${token()}`, 'x-team-slug': suite.team.slug });
      expect(team).toMatchObject({ status: 200, body: { slug: suite.team.slug } });
    });

    it('answers X-Team-Slug of another team, or of no team, with the 403 forbidden of a team the caller is not in', async () => {
      for (const slug of [other.slug, 'no-such-team-anywhere']) {
        const refused = await request('/agents', { authorization: `Bearer ${token()}`, 'x-team-slug': slug });
        expect(refused.status).toBe(403);
        expect(refused.body.error.code).toBe('forbidden');
      }
    });
  });

  it('an API token without X-Team-Slug gets 400 validation_error saying to send the header, with its own teams as the example', async () => {
    const res = await request('/agents', { authorization: `Bearer ${suite.team.token}` });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.message).toContain(
      `send the header X-Team-Slug with your team's slug (for example X-Team-Slug: ${suite.team.slug})`,
    );
    expect(res.body.error.details).toEqual({
      issues: [{ path: 'x-team-slug', message: expect.any(String), code: 'invalid_type' }],
      teams: [suite.team.slug],
    });
    // With the header it works, and another team's slug is still 403.
    expect((await apiClient(suite.server.baseUrl, suite.team).get('/agents')).status).toBe(200);
    expect(
      (await request('/agents', { authorization: `Bearer ${suite.team.token}`, 'x-team-slug': other.slug })).status,
    ).toBe(403);
  });

  it('without any credential the answer is 401 whatever the header; a malformed header is 400 for either credential', async () => {
    expect((await request('/agents', {})).status).toBe(401);
    for (const token of [suite.team.token, clientToken]) {
      const res = await request('/agents', { authorization: `Bearer ${token}`, 'x-team-slug': 'Not A Slug!' });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
  });
});
