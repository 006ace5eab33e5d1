import { useApiSuite } from '../support/helpers';

/**
 * Orders of the Shop app over HTTP: items (product refs and free lines), currency, the external id
 * that makes a repeat answer the recorded order, the lists per contact and per team, and the
 * purchase conditions of segments and the audience preview counting them.
 */
describe('shop orders API', () => {
  const suite = useApiSuite('shop-orders');
  let ann: string;
  let bob: string;
  let mug: string;

  beforeAll(async () => {
    ann = (await suite.api.post('/contacts', { name: 'Ann Order', email: 'ann@shop.example' })).body.id;
    bob = (await suite.api.post('/contacts', { name: 'Bob Browser', email: 'bob@shop.example' })).body.id;
    mug = (await suite.api.post('/products', { name: 'Mug', sku: 'MUG', price: 12.5, currency: 'EUR' })).body.id;
    await suite.api.post('/products', { name: 'Old', sku: 'OLD', price: 1, currency: 'EUR', active: false });
    await suite.api.post('/products', { name: 'Dollar cap', sku: 'CAP', price: 5, currency: 'USD' });
  });

  it('records an order with product and free lines, totals it in the products currency, and lists it', async () => {
    const created = await suite.api.post(`/contacts/${ann}/orders`, {
      items: [
        { productId: mug, quantity: 2 },
        { sku: 'MUG', unitPrice: 10 },
        { name: 'Gift wrap', unitPrice: 2.25 },
      ],
      orderedAt: '2026-03-01T10:00:00Z',
      externalId: 'A-1001',
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^ord_/),
      contactId: ann,
      externalId: 'A-1001',
      amount: 37.25,
      currency: 'EUR',
      items: [
        { productId: mug, sku: 'MUG', name: 'Mug', quantity: 2, unitPrice: 12.5 },
        { productId: mug, sku: 'MUG', name: 'Mug', quantity: 1, unitPrice: 10 },
        { productId: null, sku: null, name: 'Gift wrap', quantity: 1, unitPrice: 2.25 },
      ],
      orderedAt: '2026-03-01T10:00:00.000Z',
      source: 'api',
    });
    const again = await suite.api.post(`/contacts/${ann}/orders`, { amount: 1, externalId: 'A-1001' });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(created.body.id);

    // The endpoint as it was before the Shop app: an amount alone, in the default currency.
    const plain = await suite.api.post(`/contacts/${ann}/orders`, { amount: 50, orderedAt: '2026-04-01T00:00:00Z' });
    expect(plain.status).toBe(201);
    expect(plain.body).toMatchObject({ amount: 50, currency: 'USD', items: [], externalId: null });
    const team = await suite.api.post('/orders', { contactId: bob, amount: 5, currency: 'gbp' });
    expect(team.status).toBe(201);
    expect(team.headers.get('location')).toBe(`${suite.server.baseUrl}/orders/${team.body.id}`);
    expect(team.body).toMatchObject({ contactId: bob, currency: 'GBP' });

    const annOrders = await suite.api.get(`/contacts/${ann}/orders?limit=1`);
    expect(annOrders.body.data.map((o: any) => o.id)).toEqual([plain.body.id]);
    const annNext = await suite.api.get(`/contacts/${ann}/orders?cursor=${annOrders.body.pagination.nextCursor}`);
    expect(annNext.body.data.map((o: any) => o.id)).toEqual([created.body.id]);
    const all = await suite.api.get('/orders');
    expect(all.body.data.map((o: any) => o.id)).toEqual([team.body.id, plain.body.id, created.body.id]);
    expect((await suite.api.get(`/orders?contactId=${bob}`)).body.data.map((o: any) => o.id)).toEqual([team.body.id]);
    expect((await suite.api.get(`/orders/${team.body.id}`)).body.amount).toBe(5);
    expect((await suite.api.call('DELETE', `/orders/${team.body.id}`)).status).toBe(204);
    expect((await suite.api.get(`/orders/${team.body.id}`)).status).toBe(404);
  });

  it('refuses bad orders with 400 or 422 in the error envelope', async () => {
    const cases: [string, unknown, number, string][] = [
      [`/contacts/${ann}/orders`, {}, 400, 'validation_error'],
      [`/contacts/${ann}/orders`, { items: [] }, 400, 'validation_error'],
      [`/contacts/${ann}/orders`, { items: [{ name: 'Free line' }] }, 400, 'validation_error'],
      [`/contacts/${ann}/orders`, { items: [{ sku: 'MUG', quantity: 0 }] }, 400, 'validation_error'],
      [`/contacts/${ann}/orders`, { amount: 1, currency: 'EURO' }, 400, 'validation_error'],
      [`/contacts/${ann}/orders`, { items: [{ sku: 'NOPE' }] }, 422, 'unknown_product'],
      [`/contacts/${ann}/orders`, { items: [{ sku: 'OLD' }] }, 422, 'product_inactive'],
      [`/contacts/${ann}/orders`, { items: [{ sku: 'MUG' }, { sku: 'CAP' }] }, 422, 'currency_mismatch'],
      [`/contacts/${ann}/orders`, { items: [{ sku: 'MUG' }], currency: 'USD' }, 422, 'currency_mismatch'],
      ['/contacts/ct_nope/orders', { amount: 1 }, 404, 'not_found'],
      ['/orders', { amount: 1 }, 400, 'validation_error'],
    ];
    for (const [path, body, status, code] of cases) {
      const res = await suite.api.post(path, body);
      expect([path, body, res.status, res.body.error?.code]).toEqual([path, body, status, code]);
    }
    expect((await suite.api.get('/contacts/ct_nope/orders')).status).toBe(404);
  });

  it('feeds the purchase conditions of segments and the audience preview', async () => {
    const carl = (await suite.api.post('/contacts', { name: 'Carl Never', email: 'carl@shop.example' })).body.id;
    const members = async (conditions: unknown[]) => {
      const segment = await suite.api.post('/segments', { name: 'probe', groups: [{ match: 'all', conditions }] });
      expect(segment.status).toBe(201);
      const res = await suite.api.get(`/segments/${segment.body.id}/contacts?limit=100`);
      return { segmentId: segment.body.id, ids: res.body.data.map((c: { id: string }) => c.id).sort() };
    };
    // Ann: 37.25 (March) + 50 (April); Bob: his order was deleted above; Carl: none.
    expect((await members([{ type: 'never_purchased' }])).ids).toEqual([bob, carl].sort());
    expect((await members([{ type: 'order_count_at_least', value: 2 }])).ids).toEqual([ann]);
    expect((await members([{ type: 'total_order_amount', value: 87.25 }])).ids).toEqual([ann]);
    expect((await members([{ type: 'total_order_amount', value: 87.26 }])).ids).toEqual([]);
    expect((await members([{ type: 'avg_order_value_at_least', value: 43 }])).ids).toEqual([ann]);
    expect((await members([{ type: 'last_purchase_after', value: '2026-03-15' }])).ids).toEqual([ann]);
    expect((await members([{ type: 'last_purchase_before', value: '2026-03-15' }])).ids).toEqual([]);
    const buyers = await members([{ type: 'order_count_at_least', value: 1 }]);
    const preview = await suite.api.post('/campaigns/audience-preview', {
      channel: 'email',
      segmentId: buyers.segmentId,
    });
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({ total: 1 });
  });
});
