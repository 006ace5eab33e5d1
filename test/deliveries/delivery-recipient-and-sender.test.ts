import { useProviderSuite } from '../support/helpers';

/**
 * An email integration through a real provider needs a sender (422 `sender_required`), and a
 * delivery record keeps the recipient it was sent to after the artifact's contact, or that
 * contact's email, changes. Issue 38 item 19.
 */
describe('delivery sender and recipient', () => {
  const suite = useProviderSuite('deliver-recipient');
  let n = 0;

  const putIntegration = (channel: string, body: Record<string, unknown>) =>
    suite.api.call('PUT', `/agents/${suite.team.agentId}/integrations/${channel}`, body);
  const integrations = async () =>
    (await suite.api.get(`/agents/${suite.team.agentId}/integrations`)).body.data as { channel: string }[];
  const resend = (extra: Record<string, unknown>) => ({
    provider: 'resend',
    config: { baseUrl: suite.fake.baseUrl },
    secrets: { apiKey: 're_test' },
    ...extra,
  });
  async function contact() {
    const i = ++n;
    return (
      await suite.api.post('/contacts', { name: `Rcpt${i} Person`, email: `rcpt${i}-${Date.now()}@example.test` })
    ).body as { id: string; email: string };
  }

  it('sender_required: an email integration through Resend or SMTP without a from address is refused and nothing is stored', async () => {
    const smtp = { provider: 'smtp', config: { host: '127.0.0.1', port: suite.fake.smtpPort } };
    for (const [name, body] of [
      ['resend, no from', resend({})],
      ['resend, from null', resend({ from: null })],
      ['smtp, no from', smtp],
    ] as const) {
      const res = await putIntegration('email', body);
      expect([name, res.status, res.body.error?.code]).toEqual([name, 422, 'sender_required']);
    }
    expect((await integrations()).map((i) => i.channel)).not.toContain('email');

    // With a sender it is set; a later PUT that drops the sender is refused and the sender stays.
    expect((await putIntegration('email', resend({ from: 'studio@acme.example' }))).status).toBe(200);
    const dropped = await putIntegration('email', resend({}));
    expect([dropped.status, dropped.body.error.code]).toEqual([422, 'sender_required']);
    expect((await integrations()).find((i) => i.channel === 'email')).toMatchObject({
      provider: 'resend',
      from: 'studio@acme.example',
    });

    // The sandbox sends nowhere, so it needs no sender; nor does SMS (the provider's number is the default).
    const sandbox = await suite.api.call('PUT', `/agents/${suite.team.agentId}/integrations/email`, {
      provider: 'sandbox',
    });
    expect(sandbox.status).toBe(200);
    const sms = await putIntegration('sms', {
      provider: 'twilio',
      config: { baseUrl: suite.fake.baseUrl, accountSid: 'AC1' },
      secrets: { authToken: 't' },
    });
    expect(sms.status).toBe(200);
    expect((await putIntegration('email', resend({ from: 'studio@acme.example' }))).status).toBe(200);
  });

  it("a delivery keeps its recipient and address after the artifact's contact and that contact's email change", async () => {
    expect((await putIntegration('email', resend({ from: 'studio@acme.example' }))).status).toBe(200);
    const [alice, bob] = [await contact(), await contact()];
    const artifact = (
      await suite.api.post('/artifacts', {
        title: 'Offer',
        type: 'offer',
        url: 'https://example.test/offer',
        status: 'ready',
        contactId: alice.id,
      })
    ).body;
    // No contactIds: the artifact's contact is the recipient.
    const delivered = await suite.api.post('/artifacts/deliver', {
      artifactIds: [artifact.id],
      message: 'Your offer.',
      integration: 'email',
    });
    expect(delivered.status).toBe(200);
    const original = { contactId: alice.id, to: alice.email, status: 'sent', artifactIds: [artifact.id] };
    expect(delivered.body.deliveries).toEqual([expect.objectContaining(original)]);
    expect(suite.fake.byRecipient(alice.email)).toHaveLength(1);

    const moved = await suite.api.call('PATCH', `/artifacts/${artifact.id}`, { contactId: bob.id });
    expect([moved.status, moved.body.contactId]).toEqual([200, bob.id]);
    const renamed = await suite.api.call('PATCH', `/contacts/${alice.id}`, { email: `new-${alice.email}` });
    expect([renamed.status, renamed.body.email]).toEqual([200, `new-${alice.email}`]);

    const [record] = (await suite.api.get(`/deliveries?artifactId=${artifact.id}`)).body.data;
    expect(record).toMatchObject({ ...original, id: delivered.body.deliveries[0].id });
    expect((await suite.api.get(`/deliveries?contactId=${alice.id}`)).body.data.map((d: any) => d.id)).toEqual([
      record.id,
    ]);
    expect((await suite.api.get(`/deliveries?contactId=${bob.id}`)).body.data).toEqual([]);
    expect((await suite.api.get(`/warp-executions/${delivered.body.executionId}`)).body.result.deliveries).toEqual([
      expect.objectContaining(original),
    ]);
    expect(
      (await suite.api.get(`/messages?sourceKind=delivery&contactId=${alice.id}`)).body.data.map((m: any) => m.address),
    ).toEqual([alice.email]);
  });
});
