import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { upsertAutomationHook } from '../../services/hooks/systemHooks';
import { useApiSuite } from '../support/helpers';
import { failing, mcpClient, ok } from '../support/mcpHelpers';

/** The Board app's hook tools over the official MCP SDK client: offered once Board is installed. */
describe('hook tools over MCP', () => {
  const suite = useApiSuite('hooks-mcp');
  let mcp: Client;
  beforeAll(async () => {
    mcp = await mcpClient(suite.server.ctx.config.mcpEndpoint, suite.team.token);
  });
  afterAll(async () => {
    await mcp?.close();
  });
  const names = async () => (await mcp.listTools()).tools.map((t) => t.name);

  it('lists and runs the hook tools only once the Board app is installed', async () => {
    expect(await names()).not.toContain('list_hooks');
    await expect(mcp.callTool({ name: 'list_hooks', arguments: {} })).rejects.toThrow(/board app/i);
    expect((await suite.api.call('PUT', '/apps/board')).body).toMatchObject({ slug: 'board', installed: true });
    expect(await names()).toEqual(expect.arrayContaining(['list_hooks', 'create_hook', 'toggle_hook', 'delete_hook']));
    // Agent auth keys are made by people in the product, never by a tool.
    expect((await names()).filter((n) => /auth_key|agent_key/.test(n))).toEqual([]);
  });

  it('create_hook, list_hooks, toggle_hook, delete_hook on the connected agent; an automation’s hook is refused', async () => {
    const created = await ok(mcp, 'create_hook', {
      source: 'internal',
      event: 'contact.created',
      warp: 'artifact-create',
      inputs: { title: 'Welcome' },
      mapping: { contactId: '$.contact.id' },
    });
    expect(created.hook).toMatchObject({ agentId: suite.team.agentId, source: 'internal', enabled: true });
    expect(created.secret).toBeUndefined();
    const listed = await ok(mcp, 'list_hooks', { source: 'internal' });
    expect(listed.data.map((h: any) => h.id)).toContain(created.hook.id);
    expect((await ok(mcp, 'toggle_hook', { hookId: created.hook.id, enabled: false })).enabled).toBe(false);
    expect(await failing(mcp, 'create_hook', { source: 'inbound', event: 'shop', warp: 'nope' })).toMatchObject({
      code: 'unknown_warp',
    });

    const { hookId } = await upsertAutomationHook(suite.db, {
      teamId: suite.team.teamId,
      agentId: suite.team.agentId,
      source: 'internal',
      event: 'contact.created',
      automationId: `auto_mcp_${Date.now()}`,
      mapping: { email: '$.contact.email' },
    });
    expect((await failing(mcp, 'toggle_hook', { hookId, enabled: false })).code).toBe('system_owned_hook');
    expect((await failing(mcp, 'delete_hook', { hookId })).code).toBe('system_owned_hook');
    await suite.db('hooks').where({ id: hookId }).delete();

    expect(await ok(mcp, 'delete_hook', { hookId: created.hook.id })).toEqual({
      deleted: true,
      hookId: created.hook.id,
    });
    expect((await failing(mcp, 'delete_hook', { hookId: created.hook.id })).code).toBe('not_found');
  });
});
