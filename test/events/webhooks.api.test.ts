import { privateWebhookUrlsAllowed } from '../../config';
import { checkWebhookUrl } from '../../services/webhooks/urlGuard';
import { FakeWebhookReceiver } from '../fakes/webhookReceiver';
import { TeamSlugKey } from '../../temporal/searchAttributes';
import { webhookBatchWorkflowId } from '../../workflows/contracts/webhookBatch';
import { apiClient, newTeam, startTestApi, temporalClient, testDb, useApiSuite } from '../support/helpers';

/**
 * Outbound webhooks over the HTTP API, against the shared worker: endpoints, signed events that
 * the receiver verifies with the standardwebhooks library, delivery and attempt lists, bad input,
 * another team's ids, and the SSRF guard.
 */
describe('outbound webhooks: endpoints and signed events', () => {
  const suite = useApiSuite('webhooks');
  let receiver: FakeWebhookReceiver;
  beforeAll(async () => {
    receiver = await new FakeWebhookReceiver().start();
  });
  afterAll(async () => {
    await receiver?.stop();
  });

  async function endpoint(path: string, extra: Record<string, unknown> = {}) {
    const created = await suite.api.post('/webhooks/endpoints', { url: receiver.url(path), ...extra });
    expect(created.status).toBe(201);
    receiver.setSecret(path, created.body.secret);
    return created.body as { id: string; secret: string };
  }

  it('an endpoint receives contact.created, signed and verified, with its extra headers; the delivery and its attempt are listed', async () => {
    const ep = await endpoint('/created', { headers: { 'X-Tenant': 'acme' }, eventTypes: ['contact.created'] });
    expect(ep.secret).toMatch(/^whsec_/);
    const contact = await suite.api.post('/contacts', { name: 'Ada Lovelace', email: `ada-${Date.now()}@example.com` });
    expect(contact.status).toBe(201);

    await receiver.waitFor(() => receiver.forPath('/created').length >= 1);
    const [got] = receiver.forPath('/created');
    expect(got).toMatchObject({
      type: 'contact.created',
      data: { contact: { id: contact.body.id, name: 'Ada Lovelace' } },
    });
    expect(got.headers['x-tenant']).toBe('acme');
    expect(new Date(got.timestamp).getTime()).not.toBeNaN();

    const deliveries = await suite.api.get(`/webhooks/endpoints/${ep.id}/deliveries`);
    expect(deliveries.status).toBe(200);
    await waitUntil(
      async () => (await suite.api.get(`/webhooks/endpoints/${ep.id}/deliveries`)).body.data[0]?.status === 'delivered',
    );
    const [delivery] = (await suite.api.get(`/webhooks/endpoints/${ep.id}/deliveries?status=delivered`)).body.data;
    expect(delivery).toMatchObject({
      id: got.id,
      eventType: 'contact.created',
      status: 'delivered',
      attempts: 1,
      lastStatusCode: 204,
    });
    const attempts = await suite.api.get(`/webhooks/endpoints/${ep.id}/deliveries/${delivery.id}/attempts`);
    expect(attempts.status).toBe(200);
    expect(attempts.body.data).toEqual([expect.objectContaining({ attempt: 1, statusCode: 204, error: null })]);
    expect(attempts.body.data[0].durationMs).toBeGreaterThanOrEqual(0);
    // Its batch holds this team's deliveries only, and its workflow carries the team.
    const { batch_id: batchId } = await suite.db('webhook_deliveries').where({ id: delivery.id }).first('batch_id');
    expect(await suite.db('webhook_deliveries').where({ batch_id: batchId }).distinct('team_id')).toEqual([
      { team_id: suite.team.teamId },
    ]);
    const client = await temporalClient();
    const batch = await client.workflow.getHandle(webhookBatchWorkflowId(batchId)).describe();
    await client.connection.close();
    expect(batch.typedSearchAttributes.get(TeamSlugKey)).toBe(suite.team.slug);
  });

  it('an endpoint gets only the types it asked for; a disabled one gets nothing; the secret is never listed', async () => {
    const updates = await endpoint('/updates', { eventTypes: ['contact.updated'] });
    const off = await endpoint('/off', { enabled: false });
    const id = (await suite.api.post('/contacts', { name: 'Bob Stone' })).body.id;
    expect((await suite.api.call('PATCH', `/contacts/${id}`, { company: 'Stone Ltd' })).status).toBe(200);
    await receiver.waitFor(() => receiver.forPath('/updates').length >= 1);
    expect(receiver.forPath('/updates').map((r) => [r.type, r.data.contact.id, r.data.contact.company])).toEqual([
      ['contact.updated', id, 'Stone Ltd'],
    ]);
    expect(receiver.forPath('/off')).toEqual([]);

    const listed = await suite.api.get('/webhooks/endpoints');
    expect(listed.body.data.map((e: any) => e.id)).toEqual(expect.arrayContaining([updates.id, off.id]));
    expect(JSON.stringify(listed.body)).not.toContain('whsec_');
    expect((await suite.api.get(`/webhooks/endpoints/${off.id}`)).body).toMatchObject({
      enabled: false,
      eventTypes: [],
    });
  });

  it('artifact.sent and campaign.completed reach the endpoint after a delivery and a campaign send', async () => {
    await endpoint('/business', { eventTypes: ['artifact.sent', 'campaign.completed'] });
    const { api, team } = suite;
    await api.call('PUT', `/agents/${team.agentId}/integrations/email`, { provider: 'sandbox' });
    const contactId = (await api.post('/contacts', { name: 'Grace Hopper', email: `grace-${Date.now()}@example.com` }))
      .body.id;
    const artifactId = (
      await api.post('/artifacts', {
        title: 'Offer',
        type: 'offer',
        url: 'https://example.com/o',
        contactId,
        status: 'ready',
      })
    ).body.id;
    const sent = await api.post('/artifacts/deliver', {
      artifactIds: [artifactId],
      message: 'Here',
      integration: 'email',
    });
    expect(sent.status).toBe(200);
    await api.call('PATCH', `/contacts/${contactId}`, { marketingConsent: 'granted' });
    const campaignId = (
      await api.post('/campaigns', { name: 'News', channel: 'email', content: 'Hi', contactIds: [contactId] })
    ).body.id;
    expect((await api.post(`/campaigns/${campaignId}/send`, {})).status).toBeLessThan(300);

    await receiver.waitFor(() => receiver.forPath('/business').length >= 2, 60_000);
    const byType = Object.fromEntries(receiver.forPath('/business').map((r) => [r.type, r.data]));
    expect(byType['artifact.sent']).toMatchObject({
      artifact: { id: artifactId, title: 'Offer' },
      executionId: sent.body.executionId,
      deliveries: [expect.objectContaining({ contactId })],
    });
    expect(byType['campaign.completed']).toMatchObject({
      campaign: { id: campaignId, status: 'completed', counts: { sent: 1 } },
    });
  });

  it('PATCH changes an endpoint; "rotate" answers a new secret that signs from then on; DELETE removes it', async () => {
    const ep = await endpoint('/rotating', { eventTypes: ['contact.created'] });
    const rotated = await suite.api.call('PATCH', `/webhooks/endpoints/${ep.id}`, {
      secret: 'rotate',
      headers: { 'X-A': '1' },
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(ep.secret);
    expect(rotated.body.headers).toEqual({ 'X-A': '1' });
    receiver.setSecret('/rotating', rotated.body.secret);
    await suite.api.post('/contacts', { name: 'Rita Rotate' });
    await receiver.waitFor(() => receiver.forPath('/rotating').length >= 1);
    expect((await suite.api.call('PATCH', `/webhooks/endpoints/${ep.id}`, { enabled: false })).body).not.toHaveProperty(
      'secret',
    );
    expect((await suite.api.call('DELETE', `/webhooks/endpoints/${ep.id}`)).status).toBe(204);
    expect((await suite.api.get(`/webhooks/endpoints/${ep.id}`)).status).toBe(404);
  });

  it.each([
    ['no url', {}],
    ['an unknown event type', { url: 'https://example.com/h', eventTypes: ['contact.deleted'] }],
    ['a header the platform sets', { url: 'https://example.com/h', headers: { 'Webhook-Signature': 'x' } }],
    ['a header with a line break', { url: 'https://example.com/h', headers: { 'X-A': 'a\r\nb' } }],
    ['a secret that is not whsec_', { url: 'https://example.com/h', secret: 'hunter2' }],
    ['an unknown field', { url: 'https://example.com/h', retries: 3 }],
    ['a body that is not JSON', '{"url":'],
  ])('bad input (%s) → 400 validation_error in the error envelope', async (_name, body) => {
    const res = await suite.api.post('/webhooks/endpoints', body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: expect.stringMatching(/validation_error|bad_request/),
      message: expect.any(String),
    });
  });

  it('a bad PATCH or query is a 400, an unknown delivery a 404', async () => {
    const ep = await endpoint('/badinput');
    expect((await suite.api.call('PATCH', `/webhooks/endpoints/${ep.id}`, { enabled: 'yes' })).status).toBe(400);
    expect((await suite.api.get(`/webhooks/endpoints/${ep.id}/deliveries?status=lost`)).status).toBe(400);
    expect((await suite.api.get(`/webhooks/endpoints/${ep.id}/deliveries?limit=0`)).status).toBe(400);
    const missing = await suite.api.get(`/webhooks/endpoints/${ep.id}/deliveries/whd_nope/attempts`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
  });

  it("another team's endpoint ids are 404 for every operation", async () => {
    const ep = await endpoint('/mine');
    const other = apiClient(suite.server.baseUrl, await newTeam(suite.db, 'webhooks-other'));
    for (const res of [
      await other.get(`/webhooks/endpoints/${ep.id}`),
      await other.call('PATCH', `/webhooks/endpoints/${ep.id}`, { enabled: false }),
      await other.call('DELETE', `/webhooks/endpoints/${ep.id}`),
      await other.get(`/webhooks/endpoints/${ep.id}/deliveries`),
      await other.get(`/webhooks/endpoints/${ep.id}/deliveries/whd_x/attempts`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect((await other.get('/webhooks/endpoints')).body.data).toEqual([]);
    expect((await suite.api.get(`/webhooks/endpoints/${ep.id}`)).body.enabled).toBe(true);
  });
});

describe('the SSRF guard', () => {
  const off = { allowPrivate: false };
  it.each([
    ['http://example.com/hook', 'only https'],
    ['https://127.0.0.1/hook', 'private or loopback'],
    ['https://10.1.2.3/hook', 'private or loopback'],
    ['https://192.168.0.10:8443/hook', 'private or loopback'],
    ['https://169.254.169.254/latest/meta-data', 'private or loopback'],
    ['https://[::1]/hook', 'private or loopback'],
    ['https://[::ffff:127.0.0.1]/hook', 'private or loopback'],
    ['https://[fd00::1]/hook', 'private or loopback'],
    ['https://localhost/hook', 'loopback'],
    ['https://user:pw@example.com/hook', 'credentials'],
    ['not a url', 'not a URL'],
  ])('with the flag off, %s is refused (422 webhook_url_refused: %s)', async (url, reason) => {
    await expect(checkWebhookUrl(url, off)).rejects.toMatchObject({
      status: 422,
      code: 'webhook_url_refused',
      message: expect.stringContaining(reason),
    });
  });

  it('a public address passes; with the flag on, loopback and http pass too', async () => {
    await expect(checkWebhookUrl('https://93.184.215.14/hook', off)).resolves.toBeUndefined();
    await expect(checkWebhookUrl('http://127.0.0.1:9/hook', { allowPrivate: true })).resolves.toBeUndefined();
  });

  it('the flag: refused by default in production, allowed elsewhere, and an explicit value wins', () => {
    expect(privateWebhookUrlsAllowed({ NODE_ENV: 'production' })).toBe(false);
    expect(privateWebhookUrlsAllowed({ NODE_ENV: undefined })).toBe(true);
    expect(privateWebhookUrlsAllowed({ NODE_ENV: 'production', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' })).toBe(true);
    expect(privateWebhookUrlsAllowed({ NODE_ENV: 'test', WEBHOOK_ALLOW_PRIVATE_URLS: '0' })).toBe(false);
  });

  it('the API with the flag off answers 422 with a clear message for a private URL, on create and on PATCH', async () => {
    const suite = { db: testDb() };
    const server = await startTestApi(suite.db, { WEBHOOK_ALLOW_PRIVATE_URLS: 'false' });
    try {
      const team = await newTeam(suite.db, 'ssrf');
      const api = apiClient(server.baseUrl, team);
      const res = await api.post('/webhooks/endpoints', { url: 'https://127.0.0.1:8443/hook' });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({
        code: 'webhook_url_refused',
        message: expect.stringContaining('private or loopback address (127.0.0.1)'),
        details: { url: 'https://127.0.0.1:8443/hook' },
      });
      const ok = await api.post('/webhooks/endpoints', { url: 'https://93.184.215.14/hook' });
      expect(ok.status).toBe(201);
      const patched = await api.call('PATCH', `/webhooks/endpoints/${ok.body.id}`, { url: 'https://10.0.0.5/x' });
      expect(patched.status).toBe(422);
      expect(patched.body.error.code).toBe('webhook_url_refused');
    } finally {
      await server.close();
      await suite.db.destroy();
    }
  });
});

async function waitUntil(done: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 150));
  }
}
