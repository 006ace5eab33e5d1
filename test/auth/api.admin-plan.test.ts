import { grantPlatformAdmin, revokePlatformAdmin } from '../../services/identity/platformAdmins';
import { apiClient, newTeam, useApiSuite } from '../support/helpers';
import * as client from 'openid-client';
import { failing, mcpClient, ok } from '../support/mcpHelpers';
import { codeFlow, REDIRECT_URI, registerClient, withPassword } from '../support/oauthHelpers';

/** PUT /v1/admin/teams/{slug}/plan: a platform operator sets a team's plan; nobody else can. */
describe('setting a team plan', () => {
  const suite = useApiSuite('plan');
  let operator: { token: string };

  beforeAll(async () => {
    operator = await grantPlatformAdmin(suite.db, `ops-${process.pid}-${Date.now()}@platform.example`);
  });

  /** A request with a bearer credential and no team header, as an operator makes it. */
  async function putPlan(token: string, slug: string, body: unknown) {
    const res = await fetch(`${suite.server.baseUrl}/admin/teams/${slug}/plan`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  }

  it('a team that used its 50 credits is refused on MCP; after the operator sets pro, the next tool call runs', async () => {
    const team = await newTeam(suite.db, 'plan-mcp');
    const client = await mcpClient(suite.server.ctx.config.mcpEndpoint, team.token, { 'x-team-slug': team.slug });
    try {
      for (let i = 0; i < 50; i++) await ok(client, 'svc_list_agents');
      expect(await failing(client, 'svc_agent_info')).toMatchObject({
        code: 'credits_exhausted',
        details: { allowance: 50, used: 50 },
      });

      const changed = await putPlan(operator.token, team.slug, { plan: 'pro' });
      expect(changed.status).toBe(200);
      expect(changed.body.team).toMatchObject({ slug: team.slug, plan: 'pro' });
      expect(changed.body.credits).toMatchObject({ plan: 'pro', allowance: 5000, used: 50, remaining: 4950 });

      // Same connection, same billing cycle: the new allowance counts at once.
      const info = await ok(client, 'svc_agent_info');
      expect(info.credits).toMatchObject({ plan: 'pro', allowance: 5000, used: 51 });
      expect((await apiClient(suite.server.baseUrl, team).get('/team')).body.plan).toBe('pro');

      // Setting it again changes nothing.
      const again = await putPlan(operator.token, team.slug, { plan: 'pro' });
      expect(again.status).toBe(200);
      expect(again.body.credits).toMatchObject({ plan: 'pro', used: 51 });
    } finally {
      await client.close();
    }
  });

  it('a team owner cannot raise their own plan: 403 forbidden, and the plan stays', async () => {
    const { team } = suite;
    const res = await putPlan(team.token, team.slug, { plan: 'pro' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    // Nor through the team API, whose PATCH does not take a plan.
    const patch = await suite.api.call('PATCH', '/team', { plan: 'pro' });
    expect(patch.status).toBe(400);
    expect((await suite.api.get('/team')).body.plan).toBe('free');
    // No credential at all: 401.
    const anonymous = await fetch(`${suite.server.baseUrl}/admin/teams/${team.slug}/plan`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: '{"plan":"pro"}',
    });
    expect(anonymous.status).toBe(401);
  });

  it('an unknown plan is 400 listing the known plans; an unknown team is 404', async () => {
    const unknownPlan = await putPlan(operator.token, suite.team.slug, { plan: 'platinum' });
    expect(unknownPlan.status).toBe(400);
    expect(unknownPlan.body.error).toMatchObject({
      code: 'validation_error',
      message: 'Unknown plan "platinum"; known plans: free, pro',
      details: { knownPlans: ['free', 'pro'] },
    });
    expect((await suite.api.get('/team')).body.plan).toBe('free');

    const noPlan = await putPlan(operator.token, suite.team.slug, {});
    expect(noPlan.status).toBe(400);
    expect(noPlan.body.error.details.issues[0].path).toBe('plan');

    const unknownTeam = await putPlan(operator.token, 'no-such-team-here', { plan: 'pro' });
    expect(unknownTeam.status).toBe(404);
    expect(unknownTeam.body.error.code).toBe('not_found');
  });

  it("only an operator's API token passes: the same operator's OAuth token (delegated to a client) is 403", async () => {
    const owner = await withPassword(suite.db, await newTeam(suite.db, 'plan-oauth'));
    const config = await registerClient(suite.server.url, {
      client_name: 'admin test',
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: 'none',
    });
    const run = await codeFlow(config, owner);
    const oauthToken = (
      await client.authorizationCodeGrant(config, run.callback!, {
        pkceCodeVerifier: run.verifier,
        expectedState: run.state,
      })
    ).access_token;
    await grantPlatformAdmin(suite.db, owner.email);
    const viaOauth = await putPlan(oauthToken, owner.slug, { plan: 'pro' });
    expect(viaOauth.status).toBe(403);
    expect(viaOauth.body.error.code).toBe('forbidden');
    expect((await putPlan(owner.token, owner.slug, { plan: 'pro' })).status).toBe(200);
  });

  it('an operator whose mark is revoked is refused at once', async () => {
    const email = `ops2-${process.pid}-${Date.now()}@platform.example`;
    const second = await grantPlatformAdmin(suite.db, email);
    expect((await putPlan(second.token, suite.team.slug, { plan: 'free' })).status).toBe(200);
    expect(await revokePlatformAdmin(suite.db, email)).toBe(true);
    const refused = await putPlan(second.token, suite.team.slug, { plan: 'pro' });
    expect(refused.status).toBe(403);
    expect((await suite.api.get('/team')).body.plan).toBe('free');
  });
});
