import { failing, mcpClient, ok } from '../support/mcpHelpers';
import { useApiSuite } from '../support/helpers';

const WEBHOOK_TOOLS = ['get_webhook_settings', 'set_webhook_settings'];

/** The Webhooks app over MCP: its settings tools are listed while it is installed, and they validate as the API does. */
describe('webhook settings MCP tools', () => {
  const suite = useApiSuite('whsettings-mcp');

  it('lists the tools only while the app is installed; set and get the settings, bad input refused', async () => {
    const mcp = await mcpClient(suite.server.ctx.config.mcpEndpoint, suite.team.token);
    try {
      const webhookNames = async () =>
        (await mcp.listTools()).tools
          .map((t) => t.name)
          .filter((n) => WEBHOOK_TOOLS.includes(n))
          .sort();
      expect(await webhookNames()).toEqual([]);
      await expect(mcp.callTool({ name: 'get_webhook_settings', arguments: {} })).rejects.toThrow(/webhooks app/);
      await suite.api.call('PUT', '/apps/webhooks');
      expect(await webhookNames()).toEqual(WEBHOOK_TOOLS);

      expect(await ok(mcp, 'get_webhook_settings')).toMatchObject({ maxAttempts: 10, custom: false });
      expect(await ok(mcp, 'set_webhook_settings', { maxAttempts: 2, retryDelaysSeconds: [15] })).toMatchObject({
        maxAttempts: 2,
        retryDelaysSeconds: [15],
        custom: true,
      });
      expect((await failing(mcp, 'set_webhook_settings', { maxAttempts: 0 })).code).toBe('validation_error');
      expect((await failing(mcp, 'set_webhook_settings', { retryDelaysSeconds: [] })).code).toBe('validation_error');
      // The API reads what the tool wrote, unchanged by the refused calls.
      expect((await suite.api.get('/webhooks/settings')).body).toMatchObject({
        maxAttempts: 2,
        retryDelaysSeconds: [15],
      });
    } finally {
      await suite.api.call('DELETE', '/apps/webhooks');
      await mcp.close();
    }
  });
});
