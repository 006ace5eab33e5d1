import * as client from 'openid-client';
import { createAgent } from '../../services/agents/agents';
import { useApiSuite } from '../support/helpers';
import { failing, mcpClient, ok } from '../support/mcpHelpers';
import { codeFlow, REDIRECT_URI, registerClient, withPassword } from '../support/oauthHelpers';

/**
 * Spec MCP rule 2: `create_campaign` with aiParams and no agentId uses the connected agent (which
 * still needs an active integration for the channel), for every way an agent is connected.
 */
describe('create_campaign uses the connected agent', () => {
  const suite = useApiSuite('connected');
  let closer: string;
  let bare: string;
  let contactId: string;

  beforeAll(async () => {
    const { api, db, team } = suite;
    closer = (await createAgent(db, team.teamId, 'Closer')).uuid;
    bare = (await createAgent(db, team.teamId, 'Bare')).uuid;
    for (const agent of [team.agentId, closer]) {
      expect((await api.call('PUT', `/agents/${agent}/integrations/email`, { provider: 'sandbox' })).status).toBe(200);
    }
    expect((await api.call('PUT', '/apps/campaigns')).status).toBe(200);
    contactId = (await api.post('/contacts', { name: 'Ada Reader', email: 'ada.reader@example.com' })).body.id;
  });

  const campaign = (name: string) => ({
    name,
    channel: 'email',
    subject: 'Hi',
    content: '{{opener}} news for you',
    aiParams: { opener: 'A warm first line' },
    contactIds: [contactId],
  });

  /** An OAuth access token for {mcp_url} whose login chose `agent` on the consent page. */
  async function loginAs(agent: string) {
    const owner = await withPassword(suite.db, suite.team);
    const config = await registerClient(suite.server.url, {
      client_name: 'connected agent',
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: 'none',
    });
    const resource = suite.server.ctx.config.mcpEndpoint;
    const run = await codeFlow(config, owner, { resource }, { agent: `${suite.team.teamId}:${agent}` });
    return (
      await client.authorizationCodeGrant(
        config,
        run.callback!,
        { pkceCodeVerifier: run.verifier, expectedState: run.state },
        { resource },
      )
    ).access_token;
  }

  const ways: [string, (agent: string) => Promise<{ url: string; token: string }>][] = [
    [
      'an OAuth login (the agent chosen at consent)',
      async (agent) => ({ url: suite.server.ctx.config.mcpEndpoint, token: await loginAs(agent) }),
    ],
    [
      'an API token on /mcp/agents/{uuid}',
      async (agent) => ({ url: `${suite.server.ctx.config.mcpEndpoint}/agents/${agent}`, token: suite.team.token }),
    ],
    [
      'an API token on /mcp?agent=<uuid>',
      async (agent) => ({ url: `${suite.server.ctx.config.mcpEndpoint}?agent=${agent}`, token: suite.team.token }),
    ],
  ];

  it.each(ways)("%s: the campaign's agent is the connected one", async (way, connect) => {
    const { url, token } = await connect(closer);
    const mcp = await mcpClient(url, token);
    expect((await ok(mcp, 'svc_agent_info')).agent.uuid).toBe(closer);
    const created = await ok(mcp, 'create_campaign', campaign(`Via ${way}`));
    expect(created).toMatchObject({ status: 'draft', agentId: closer });
    expect((await suite.api.get(`/campaigns/${created.id}`)).body.agentId).toBe(closer);
    await mcp.close();
  });

  it("an API token on plain /mcp: the connected agent is the team's first, and the campaign gets it", async () => {
    const mcp = await mcpClient(suite.server.ctx.config.mcpEndpoint, suite.team.token);
    expect((await ok(mcp, 'svc_agent_info')).agent.uuid).toBe(suite.team.agentId);
    expect(await ok(mcp, 'create_campaign', campaign('Via API token'))).toMatchObject({ agentId: suite.team.agentId });
    await mcp.close();
  });

  it.each(ways)(
    '%s, as an agent without an email integration: ai_params_need_agent, and no campaign',
    async (way, connect) => {
      const { url, token } = await connect(bare);
      const mcp = await mcpClient(url, token);
      const before = (await suite.api.get('/campaigns?limit=100')).body.data.length;
      const error = await failing(mcp, 'create_campaign', campaign(`Bare via ${way}`));
      expect(error.code).toBe('ai_params_need_agent');
      expect((await suite.api.get('/campaigns?limit=100')).body.data.length).toBe(before);
      await mcp.close();
    },
  );
});
