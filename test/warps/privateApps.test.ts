import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { apiClient, newTeam, sleep, useApiSuite } from '../support/helpers';
import { failing, mcpClient, ok } from '../support/mcpHelpers';

/**
 * Private apps (issue 16 § 1, create_private_app): private warps bundled at {mcp_url}/apps/{appSlug},
 * whose tools/list is those warps and whose calls run them through execute; over the SDK client.
 */
describe('private apps', () => {
  const suite = useApiSuite('papps');
  let mcp: Client;
  let mcpUrl: string;
  const headers = () => ({ 'x-team-slug': suite.team.slug });

  beforeAll(async () => {
    mcpUrl = suite.server.ctx.config.mcpEndpoint;
    mcp = await mcpClient(mcpUrl, suite.team.token, headers());
    for (const warp of [
      {
        name: 'tag-contact',
        description: 'Marks a contact as a VIP.',
        inputs: { contactId: 'string' },
        steps: [{ tool: 'set_contact_property', input: { contactId: '$.inputs.contactId', key: 'vip', value: true } }],
      },
      { name: 'pause-a-moment', steps: [{ wait: '1s' }] },
      { name: 'not-in-the-app', steps: [{ wait: '1s' }] },
    ])
      expect((await suite.api.post('/warps/private', warp)).status).toBe(201);
  });
  afterAll(async () => {
    await mcp?.close();
  });

  it('create_private_app: the warps of the team, a slug of its own; a retry answers the same app', async () => {
    const body = { slug: 'crm-helpers', name: 'CRM helpers', warps: ['tag-contact', 'pause-a-moment'] };
    const made = await ok(mcp, 'create_private_app', body);
    expect(made).toMatchObject({
      created: true,
      app: { slug: 'crm-helpers', name: 'CRM helpers', warps: body.warps, url: `${mcpUrl}/apps/crm-helpers` },
    });
    expect(await ok(mcp, 'create_private_app', body)).toMatchObject({ created: false, app: { id: made.app.id } });
    expect(await failing(mcp, 'create_private_app', { ...body, warps: ['tag-contact'] })).toMatchObject({
      code: 'conflict',
    });
    expect(await failing(mcp, 'create_private_app', { ...body, slug: 'campaigns' })).toMatchObject({
      code: 'conflict',
    });
    expect(await failing(mcp, 'create_private_app', { ...body, slug: 'other', warps: ['nope'] })).toMatchObject({
      code: 'unknown_private_warp',
      details: { warps: ['nope'] },
    });
    expect(await failing(mcp, 'create_private_app', { ...body, slug: 'Bad Slug' })).toMatchObject({
      code: 'validation_error',
    });
    const listed = await suite.api.get('/private-apps');
    expect(listed.body.data.map((a: any) => a.slug)).toEqual(['crm-helpers']);
  });

  it('/mcp/apps/{appSlug} lists its warps as tools and runs one through execute', async () => {
    const app = await mcpClient(`${mcpUrl}/apps/crm-helpers`, suite.team.token, headers());
    const tools = (await app.listTools()).tools;
    expect(tools.map((t) => t.name)).toEqual(['tag-contact', 'pause-a-moment', 'check_warp_executions']);
    expect(tools[0]).toMatchObject({
      description: expect.stringContaining('Marks a contact as a VIP.'),
      inputSchema: { type: 'object', required: ['contactId'], additionalProperties: false },
    });

    const contact = (await suite.api.post('/contacts', { name: 'Vera Vip', email: `vera-${Date.now()}@example.test` }))
      .body;
    const run = await ok(app, 'tag-contact', { contactId: contact.id });
    expect(run).toMatchObject({ executionId: expect.stringMatching(/^wx_/), warp: 'tag-contact', status: 'running' });
    let execution: any;
    for (let i = 0; i < 100; i++) {
      [execution] = (await ok(app, 'check_warp_executions', { executionIds: [run.executionId] })).executions;
      if (execution.status !== 'running') break;
      await sleep(150);
    }
    expect(execution.status).toBe('succeeded');
    expect((await suite.api.get(`/contacts/${contact.id}`)).body.properties).toMatchObject({ vip: true });

    expect(await failing(app, 'tag-contact', {})).toMatchObject({ code: 'validation_error' });
    await expect(app.callTool({ name: 'not-in-the-app', arguments: {} })).rejects.toThrow(/Unknown tool/);
    await expect(app.callTool({ name: 'execute', arguments: { warp: 'not-in-the-app' } })).rejects.toThrow(
      /Unknown tool/,
    );
    await app.close();
  });

  it('another team gets 404 for our app; a removed app is 404', async () => {
    const other = await newTeam(suite.db, 'papps-other');
    const post = (token: string, slug: string, app: string) =>
      fetch(`${mcpUrl}/apps/${app}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'x-team-slug': slug,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    const theirs = await post(other.token, other.slug, 'crm-helpers');
    expect(theirs.status).toBe(404);
    expect(((await theirs.json()) as any).error.code).toBe('not_found');
    expect((await apiClient(suite.server.baseUrl, other).call('DELETE', '/private-apps/crm-helpers')).status).toBe(404);

    expect((await suite.api.call('DELETE', '/private-apps/crm-helpers')).status).toBe(204);
    expect((await post(suite.team.token, suite.team.slug, 'crm-helpers')).status).toBe(404);
  });
});
