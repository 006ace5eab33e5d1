import { sleep, useProviderSuite } from '../support/helpers';

/**
 * Deleting a submitted WhatsApp campaign cleans up its template: the provider is asked to delete
 * it, and the template's approval workflow ends. The periodic check is left at its default
 * (an hour), so nothing but the delete can end the wait. Issue 38 item 15.
 */
describe('deleting a submitted WhatsApp campaign', () => {
  const suite = useProviderSuite('wa-delete');
  let n = 0;

  beforeAll(async () => {
    await suite.api.call('PUT', `/agents/${suite.team.agentId}/integrations/whatsapp`, {
      provider: 'whatsapp_cloud',
      config: { baseUrl: suite.fake.baseUrl, phoneNumberId: '555', businessAccountId: 'waba1' },
      secrets: { accessToken: 'wa' },
    });
  });

  async function submitted() {
    const who = (
      await suite.api.post('/contacts', { name: `Del${++n} User`, phone: `+1555987${String(n).padStart(4, '0')}` })
    ).body;
    await suite.api.call('PATCH', `/contacts/${who.id}`, { marketingConsent: 'granted' });
    const created = await suite.api.post('/campaigns', {
      name: `cleanup_${n}_${Date.now().toString(36)}`,
      channel: 'whatsapp',
      content: 'Hi {{first}}',
      templateParams: { first: 'contact.firstName' },
      language: 'en',
      category: 'UTILITY',
      contactIds: [who.id],
    });
    expect(created.status).toBe(201);
    expect((await suite.api.post(`/campaigns/${created.body.id}/whatsapp/submit`)).body.status).toBe('pending');
    return created.body as { id: string; name: string };
  }
  const templatesNamed = (name: string) => [...suite.fake.templates.values()].filter((t) => t.name === name);
  async function eventually(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000) {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await check()) return;
      await sleep(100);
    }
    throw new Error(`still not: ${what}`);
  }
  const workflowStatus = async (campaignId: string) =>
    (await (await suite.server.ctx.temporal.client()).workflow.getHandle(`wa-template-${campaignId}`).describe()).status
      .name;

  it('a Pending campaign: the provider deletes its template and the waiting approval workflow ends', async () => {
    const campaign = await submitted();
    await eventually(() => templatesNamed(campaign.name).length === 1, 'the template reached the provider');
    expect(await workflowStatus(campaign.id)).toBe('RUNNING');

    const deleted = await suite.api.call('DELETE', `/campaigns/${campaign.id}`);
    expect(deleted.status).toBe(204);
    expect(suite.fake.deletedTemplates).toContain(campaign.name);
    expect(templatesNamed(campaign.name)).toEqual([]);
    expect((await suite.api.get(`/campaigns/${campaign.id}`)).status).toBe(404);
    await eventually(async () => (await workflowStatus(campaign.id)) !== 'RUNNING', 'the workflow ended');
    expect(await workflowStatus(campaign.id)).toBe('TERMINATED');
  });

  it('an Approved campaign: the provider deletes its template (its workflow had ended with the approval)', async () => {
    const campaign = await submitted();
    await eventually(() => templatesNamed(campaign.name).length === 1, 'the template reached the provider');
    templatesNamed(campaign.name)[0].status = 'APPROVED';
    await suite.api.post(`/campaigns/${campaign.id}/whatsapp/refresh`);
    await eventually(
      async () => (await suite.api.get(`/campaigns/${campaign.id}`)).body.status === 'approved',
      'approved',
    );
    expect(await workflowStatus(campaign.id)).toBe('COMPLETED');

    expect((await suite.api.call('DELETE', `/campaigns/${campaign.id}`)).status).toBe(204);
    expect(suite.fake.deletedTemplates).toContain(campaign.name);
    expect(templatesNamed(campaign.name)).toEqual([]);
  });

  it('deleted while the template is still being submitted: no template is left at the provider, and the workflow ends', async () => {
    suite.fake.latencyMs = 1500;
    const campaign = await submitted();
    // The submit request has reached the provider, which has not answered yet.
    await eventually(() => suite.fake.requests > 0, 'the submit request reached the provider');
    expect((await suite.api.call('DELETE', `/campaigns/${campaign.id}`)).status).toBe(204);
    // Past the provider's answer (it creates the template then), the template is gone again.
    await sleep(2_500);
    await eventually(() => templatesNamed(campaign.name).length === 0, 'the late template was removed');
    expect(suite.fake.deletedTemplates).toContain(campaign.name);
    expect(await workflowStatus(campaign.id)).not.toBe('RUNNING');
  });
});
