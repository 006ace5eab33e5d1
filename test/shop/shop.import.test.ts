import { useApiSuite } from '../support/helpers';

/**
 * The CSV import of orders (POST /v1/orders/import): rows sharing an externalId make one order,
 * bad orders are reported by line while the good ones land, a re-run duplicates nothing, and the
 * imported orders count in the purchase conditions of segments.
 */
describe('shop order import', () => {
  const suite = useApiSuite('shop-import');
  let dana: string;
  let eve: string;

  beforeAll(async () => {
    dana = (await suite.api.post('/contacts', { name: 'Dana Import', email: 'dana@shop.example' })).body.id;
    eve = (await suite.api.post('/contacts', { name: 'Eve Import', email: 'eve@shop.example' })).body.id;
    await suite.api.post('/products', { name: 'Lamp', sku: 'LAMP', price: 40, currency: 'EUR' });
  });

  const csv = () =>
    [
      'externalId,email,contactId,amount,currency,orderedAt,sku,name,quantity,unitPrice',
      'S-1,DANA@shop.example,,,,2026-02-01T09:00:00Z,LAMP,,2,',
      'S-1,dana@shop.example,,,,,,Shipping,1,5',
      `S-2,,${eve},30,EUR,2026-05-10T09:00:00Z,,,,`,
      'S-3,dana@shop.example,,100,EUR,2026-06-01T00:00:00Z,,,,',
      ',dana@shop.example,,10,EUR,,,,,',
      'S-4,nobody@shop.example,,10,EUR,,,,,',
      'S-5,eve@shop.example,,,,,NOPE,,1,',
      'S-6,eve@shop.example,,abc,EUR,,,,,',
    ].join('\n');

  it('imports good rows, reports bad ones by line, and a re-run duplicates nothing', async () => {
    const first = await suite.api.post('/orders/import', { csv: csv() });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      rows: 8,
      orders: 6,
      created: 3,
      existing: 0,
      errors: [
        { line: 6, externalId: null, code: 'validation_error', message: 'externalId is required' },
        { line: 7, externalId: 'S-4', code: 'unknown_contact', message: expect.stringContaining('nobody@') },
        { line: 8, externalId: 'S-5', code: 'unknown_product', message: expect.any(String) },
        { line: 9, externalId: 'S-6', code: 'validation_error', message: expect.stringContaining('amount') },
      ],
    });
    const orders = (await suite.api.get(`/contacts/${dana}/orders`)).body.data;
    expect(orders.map((o: any) => o.externalId)).toEqual(['S-3', 'S-1']);
    expect(orders[1]).toMatchObject({
      amount: 85,
      currency: 'EUR',
      source: 'import',
      orderedAt: '2026-02-01T09:00:00.000Z',
      items: [
        { sku: 'LAMP', name: 'Lamp', quantity: 2, unitPrice: 40 },
        { productId: null, name: 'Shipping', quantity: 1, unitPrice: 5 },
      ],
    });

    const again = await suite.api.post('/orders/import', { csv: csv() });
    expect(again.body).toMatchObject({ created: 0, existing: 3 });
    expect(again.body.errors).toHaveLength(4);
    expect((await suite.api.get('/orders?limit=100')).body.data).toHaveLength(3);
  });

  it('refuses an empty or unparsable csv with 400', async () => {
    for (const body of [{}, { csv: '' }, { csv: 'externalId,email\n' }, { csv: 'a,b\n"unterminated,1' }]) {
      const res = await suite.api.post('/orders/import', body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
  });

  it('feeds the segment conditions with the imported orders', async () => {
    const members = async (conditions: unknown[]) => {
      const segment = await suite.api.post('/segments', { name: 'probe', groups: [{ match: 'all', conditions }] });
      const res = await suite.api.get(`/segments/${segment.body.id}/contacts?limit=100`);
      return res.body.data.map((c: { id: string }) => c.id).sort();
    };
    // Dana: 85 (Feb) + 100 (June); Eve: 30 (May).
    expect(await members([{ type: 'order_count_at_least', value: 2 }])).toEqual([dana]);
    expect(await members([{ type: 'total_order_amount', value: 185 }])).toEqual([dana]);
    expect(await members([{ type: 'avg_order_value_at_least', value: 30 }])).toEqual([dana, eve].sort());
    expect(await members([{ type: 'last_purchase_before', value: '2026-05-31' }])).toEqual([eve]);
    expect(await members([{ type: 'last_purchase_after', value: '2026-05-31' }])).toEqual([dana]);
    expect(await members([{ type: 'never_purchased' }])).toEqual([]);
  });
});
