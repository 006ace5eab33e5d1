import { createHmac } from 'node:crypto';
import { sleep, useProviderSuite } from '../support/helpers';

const APP_SECRET = 'meta-app-secret-for-tests';

/** WhatsApp campaigns: submit → Pending → (webhook or periodic refresh) → Approved / Rejected, then send. */
describe('WhatsApp template approval', () => {
  const suite = useProviderSuite('whatsapp', {
    WHATSAPP_APP_SECRET: APP_SECRET,
    WHATSAPP_TEMPLATE_REFRESH_SECONDS: '1',
  });
  let n = 0;

  beforeAll(async () => {
    await suite.api.call('PUT', `/agents/${suite.team.agentId}/integrations/whatsapp`, {
      provider: 'whatsapp_cloud',
      config: { baseUrl: suite.fake.baseUrl, phoneNumberId: '555', businessAccountId: 'waba1' },
      secrets: { accessToken: 'wa' },
    });
  });

  async function campaign(fields: Record<string, unknown> = {}) {
    const who = (
      await suite.api.post('/contacts', { name: `Wa${++n} User`, phone: `+1555123${String(n).padStart(4, '0')}` })
    ).body;
    await suite.api.call('PATCH', `/contacts/${who.id}`, { marketingConsent: 'granted' });
    const created = await suite.api.post('/campaigns', {
      name: `promo_${n}`,
      channel: 'whatsapp',
      content: 'Hi {{first}}, your code is ready',
      templateParams: { first: 'contact.firstName' },
      language: 'en',
      category: 'UTILITY',
      contactIds: [who.id],
      ...fields,
    });
    expect(created.status).toBe(201);
    return { campaign: created.body, who };
  }
  async function until(id: string, done: (c: any) => boolean) {
    for (let i = 0; i < 150; i++) {
      const c = (await suite.api.get(`/campaigns/${id}`)).body;
      if (done(c)) return c;
      await sleep(100);
    }
    throw new Error(`campaign ${id} did not change`);
  }
  const webhook = (templateId: string, event: string, reason?: string, secret = APP_SECRET) => {
    const body = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'waba1',
          changes: [
            { field: 'message_template_status_update', value: { event, message_template_id: templateId, reason } },
          ],
        },
      ],
    });
    return fetch(`${suite.server.baseUrl}/webhooks/whatsapp`, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
      },
    });
  };

  it('submits the template (positional placeholders), is approved by the status webhook, then sends', async () => {
    const { campaign: c, who } = await campaign();
    expect((await suite.api.post(`/campaigns/${c.id}/send`, {})).body.error.code).toBe('whatsapp_not_approved');
    const submitted = await suite.api.post(`/campaigns/${c.id}/whatsapp/submit`);
    expect(submitted.body.status).toBe('pending');
    await until(
      c.id,
      () => suite.fake.templates.size > 0 && [...suite.fake.templates.values()].some((t) => t.name === c.name),
    );
    const [templateId, template] = [...suite.fake.templates.entries()].find(([, t]) => t.name === c.name)!;
    expect(template.body).toBe('Hi {{1}}, your code is ready');
    expect((await suite.api.post(`/campaigns/${c.id}/whatsapp/submit`)).status).toBe(409);

    const forged = await webhook(templateId, 'APPROVED', undefined, 'wrong-secret-123');
    expect(forged.status).toBe(401);
    const ok = await webhook(templateId, 'APPROVED');
    expect(await ok.json()).toEqual({ applied: 1 });
    await until(c.id, (x) => x.status === 'approved');

    await suite.api.post(`/campaigns/${c.id}/send`, {});
    const done = await until(c.id, (x) => x.status === 'completed' || x.status === 'failed');
    expect(done).toMatchObject({ status: 'completed', sentCount: 1 });
    expect(suite.fake.byRecipient(who.phone)[0]).toMatchObject({
      provider: 'whatsapp_cloud',
      text: `Hi ${who.firstName}, your code is ready`,
    });
  });

  it('a rejection found by refresh reads Rejected with the reason; an edit goes back to Draft and it can be resubmitted', async () => {
    const { campaign: c } = await campaign();
    await suite.api.post(`/campaigns/${c.id}/whatsapp/submit`);
    await until(c.id, () => [...suite.fake.templates.values()].some((t) => t.name === c.name));
    const template = [...suite.fake.templates.values()].find((t) => t.name === c.name)!;
    Object.assign(template, { status: 'REJECTED', reason: 'INVALID_FORMAT' });
    const refreshed = await suite.api.post(`/campaigns/${c.id}/whatsapp/refresh`);
    expect(refreshed.status).toBe(200);
    const rejected = await until(c.id, (x) => x.status === 'rejected');
    expect(rejected.rejectionReason).toBe('INVALID_FORMAT');

    const edited = await suite.api.call('PATCH', `/campaigns/${c.id}`, { content: 'Hello {{first}}' });
    expect(edited.body.status).toBe('rejected');
    expect((await suite.api.post(`/campaigns/${c.id}/whatsapp/submit`)).body.status).toBe('pending');
    const pendingEdit = await suite.api.call('PATCH', `/campaigns/${c.id}`, { content: 'Hey {{first}}' });
    expect(pendingEdit.body).toMatchObject({ status: 'draft', rejectionReason: null });
  });

  it('without any webhook, the periodic refresh finds the approval', async () => {
    const { campaign: c } = await campaign();
    await suite.api.post(`/campaigns/${c.id}/whatsapp/submit`);
    await until(c.id, () => [...suite.fake.templates.values()].some((t) => t.name === c.name));
    [...suite.fake.templates.values()].find((t) => t.name === c.name)!.status = 'APPROVED';
    expect((await until(c.id, (x) => x.status === 'approved')).status).toBe('approved');
  });

  it('a template check that ended without a verdict: refresh returns the campaign to Draft (409), a late webhook changes nothing, a bad body is 400', async () => {
    const { campaign: c } = await campaign();
    await suite.api.post(`/campaigns/${c.id}/whatsapp/submit`);
    await until(c.id, () => [...suite.fake.templates.values()].some((t) => t.name === c.name));
    const [templateId] = [...suite.fake.templates.entries()].find(([, t]) => t.name === c.name)!;
    // An operator ends the workflow in the Temporal UI.
    await (await suite.server.ctx.temporal.client()).workflow.getHandle(`wa-template-${c.id}`).terminate('operator');
    expect(await (await webhook(templateId, 'APPROVED')).json()).toEqual({ applied: 0 });
    const refreshed = await suite.api.post(`/campaigns/${c.id}/whatsapp/refresh`);
    expect([refreshed.status, refreshed.body.error.code]).toEqual([409, 'invalid_state']);
    expect((await suite.api.get(`/campaigns/${c.id}`)).body).toMatchObject({
      status: 'draft',
      rejectionReason: expect.stringContaining('submit again'),
    });
    const body = 'not json';
    const garbled = await fetch(`${suite.server.baseUrl}/webhooks/whatsapp`, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'x-hub-signature-256': `sha256=${createHmac('sha256', APP_SECRET).update(body).digest('hex')}`,
      },
    });
    expect([garbled.status, ((await garbled.json()) as any).error.code]).toEqual([400, 'validation_error']);
  });

  it('submit rules: language and category required, WhatsApp only, an agent with WhatsApp Cloud', async () => {
    const noLanguage = (await campaign({ language: undefined })).campaign;
    expect((await suite.api.post(`/campaigns/${noLanguage.id}/whatsapp/submit`)).body.error.code).toBe(
      'whatsapp_language_required',
    );
    const noCategory = (await campaign({ category: undefined })).campaign;
    expect((await suite.api.post(`/campaigns/${noCategory.id}/whatsapp/submit`)).body.error.code).toBe(
      'whatsapp_category_required',
    );
    const email = (await suite.api.post('/contacts', { email: `e${Date.now()}@example.test` })).body;
    const mail = (
      await suite.api.post('/campaigns', { name: 'mail', channel: 'email', content: 'x', contactIds: [email.id] })
    ).body;
    expect((await suite.api.post(`/campaigns/${mail.id}/whatsapp/submit`)).body.error.code).toBe('not_whatsapp');
  });
});
