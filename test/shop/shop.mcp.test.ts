import { failing, mcpClient, ok } from '../support/mcpHelpers';
import { useApiSuite } from '../support/helpers';

const SHOP_TOOLS = [
  'create_order',
  'create_product',
  'import_orders',
  'list_orders',
  'list_products',
  'update_product',
];

/** The Shop app over MCP: its tools are listed only while the app is installed, and they work. */
describe('shop MCP tools', () => {
  const suite = useApiSuite('shop-mcp');

  it('lists the shop tools only while the app is installed', async () => {
    const mcp = await mcpClient(suite.server.ctx.config.mcpEndpoint, suite.team.token);
    try {
      const names = async () => (await mcp.listTools()).tools.map((t) => t.name);
      const shopNames = async () => (await names()).filter((n) => SHOP_TOOLS.includes(n)).sort();
      expect(await shopNames()).toEqual([]);
      await expect(mcp.callTool({ name: 'list_products', arguments: {} })).rejects.toThrow(/shop app/);
      const installed = await suite.api.call('PUT', '/apps/shop');
      expect(installed.body).toMatchObject({ slug: 'shop', name: 'Shop', installed: true });
      expect(await shopNames()).toEqual(SHOP_TOOLS);
      await suite.api.call('DELETE', '/apps/shop');
      expect(await shopNames()).toEqual([]);
    } finally {
      await suite.api.call('DELETE', '/apps/shop');
      await mcp.close();
    }
  });

  it('creates products and orders, imports a CSV and lists them through the tools', async () => {
    const mcp = await mcpClient(suite.server.ctx.config.mcpEndpoint, suite.team.token);
    try {
      await suite.api.call('PUT', '/apps/shop');
      const contact = (await suite.api.post('/contacts', { name: 'Mo Mcp', email: 'mo@shop.example' })).body.id;
      const product = await ok(mcp, 'create_product', { name: 'Pen', sku: 'PEN', price: 3, currency: 'EUR' });
      expect(product).toMatchObject({ id: expect.stringMatching(/^prd_/), sku: 'PEN', currency: 'EUR' });
      expect((await ok(mcp, 'update_product', { productId: product.id, price: 4 })).price).toBe(4);
      expect((await ok(mcp, 'list_products', { active: true })).data.map((p: any) => p.sku)).toEqual(['PEN']);
      const order = await ok(mcp, 'create_order', {
        contactId: contact,
        items: [{ sku: 'PEN', quantity: 3 }],
        externalId: 'M-1',
      });
      expect(order).toMatchObject({ amount: 12, currency: 'EUR', created: true, contactId: contact });
      expect((await ok(mcp, 'create_order', { contactId: contact, amount: 1, externalId: 'M-1' })).created).toBe(false);
      const imported = await ok(mcp, 'import_orders', {
        csv: 'externalId,email,amount,currency\nM-2,mo@shop.example,8,EUR\nM-1,mo@shop.example,9,EUR\n',
      });
      expect(imported).toMatchObject({ created: 1, existing: 1, errors: [] });
      const listed = await ok(mcp, 'list_orders', { contactId: contact });
      expect(listed.data.map((o: any) => o.externalId)).toEqual(['M-2', 'M-1']);
      const refused = await failing(mcp, 'create_order', { contactId: contact, items: [{ sku: 'NOPE' }] });
      expect(refused.code).toBe('unknown_product');
    } finally {
      await suite.api.call('DELETE', '/apps/shop');
      await mcp.close();
    }
  });
});
