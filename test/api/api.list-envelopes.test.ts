import { useApiSuite } from '../support/helpers';

/**
 * The six lists that answered `{ data }` alone (issue 38 item 9) now answer the spec's envelope,
 * `{ data, pagination: { nextCursor, limit } }`, and page with `limit` and `cursor` as every list does.
 */
describe('every list answers data and pagination', () => {
  const suite = useApiSuite('envelopes');
  const agentPath = (rest: string) => `/agents/${suite.team.agentId}${rest}`;

  /** Every item of a list, read `limit` at a time by following nextCursor; each page is the envelope. */
  async function readAll(path: string, limit: number): Promise<{ pages: number; items: any[] }> {
    const items: any[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const joiner = path.includes('?') ? '&' : '?';
      const res: { status: number; body: any } = await suite.api.get(
        `${path}${joiner}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      expect(Object.keys(res.body).sort()).toEqual(['data', 'pagination']);
      expect(res.body.pagination.limit).toBe(limit);
      expect(res.body.pagination.nextCursor === null || typeof res.body.pagination.nextCursor === 'string').toBe(true);
      expect(res.body.data.length).toBeLessThanOrEqual(limit);
      items.push(...res.body.data);
      cursor = res.body.pagination.nextCursor;
      pages++;
    } while (cursor && pages < 20);
    return { pages, items };
  }

  it("an agent's integrations, by channel", async () => {
    for (const channel of ['sms', 'email', 'push'])
      expect((await suite.api.call('PUT', agentPath(`/integrations/${channel}`), { provider: 'sandbox' })).status).toBe(
        200,
      );
    const { pages, items } = await readAll(agentPath('/integrations'), 2);
    expect(pages).toBe(2);
    expect(items.map((i) => i.channel)).toEqual(['email', 'push', 'sms']);
    expect((await suite.api.get(agentPath('/integrations'))).body.pagination).toEqual({ nextCursor: null, limit: 25 });
  });

  it("an agent's secrets, by key (never values)", async () => {
    for (const key of ['C_KEY', 'A_KEY', 'B_KEY'])
      expect((await suite.api.call('PUT', agentPath(`/secrets/${key}`), { value: `v-${key}` })).status).toBe(200);
    const { pages, items } = await readAll(agentPath('/secrets'), 2);
    expect(pages).toBe(2);
    expect(items.map((s) => s.key)).toEqual(['A_KEY', 'B_KEY', 'C_KEY']);
    expect(JSON.stringify(items)).not.toContain('v-');
  });

  it('the native apps, in the catalog order', async () => {
    const whole = await suite.api.get('/apps');
    expect(whole.body.pagination).toEqual({ nextCursor: null, limit: 25 });
    const { pages, items } = await readAll('/apps', 2);
    expect(pages).toBe(Math.ceil(whole.body.data.length / 2));
    expect(items).toEqual(whole.body.data);
  });

  it("an agent's auth keys, newest first", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await suite.api.post(agentPath('/auth-keys'))).body.id);
    const { pages, items } = await readAll(agentPath('/auth-keys'), 2);
    expect(pages).toBe(2);
    expect(items.map((k) => k.id)).toEqual(ids.reverse());
  });

  it("an agent's memory search, best first, with or without a query", async () => {
    for (const [content, importance] of [
      ['Ada likes green tea', 5],
      ['Ada prefers invoices by email', 4],
      ['Ada works in London', 3],
    ] as const)
      expect((await suite.api.post(agentPath('/memories'), { content, importance })).status).toBe(201);
    const top = await readAll(agentPath('/memories'), 2);
    expect(top.pages).toBe(2);
    expect(top.items.map((m) => m.content)).toEqual([
      'Ada likes green tea',
      'Ada prefers invoices by email',
      'Ada works in London',
    ]);
    const found = await readAll(agentPath('/memories?q=ada'), 1);
    expect(found.items).toHaveLength(3);
    expect(new Set(found.items.map((m) => m.id)).size).toBe(3);
    expect((await suite.api.get(agentPath('/memories?q=ada'))).body.pagination).toEqual({
      nextCursor: null,
      limit: 10,
    });
  });

  it("a webhook delivery's attempts, in order", async () => {
    // Disabled: nothing of this suite is sent to it; the test environment allows a loopback URL.
    const endpoint = await suite.api.post('/webhooks/endpoints', { url: 'http://127.0.0.1:9/hook', enabled: false });
    expect(endpoint.status).toBe(201);
    // A delivery with three recorded attempts, written as the delivery workflow writes them
    // (workflow_started_at set: the dispatcher leaves it alone).
    const eventId = `evt_envelopes_${Date.now()}`;
    await suite.db('platform_events').insert({
      id: eventId,
      team_id: suite.team.teamId,
      type: 'contact.created',
      data: {},
      dispatched_at: new Date(),
    });
    const deliveryId = `whd_envelopes_${Date.now()}`;
    await suite.db('webhook_deliveries').insert({
      id: deliveryId,
      team_id: suite.team.teamId,
      endpoint_id: endpoint.body.id,
      event_id: eventId,
      event_type: 'contact.created',
      status: 'delivered',
      attempts: 3,
      workflow_started_at: new Date(),
    });
    await suite.db('webhook_attempts').insert(
      [503, null, 204].map((statusCode, i) => ({
        delivery_id: deliveryId,
        attempt: i + 1,
        team_id: suite.team.teamId,
        status_code: statusCode,
        error: statusCode === 204 ? null : 'failed',
        duration_ms: 5,
      })),
    );
    const { pages, items } = await readAll(
      `/webhooks/endpoints/${endpoint.body.id}/deliveries/${deliveryId}/attempts`,
      2,
    );
    expect(pages).toBe(2);
    expect(items.map((a) => [a.attempt, a.statusCode])).toEqual([
      [1, 503],
      [2, null],
      [3, 204],
    ]);
  });
});
