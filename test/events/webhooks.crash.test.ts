import { FakeWebhookReceiver } from '../fakes/webhookReceiver';
import { apiClient, ApiClient, newTeam, sleep } from '../support/helpers';
import { useOwnDatabase } from '../support/ownDatabase';

/**
 * Crashes and outages, against real worker processes. The suite has a database and a task queue
 * of its own, so that only the workers it starts (and kills) dispatch and deliver its events:
 * the shared worker serves the shared database.
 */
describe('outbound webhooks across crashes and outages', () => {
  const taskQueue = `webhooks-crash-${process.pid}`;
  const stack = useOwnDatabase('events', taskQueue);
  let receiver: FakeWebhookReceiver;
  beforeAll(async () => {
    receiver = await new FakeWebhookReceiver().start();
  });
  afterAll(async () => {
    await receiver?.stop();
  });

  async function teamWithEndpoint(path: string): Promise<{ api: ApiClient; endpointId: string }> {
    const api = apiClient(stack.server.baseUrl, await newTeam(stack.db, 'wh-crash'));
    const created = await api.post('/webhooks/endpoints', { url: receiver.url(path), eventTypes: ['contact.created'] });
    expect(created.status).toBe(201);
    receiver.setSecret(path, created.body.secret);
    return { api, endpointId: created.body.id };
  }

  async function createContacts(api: ApiClient, n: number, tag: string): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const res = await api.post('/contacts', { name: `${tag} ${i}`, email: `${tag}-${i}-${Date.now()}@example.com` });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    return ids;
  }

  /** Every contact's contact.created arrived, verified, exactly once (one webhook-id each, no repeat). */
  function expectEachOnce(path: string, contactIds: string[]) {
    const got = receiver.forPath(path);
    expect(got.map((r) => r.data.contact.id).sort()).toEqual([...contactIds].sort());
    expect(receiver.distinctIds(path)).toHaveLength(contactIds.length);
    expect(got.every((r) => r.type === 'contact.created')).toBe(true);
  }

  it('contact.created is recorded with the contact and dispatched exactly once, though no worker ran at the insert (two start at once)', async () => {
    const { api, endpointId } = await teamWithEndpoint('/late');
    const ids = await createContacts(api, 6, 'late');
    // The contacts committed with their events; nothing has dispatched them yet.
    const events = await stack.db('platform_events').whereIn('subject', ids);
    expect(events).toHaveLength(6);
    expect(events.every((e) => e.type === 'contact.created' && e.dispatched_at === null)).toBe(true);

    // Two workers race for the same outbox rows (FOR UPDATE SKIP LOCKED; deterministic delivery ids).
    await Promise.all([stack.startWorker(), stack.startWorker()]);
    await receiver.waitFor(() => receiver.forPath('/late').length >= 6, 60_000);
    await sleep(1500);
    expectEachOnce('/late', ids);
    expect(await stack.db('platform_events').whereIn('subject', ids).whereNull('dispatched_at')).toEqual([]);
    const deliveries = await stack.db('webhook_deliveries').where({ endpoint_id: endpointId });
    expect(deliveries).toHaveLength(6);
    expect(deliveries.every((d) => d.status === 'delivered' && d.attempts === 1)).toBe(true);
  });

  it('a receiver that refuses connections for a while gets every event once it is back', async () => {
    const { api, endpointId } = await teamWithEndpoint('/flaky');
    await receiver.goDown();
    const ids = await createContacts(api, 5, 'flaky');
    // Every delivery has failed its first attempt (connection refused) and waits for its next.
    await waitFor(async () => {
      const rows = await stack.db('webhook_deliveries').where({ endpoint_id: endpointId });
      return rows.length === 5 && rows.every((d) => d.attempts >= 1);
    });
    const first = await api.get(`/webhooks/endpoints/${endpointId}/deliveries?status=pending`);
    expect(first.body.data).toHaveLength(5);
    expect(first.body.data[0]).toMatchObject({
      lastStatusCode: null,
      lastError: expect.stringContaining('ECONNREFUSED'),
    });
    await receiver.recover();
    await receiver.waitFor(() => receiver.distinctIds('/flaky').length >= 5, 60_000);
    expectEachOnce('/flaky', ids);
    await waitFor(async () =>
      (await stack.db('webhook_deliveries').where({ endpoint_id: endpointId })).every((d) => d.status === 'delivered'),
    );
    const attempts = await api.get(`/webhooks/endpoints/${endpointId}/deliveries/${first.body.data[0].id}/attempts`);
    expect(attempts.body.data.map((a: any) => a.statusCode)).toEqual([null, 204]);
  });

  it('a worker SIGKILLed while deliveries wait to retry: a new worker delivers every event once, verified', async () => {
    const { api, endpointId } = await teamWithEndpoint('/killed');
    receiver.failWith503();
    const ids = await createContacts(api, 4, 'killed');
    await waitFor(async () => {
      const rows = await stack.db('webhook_deliveries').where({ endpoint_id: endpointId });
      return rows.length === 4 && rows.every((d) => d.attempts >= 1 && d.last_status_code === 503);
    });
    await stack.killWorkers();
    await receiver.recover();
    await stack.startWorker();
    await receiver.waitFor(() => receiver.distinctIds('/killed').length >= 4, 90_000);
    await waitFor(async () =>
      (await stack.db('webhook_deliveries').where({ endpoint_id: endpointId })).every((d) => d.status === 'delivered'),
    );
    expectEachOnce('/killed', ids);
    const delivered = await api.get(`/webhooks/endpoints/${endpointId}/deliveries?status=delivered`);
    expect(delivered.body.data).toHaveLength(4);
    const attempts = await api.get(
      `/webhooks/endpoints/${endpointId}/deliveries/${delivered.body.data[0].id}/attempts`,
    );
    expect(attempts.body.data[0]).toMatchObject({ attempt: 1, statusCode: 503, error: 'HTTP 503' });
    expect(attempts.body.data.at(-1)).toMatchObject({ statusCode: 204, error: null });
  });
});

async function waitFor(done: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(200);
  }
}
