import { newId } from '../../db/ids';
import { apiClient, ApiClient, newTeam, sleep, useProviderSuite } from '../support/helpers';

/**
 * Exactly once over SMTP, which has no idempotency key: the worker is SIGKILLed mid-send, and the
 * SMTP server goes away mid-send. Every recipient gets a message; the only repeats are messages a
 * crash caught between the server's answer and the chunk's record, each with the first copy's
 * Message-ID, so a receiver drops it (docs/CAMPAIGNS.md, "Exactly once").
 */
describe('campaign over SMTP: worker killed, server gone', () => {
  const suite = useProviderSuite('smtp1', { TEMPORAL_TASK_QUEUE: `campaign-smtp-${process.pid}` });
  /** The SMTP pool's default: 20 connections, two sends each in flight; chunks of 400 recorded per statement. */
  const IN_FLIGHT = 40;
  const CHUNK = 400;

  async function smtpCampaign(tag: string, total: number): Promise<{ api: ApiClient; campaignId: string }> {
    const team = await newTeam(suite.db, tag);
    const api = apiClient(suite.server.baseUrl, team);
    expect(
      (
        await api.call('PUT', `/agents/${team.agentId}/integrations/email`, {
          provider: 'smtp',
          config: { host: '127.0.0.1', port: suite.fake.smtpPort },
          from: 'news@acme.example',
        })
      ).status,
    ).toBe(200);
    const rows = Array.from({ length: total }, (_, i) => ({
      id: newId('ct'),
      team_id: team.teamId,
      name: `Person ${i}`,
      first_name: 'Person',
      email: `${tag}${i}@smtp.example`,
      tags: [tag],
      marketing_consent: 'granted',
    }));
    for (let i = 0; i < rows.length; i += 5000) await suite.db('contacts').insert(rows.slice(i, i + 5000));
    const campaign = (
      await api.post('/campaigns', {
        name: `SMTP ${tag}`,
        channel: 'email',
        subject: 'Hello {{first}}',
        content: 'Hi {{first}}',
        templateParams: { first: 'contact.firstName' },
        tags: [tag],
      })
    ).body;
    expect((await api.post(`/campaigns/${campaign.id}/send`, {})).body.status).toBe('sending');
    return { api, campaignId: campaign.id };
  }

  async function ended(api: ApiClient, campaignId: string) {
    for (let i = 0; i < 1200; i++) {
      const campaign = (await api.get(`/campaigns/${campaignId}`)).body;
      if (campaign.status === 'completed' || campaign.status === 'failed') return campaign;
      await sleep(250);
    }
    throw new Error(`campaign ${campaignId} did not end`);
  }

  const messagesTo = (tag: string) => [...suite.fake.messages.values()].filter((m) => m.to.startsWith(tag));

  it('a worker SIGKILLed twice mid-send: every recipient gets one message; repeats only among those in flight, with the same Message-ID', async () => {
    const total = 6000;
    await suite.startWorker();
    const { api, campaignId } = await smtpCampaign('kill', total);
    const kills: number[] = [];
    for (const fraction of [0.3, 0.65]) {
      while (messagesTo('kill').length < total * fraction) await sleep(20);
      await suite.workers[suite.workers.length - 1].kill();
      kills.push(messagesTo('kill').length);
      await suite.startWorker();
    }
    const final = await ended(api, campaignId);
    expect(final).toMatchObject({ status: 'completed', recipientCount: total, sentCount: total, failedCount: 0 });

    const received = messagesTo('kill');
    // The fake keeps one message per key: one per recipient, none missing.
    expect(new Set(received.map((m) => m.to)).size).toBe(total);
    expect(received).toHaveLength(total);
    const repeated = received.filter((m) => m.duplicates > 0);
    const repeats = repeated.reduce((sum, m) => sum + m.duplicates, 0);
    // Each repeat carries the first copy's Message-ID.
    for (const m of repeated) {
      // The key `<campaignId>:<contactId>:<attempt>`, spelled as a Message-ID (channels/providers.ts).
      expect(m.messageId).toMatch(new RegExp(`^<${campaignId}\\.ct_[0-9a-z]{20}\\.\\d+@acme\\.example>$`));
      expect(m.repeatMessageIds).toEqual(Array(m.duplicates).fill(m.messageId));
    }
    // What a kill can repeat: the sends on the pool, and the answers of up to two chunks not yet recorded.
    expect(repeats).toBeLessThanOrEqual(kills.length * (IN_FLIGHT + 2 * CHUNK));

    const outbound = await suite
      .db('outbound_messages')
      .where({ source_kind: 'campaign', source_id: campaignId })
      .select('status', 'provider_message_id');
    expect(outbound).toHaveLength(total);
    expect(outbound.every((m) => m.status === 'sent')).toBe(true);
    process.stdout.write(
      `[campaign-smtp-kill] ${total} recipients over SMTP; kills after ${kills.join(', ')} messages; ` +
        `messages per recipient: all 1; repeats (same Message-ID): ${repeats} across ${repeated.length} recipients; ` +
        `SMTP connections opened: ${suite.fake.smtpConnections}\n`,
    );
  }, 300_000);

  it('an SMTP server that goes away mid-send: the affected recipients fail after retries, none is lost, and a retry reaches them', async () => {
    const total = 3000;
    if (!suite.workers.length) await suite.startWorker();
    const { api, campaignId } = await smtpCampaign('gone', total);
    while (messagesTo('gone').length < total * 0.3) await sleep(20);
    await suite.fake.pauseSmtp();
    // Longer than a recipient's in-send retries (0.5 + 1 + 2 s): those it meets fail.
    await sleep(5000);
    await suite.fake.resumeSmtp();
    const first = await ended(api, campaignId);
    expect(first.status).toBe('failed');
    expect(first.failedCount).toBeGreaterThan(0);
    expect(first.sentCount + first.failedCount).toBe(total);
    const failed = await suite
      .db('campaign_recipients')
      .where({ campaign_id: campaignId, status: 'failed' })
      .select('contact_id', 'error', 'address');
    expect(failed).toHaveLength(first.failedCount);
    for (const r of failed) expect(r.error.error.code).toBe('provider_unavailable');
    // Recorded as failed messages too: nothing is lost between the send and the books.
    const [{ n: failedMessages }] = await suite
      .db('outbound_messages')
      .where({ source_id: campaignId, status: 'failed' })
      .count({ n: '*' });
    expect(Number(failedMessages)).toBe(first.failedCount);

    expect((await api.post(`/campaigns/${campaignId}/retry`, {})).body).toEqual({ retried: first.failedCount });
    const second = await ended(api, campaignId);
    expect(second).toMatchObject({ status: 'completed', sentCount: total, failedCount: 0 });
    const perRecipient = new Map<string, number>();
    for (const m of messagesTo('gone')) perRecipient.set(m.to, (perRecipient.get(m.to) ?? 0) + 1);
    expect(perRecipient.size).toBe(total);
    // A recipient gets a second message only when the server took the first and hung up before
    // answering: then it was recorded failed, and the retry (a new attempt) sent again.
    const failedAddresses = new Set(failed.map((r) => r.address));
    for (const [to, count] of perRecipient) if (count > 1) expect(failedAddresses.has(to)).toBe(true);
    process.stdout.write(
      `[campaign-smtp-gone] ${total} recipients; failed while the server was away: ${first.failedCount}; ` +
        `after the retry: ${second.sentCount} sent, recipients with two messages: ${[...perRecipient.values()].filter((c) => c > 1).length}\n`,
    );
  }, 300_000);
});
