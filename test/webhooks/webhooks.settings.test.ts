import { FakeWebhookReceiver } from '../fakes/webhookReceiver';
import { sleep, useApiSuite } from '../support/helpers';

/**
 * The Webhooks integration's retry settings over the HTTP API, against the shared worker: the app
 * in the catalog, GET/PUT/DELETE /webhooks/settings with their validation, and a receiver that
 * keeps failing getting exactly maxAttempts attempts on the team's schedule, each one listed.
 */
describe('outbound webhooks: the retry settings of the Webhooks integration', () => {
  const suite = useApiSuite('whsettings');
  let receiver: FakeWebhookReceiver;
  beforeAll(async () => {
    receiver = await new FakeWebhookReceiver().start();
  });
  afterAll(async () => {
    await receiver?.stop();
  });

  const DEFAULTS = { maxAttempts: 10, retryDelaysSeconds: [5, 30, 120, 600, 1800, 3600, 7200, 14_400, 21_600] };

  async function endpoint(path: string) {
    const created = await suite.api.post('/webhooks/endpoints', { url: receiver.url(path) });
    expect(created.status).toBe(201);
    receiver.setSecret(path, created.body.secret);
    return created.body.id as string;
  }

  /** The attempts of the endpoint's only delivery, once there are `count` of them. */
  async function attemptsOnce(endpointId: string, count: number, timeoutMs: number) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const [delivery] = (await suite.api.get(`/webhooks/endpoints/${endpointId}/deliveries`)).body.data;
      if (delivery) {
        const attempts = await suite.api.get(`/webhooks/endpoints/${endpointId}/deliveries/${delivery.id}/attempts`);
        // The delivery read again: the one above may predate the attempts just read (both are
        // written in one statement, but read in two requests).
        if (attempts.body.data.length >= count) {
          const [current] = (await suite.api.get(`/webhooks/endpoints/${endpointId}/deliveries`)).body.data;
          return { delivery: current, attempts: attempts.body.data as any[] };
        }
      }
      if (Date.now() > deadline) throw new Error(`fewer than ${count} attempts after ${timeoutMs} ms`);
      await sleep(200);
    }
  }

  it('the Webhooks app installs and uninstalls; the settings are the defaults until set, and installing changes none', async () => {
    expect((await suite.api.call('PUT', '/apps/webhooks')).body).toMatchObject({ slug: 'webhooks', installed: true });
    expect((await suite.api.get('/webhooks/settings')).body).toEqual({ ...DEFAULTS, custom: false, updatedAt: null });
    expect((await suite.api.call('DELETE', '/apps/webhooks')).body).toMatchObject({ installed: false });
  });

  it('PUT changes the settings (a field left out keeps its value), GET reads them, DELETE goes back to the defaults', async () => {
    const put = await suite.api.call('PUT', '/webhooks/settings', { maxAttempts: 4 });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ maxAttempts: 4, retryDelaysSeconds: DEFAULTS.retryDelaysSeconds, custom: true });
    expect(put.body.updatedAt).toEqual(expect.any(String));
    await suite.api.call('PUT', '/webhooks/settings', { retryDelaysSeconds: [2, 60] });
    expect((await suite.api.get('/webhooks/settings')).body).toMatchObject({
      maxAttempts: 4,
      retryDelaysSeconds: [2, 60],
      custom: true,
    });
    const reset = await suite.api.call('DELETE', '/webhooks/settings');
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({ ...DEFAULTS, custom: false, updatedAt: null });
  });

  it.each([
    ['maxAttempts 0', { maxAttempts: 0 }],
    ['maxAttempts over 25', { maxAttempts: 26 }],
    ['maxAttempts not an integer', { maxAttempts: 2.5 }],
    ['maxAttempts a string', { maxAttempts: '3' }],
    ['an empty schedule', { retryDelaysSeconds: [] }],
    ['a wait of 0 s', { retryDelaysSeconds: [0] }],
    ['a wait over a day', { retryDelaysSeconds: [86_401] }],
    ['25 waits', { retryDelaysSeconds: Array.from({ length: 25 }, () => 1) }],
    ['an unknown key', { maxAttempts: 3, backoff: 'exponential' }],
    ['no field', {}],
  ])('refuses %s with 400 validation_error, changing nothing', async (_, body) => {
    const res = await suite.api.call('PUT', '/webhooks/settings', body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_error' });
    expect((await suite.api.get('/webhooks/settings')).body.custom).toBe(false);
  });

  it('a receiver that keeps failing gets exactly maxAttempts attempts, after the configured waits, each listed', async () => {
    await suite.api.call('PUT', '/webhooks/settings', { maxAttempts: 3, retryDelaysSeconds: [1, 2] });
    const ep = await endpoint('/always-down');
    receiver.failWith503();
    try {
      await suite.api.post('/contacts', { name: 'Retry Me', email: `retry-${Date.now()}@example.com` });
      const { attempts } = await attemptsOnce(ep, 3, 30_000);
      // Long enough for a fourth attempt, were there one.
      await sleep(3000);
      const { delivery, attempts: after } = await attemptsOnce(ep, 3, 1000);
      expect(after).toHaveLength(3);
      expect(after.map((a) => [a.attempt, a.statusCode])).toEqual([
        [1, 503],
        [2, 503],
        [3, 503],
      ]);
      expect(delivery).toMatchObject({ status: 'failed', attempts: 3, lastStatusCode: 503, nextAttemptAt: null });
      const at = attempts.map((a) => new Date(a.createdAt).getTime());
      expect(at[1] - at[0]).toBeGreaterThanOrEqual(900);
      expect(at[1] - at[0]).toBeLessThan(4000);
      expect(at[2] - at[1]).toBeGreaterThanOrEqual(1900);
      expect(at[2] - at[1]).toBeLessThan(5000);
    } finally {
      await receiver.recover();
      await suite.api.call('DELETE', '/webhooks/settings');
      await suite.api.call('DELETE', `/webhooks/endpoints/${ep}`);
    }
  });

  it('maxAttempts 1: the first failure is final, nothing is retried', async () => {
    await suite.api.call('PUT', '/webhooks/settings', { maxAttempts: 1 });
    const ep = await endpoint('/once');
    receiver.failWith503();
    try {
      await suite.api.post('/contacts', { name: 'Once Only', email: `once-${Date.now()}@example.com` });
      await attemptsOnce(ep, 1, 30_000);
      await sleep(6500);
      const { delivery, attempts } = await attemptsOnce(ep, 1, 1000);
      expect(attempts.map((a) => a.attempt)).toEqual([1]);
      expect(delivery).toMatchObject({ status: 'failed', attempts: 1, nextAttemptAt: null });
    } finally {
      await receiver.recover();
      await suite.api.call('DELETE', '/webhooks/settings');
      await suite.api.call('DELETE', `/webhooks/endpoints/${ep}`);
    }
  });

  it('without settings the schedule is the default one: attempt 2 comes 5 s after the first', async () => {
    const ep = await endpoint('/defaults');
    receiver.failWith503();
    try {
      await suite.api.post('/contacts', { name: 'Default Schedule', email: `default-${Date.now()}@example.com` });
      const first = await attemptsOnce(ep, 1, 30_000);
      expect(first.delivery).toMatchObject({ status: 'pending', attempts: 1 });
      const wait = new Date(first.delivery.nextAttemptAt).getTime() - new Date(first.attempts[0].createdAt).getTime();
      expect(wait).toBeGreaterThan(4000);
      expect(wait).toBeLessThan(6500);
      const { attempts } = await attemptsOnce(ep, 2, 30_000);
      const gap = new Date(attempts[1].createdAt).getTime() - new Date(attempts[0].createdAt).getTime();
      expect(gap).toBeGreaterThanOrEqual(4900);
      expect(gap).toBeLessThan(9000);
    } finally {
      await receiver.recover();
      await suite.api.call('DELETE', `/webhooks/endpoints/${ep}`);
    }
  });
});
