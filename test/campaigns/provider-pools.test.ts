import { createProvider } from '../../channels/providers';
import { stopSmtpThread } from '../../channels/smtpSender';
import { ProviderError } from '../../channels/types';
import { newId } from '../../db/ids';
import { sleep, useProviderSuite } from '../support/helpers';

/**
 * Provider connections are reused: a campaign over SMTP (nodemailer to the fake SMTP server) goes
 * out over the integration's pool, and a rotated secret gets a new pool with the new credentials.
 */
describe('provider connection pools', () => {
  const suite = useProviderSuite('pools');
  let n = 0;

  const setSmtp = (config: Record<string, unknown>, secrets?: Record<string, string>) =>
    suite.api.call('PUT', `/agents/${suite.team.agentId}/integrations/email`, {
      provider: 'smtp',
      config: { host: '127.0.0.1', port: suite.fake.smtpPort, ...config },
      ...(secrets ? { secrets } : {}),
      from: 'news@acme.example',
    });

  async function contacts(count: number) {
    const rows = Array.from({ length: count }, (_, i) => ({
      id: newId('ct'),
      team_id: suite.team.teamId,
      name: `Pool ${i}`,
      email: `pool${++n}-${Date.now()}@example.test`,
      marketing_consent: 'granted',
    }));
    await suite.db('contacts').insert(rows);
    return rows;
  }

  async function sendCampaign(contactIds: string[]) {
    const campaign = (
      await suite.api.post('/campaigns', {
        name: `Pooled ${++n}`,
        channel: 'email',
        subject: 'Hi',
        content: 'Hello from the pool',
        agentId: suite.team.agentId,
        contactIds,
      })
    ).body;
    expect((await suite.api.post(`/campaigns/${campaign.id}/send`, {})).status).toBe(200);
    let last: any;
    for (let i = 0; i < 300; i++) {
      last = (await suite.api.get(`/campaigns/${campaign.id}`)).body;
      if (last.status !== 'sending' && last.status !== 'scheduled') break;
      await sleep(100);
    }
    return { id: campaign.id as string, final: last };
  }

  it('sends a campaign of 50 over at most the configured 3 SMTP connections, each recipient once', async () => {
    expect((await setSmtp({ maxConnections: 3 })).status).toBe(200);
    const recipients = await contacts(50);
    const { final } = await sendCampaign(recipients.map((r) => r.id));
    expect(final).toMatchObject({ status: 'completed', sentCount: 50 });
    for (const r of recipients) expect(suite.fake.byRecipient(r.email)).toHaveLength(1);
    expect(suite.fake.totalDuplicates()).toBe(0);
    // One connection per message (the former behaviour) would be 50.
    expect(suite.fake.smtpConnections).toBeGreaterThanOrEqual(1);
    expect(suite.fake.smtpConnections).toBeLessThanOrEqual(3);
  });

  it('authenticates with the new password once the secret is rotated through the API', async () => {
    expect((await setSmtp({}, { username: 'mailer', password: 'old-password' })).status).toBe(200);
    const [before] = await contacts(1);
    expect((await sendCampaign([before.id])).final).toMatchObject({ status: 'completed', sentCount: 1 });
    expect(suite.fake.byRecipient(before.email)[0].auth).toEqual({ username: 'mailer', password: 'old-password' });

    // Only the password is given: the stored username stays.
    expect((await setSmtp({}, { password: 'new-password' })).status).toBe(200);
    const [after, tested] = await contacts(2);
    expect((await sendCampaign([after.id])).final).toMatchObject({ status: 'completed', sentCount: 1 });
    expect(suite.fake.byRecipient(after.email)[0].auth).toEqual({ username: 'mailer', password: 'new-password' });

    // A campaign test send (from the API process) uses the rotated credentials too.
    const draft = (
      await suite.api.post('/campaigns', {
        name: `Test send ${++n}`,
        channel: 'email',
        subject: 'Hi',
        content: 'Hello',
        agentId: suite.team.agentId,
        contactIds: [tested.id],
      })
    ).body;
    const testSend = await suite.api.post(`/campaigns/${draft.id}/send-test`, { contactId: tested.id });
    expect(testSend.status).toBe(200);
    expect(suite.fake.byRecipient(tested.email)[0].auth).toEqual({ username: 'mailer', password: 'new-password' });
  });

  it('SMTP sends run on their own thread: a thread that dies fails its sends as retryable, and the next send starts a new one', async () => {
    const adapter = createProvider(
      'smtp',
      { host: '127.0.0.1', port: suite.fake.smtpPort, maxConnections: 2 },
      {},
      { db: suite.db, teamId: suite.team.teamId },
    );
    const message = (to: string) => ({
      channel: 'email' as const,
      to,
      from: 'news@acme.example',
      subject: 'Thread',
      text: 'Hello',
      idempotencyKey: `${to}:1`,
    });
    try {
      const first = await adapter.send(message('thread-1@example.test'));
      // The key spelled as a Message-ID: each byte outside letters, digits, `_` and `-` as `=XX`.
      expect(first.providerMessageId).toBe('<thread-1=40example=2Etest=3A1@acme.example>');

      // Stopped while a send is out: the send fails, retryable, and is never sent.
      const inFlight = adapter.send(message('thread-2@example.test')).catch((err: unknown) => err);
      await stopSmtpThread();
      const refused = await inFlight;
      expect(refused).toBeInstanceOf(ProviderError);
      expect((refused as ProviderError).retryable).toBe(true);

      // The same pool goes on, on a new thread, with its settings.
      await adapter.send(message('thread-3@example.test'));
      expect(suite.fake.byRecipient('thread-1@example.test')).toHaveLength(1);
      expect(suite.fake.byRecipient('thread-2@example.test')).toHaveLength(0);
      expect(suite.fake.byRecipient('thread-3@example.test')).toHaveLength(1);
    } finally {
      await adapter.close();
    }
  });
});
