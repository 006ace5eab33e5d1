import { useApiSuite } from '../support/helpers';

/** The Shop app's catalog over HTTP: create, list (with `active`), read, change, delete, and what is refused. */
describe('shop products API', () => {
  const suite = useApiSuite('shop-products');

  it('creates, lists, reads, changes and deletes products', async () => {
    const created = await suite.api.post('/products', { name: 'Mug', sku: 'MUG-1', price: 12.5, currency: 'eur' });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${suite.server.baseUrl}/products/${created.body.id}`);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^prd_/),
      name: 'Mug',
      sku: 'MUG-1',
      description: null,
      price: 12.5,
      currency: 'EUR',
      active: true,
    });
    const tee = (
      await suite.api.post('/products', { name: 'Tee', sku: 'TEE', price: 20, currency: 'EUR', active: false })
    ).body;
    const page = await suite.api.get('/products?limit=1');
    expect(page.body.data.map((p: any) => p.id)).toEqual([created.body.id]);
    const next = await suite.api.get(`/products?limit=1&cursor=${page.body.pagination.nextCursor}`);
    expect(next.body).toEqual({
      data: [expect.objectContaining({ id: tee.id })],
      pagination: { nextCursor: null, limit: 1 },
    });
    expect((await suite.api.get('/products?active=false')).body.data.map((p: any) => p.id)).toEqual([tee.id]);

    const changed = await suite.api.call('PATCH', `/products/${created.body.id}`, {
      price: 14,
      description: 'Stoneware',
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ price: 14, description: 'Stoneware', sku: 'MUG-1' });
    expect((await suite.api.get(`/products/${created.body.id}`)).body.price).toBe(14);
    expect((await suite.api.call('DELETE', `/products/${tee.id}`)).status).toBe(204);
    expect((await suite.api.get(`/products/${tee.id}`)).status).toBe(404);
    expect((await suite.api.call('DELETE', `/products/${tee.id}`)).status).toBe(404);
  });

  it('refuses bad input with 400 validation_error and a taken sku with 409, never 500', async () => {
    const bad = [
      {},
      { name: 'X', sku: 'X', price: -1, currency: 'EUR' },
      { name: 'X', sku: 'X', price: 1, currency: 'euro' },
      { name: 'X', sku: 'has space', price: 1, currency: 'EUR' },
      { name: '', sku: 'X', price: 1, currency: 'EUR' },
      { name: 'X', sku: 'X', price: '1', currency: 'EUR' },
      { name: 'X', sku: 'X', price: 1, currency: 'EUR', colour: 'red' },
    ];
    for (const body of bad) {
      const res = await suite.api.post('/products', body);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'validation_error', details: { issues: expect.any(Array) } });
    }
    await suite.api.post('/products', { name: 'Cap', sku: 'CAP', price: 9, currency: 'USD' });
    const taken = await suite.api.post('/products', { name: 'Cap 2', sku: 'CAP', price: 9, currency: 'USD' });
    expect(taken.status).toBe(409);
    expect(taken.body.error).toMatchObject({ code: 'conflict', details: { sku: 'CAP' } });
    const other = (await suite.api.post('/products', { name: 'Hat', sku: 'HAT', price: 9, currency: 'USD' })).body;
    expect((await suite.api.call('PATCH', `/products/${other.id}`, { sku: 'CAP' })).status).toBe(409);
    expect((await suite.api.call('PATCH', `/products/${other.id}`, { price: null })).status).toBe(400);
    expect((await suite.api.get('/products?active=maybe')).status).toBe(400);
    expect((await suite.api.get('/products/prd_nope')).body.error.code).toBe('not_found');
  });
});
