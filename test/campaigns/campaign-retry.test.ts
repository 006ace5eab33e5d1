import { temporalClient, sleep, useProviderSuite } from '../support/helpers';
import { campaignKit } from './campaignKit';

/**
 * Retry and delete through the HTTP API: a missing_channel recipient is retryable only once its
 * contact has an address on the channel (item 7), a deleted Scheduled campaign sends nothing at
 * its time (item 14), and a retry of a contactIds subset and the recipients' later pages (item 16).
 */
describe('campaign retry and delete', () => {
  const suite = useProviderSuite('campaign-retry');
  const { contact, until, finished } = campaignKit(() => suite.api);

  beforeAll(async () => {
    const fake = suite.fake.baseUrl;
    for (const [channel, body] of Object.entries({
      email: { provider: 'resend', config: { baseUrl: fake }, secrets: { apiKey: 'k' }, from: 'news@acme.example' },
      sms: { provider: 'twilio', config: { baseUrl: fake, accountSid: 'AC1' }, secrets: { authToken: 't' } },
    })) {
      const res = await suite.api.call('PUT', `/agents/${suite.team.agentId}/integrations/${channel}`, body);
      expect([channel, res.status]).toEqual([channel, 200]);
    }
  });

  const campaignFor = async (channel: 'email' | 'sms', contactIds: string[]) => {
    const res = await suite.api.post('/campaigns', {
      name: `Retry ${channel} ${Date.now()}`,
      channel,
      ...(channel === 'email' ? { subject: 'News' } : {}),
      content: 'Hello',
      contactIds,
    });
    expect(res.status).toBe(201);
    return res.body as { id: string };
  };
  const recipient = async (campaignId: string, contactId: string) =>
    (await suite.api.get(`/campaigns/${campaignId}/recipients?perPage=100`)).body.data.find(
      (r: any) => r.contactId === contactId,
    );

  it('a missing_channel recipient is not retryable, and not retried, until its contact has an address on the channel (item 7)', async () => {
    const reached = await contact({ phone: '+15550000001' });
    const noPhone = await contact();
    const campaign = await campaignFor('sms', [reached.id, noPhone.id]);
    await suite.api.post(`/campaigns/${campaign.id}/send`, {});
    expect(await until(campaign.id, finished)).toMatchObject({ status: 'completed', sentCount: 1, skippedCount: 1 });
    expect(await recipient(campaign.id, noPhone.id)).toMatchObject({
      status: 'skipped',
      skipReason: 'missing_channel',
      retryable: false,
    });
    // Nothing to retry: the campaign stays as it was, no new run.
    expect((await suite.api.post(`/campaigns/${campaign.id}/retry`, {})).body).toEqual({ retried: 0 });
    expect((await suite.api.post(`/campaigns/${campaign.id}/retry`, { contactIds: [noPhone.id] })).body).toEqual({
      retried: 0,
    });
    expect((await suite.api.get(`/campaigns/${campaign.id}`)).body).toMatchObject({
      status: 'completed',
      skippedCount: 1,
    });

    // An address on another channel is not one: an SMS needs a phone number.
    await suite.api.call('PATCH', `/contacts/${noPhone.id}`, { email: `other-${Date.now()}@example.test` });
    expect((await recipient(campaign.id, noPhone.id)).retryable).toBe(false);
    expect((await suite.api.post(`/campaigns/${campaign.id}/retry`, {})).body).toEqual({ retried: 0 });

    await suite.api.call('PATCH', `/contacts/${noPhone.id}`, { phone: '+15550000002' });
    expect(await recipient(campaign.id, noPhone.id)).toMatchObject({ status: 'skipped', retryable: true });
    expect((await suite.api.post(`/campaigns/${campaign.id}/retry`, {})).body).toEqual({ retried: 1 });
    expect(await until(campaign.id, (c) => finished(c) && c.sentCount === 2)).toMatchObject({
      status: 'completed',
      skippedCount: 0,
    });
    expect(suite.fake.byRecipient('+15550000002').map((m) => m.text)).toEqual(['Hello']);
    expect(suite.fake.byRecipient('+15550000001')).toHaveLength(1);
  });

  it('deleting a Scheduled campaign sends nothing at its time (item 14)', async () => {
    const who = await contact();
    const campaign = await campaignFor('email', [who.id]);
    const at = new Date(Date.now() + 3000);
    const scheduled = await suite.api.post(`/campaigns/${campaign.id}/send`, { scheduledAt: at.toISOString() });
    expect(scheduled.body.status).toBe('scheduled');
    expect((await suite.api.call('DELETE', `/campaigns/${campaign.id}`)).status).toBe(204);
    expect((await suite.api.get(`/campaigns/${campaign.id}`)).status).toBe(404);

    // Past its time, with room for a late timer: nobody got it, and no message was recorded.
    while (Date.now() < at.getTime() + 3000) await sleep(250);
    expect(suite.fake.byRecipient(who.email!)).toEqual([]);
    expect(suite.fake.requests).toBe(0);
    expect((await suite.api.get(`/messages?sourceId=${campaign.id}`)).body.data).toEqual([]);
    // Its run, as the Temporal UI shows it, was ended by the delete (not left to wake up).
    const client = await temporalClient();
    try {
      const run = await client.workflow.getHandle(`campaign-${campaign.id}-run-1`).describe();
      expect(run.status.name).toBe('TERMINATED');
    } finally {
      await client.connection.close();
    }
  });

  it('a retry takes only the contactIds given (of the retryable ones); recipients read a page at a time (item 16)', async () => {
    const people: Awaited<ReturnType<typeof contact>>[] = [];
    for (let i = 0; i < 5; i++) people.push(await contact());
    const campaign = await campaignFor(
      'email',
      people.map((p) => p.id),
    );
    // The provider refuses the first three messages it is sent.
    suite.fake.fail({ status: 400 }, { status: 400 }, { status: 400 });
    await suite.api.post(`/campaigns/${campaign.id}/send`, {});
    expect(await until(campaign.id, finished)).toMatchObject({ status: 'failed', sentCount: 2, failedCount: 3 });

    // Every recipient, two a page, in three pages; the status filter pages too.
    const pages: any[][] = [];
    let cursor: string | null = null;
    do {
      const page: any = (
        await suite.api.get(`/campaigns/${campaign.id}/recipients?perPage=2${cursor ? `&cursor=${cursor}` : ''}`)
      ).body;
      pages.push(page.data);
      cursor = page.pagination.nextCursor;
    } while (cursor && pages.length < 10);
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
    expect(
      pages
        .flat()
        .map((r) => r.contactId)
        .sort(),
    ).toEqual(people.map((p) => p.id).sort());
    const failedPage1 = (await suite.api.get(`/campaigns/${campaign.id}/recipients?status=failed&perPage=2`)).body;
    const failedPage2 = (
      await suite.api.get(
        `/campaigns/${campaign.id}/recipients?status=failed&perPage=2&cursor=${failedPage1.pagination.nextCursor}`,
      )
    ).body;
    expect([failedPage1.data.length, failedPage2.data.length, failedPage2.pagination.nextCursor]).toEqual([2, 1, null]);
    const failed = [...failedPage1.data, ...failedPage2.data].map((r: any) => r.contactId);
    expect(new Set(failed).size).toBe(3);
    const sent = people.map((p) => p.id).filter((id) => !failed.includes(id));
    const badCursor = await suite.api.get(`/campaigns/${campaign.id}/recipients?cursor=not-one-of-ours`);
    expect([badCursor.status, badCursor.body.error.code]).toEqual([400, 'validation_error']);

    // A contact already sent, and one not in the campaign, are not retried.
    expect(
      (await suite.api.post(`/campaigns/${campaign.id}/retry`, { contactIds: [sent[0], 'ct_not_in_it'] })).body,
    ).toEqual({ retried: 0 });
    // Two of the three failed.
    const retried = await suite.api.post(`/campaigns/${campaign.id}/retry`, { contactIds: failed.slice(0, 2) });
    expect(retried.body).toEqual({ retried: 2 });
    expect(await until(campaign.id, (c) => finished(c) && c.sentCount === 4)).toMatchObject({
      status: 'failed',
      failedCount: 1,
    });
    const emailOf = (id: string) => people.find((p) => p.id === id)!.email!;
    for (const id of failed.slice(0, 2)) {
      expect(await recipient(campaign.id, id)).toMatchObject({ status: 'sent', retryable: false });
      expect(suite.fake.byRecipient(emailOf(id)).map((m) => m.key.split(':')[2])).toEqual(['2']);
    }
    expect(await recipient(campaign.id, failed[2])).toMatchObject({ status: 'failed', retryable: true });
    expect(suite.fake.byRecipient(emailOf(failed[2]))).toEqual([]);
    // Those the first run reached got it once, from that run.
    for (const id of sent) expect(suite.fake.byRecipient(emailOf(id)).map((m) => m.key.split(':')[2])).toEqual(['1']);

    // The last one on its own.
    expect((await suite.api.post(`/campaigns/${campaign.id}/retry`, { contactIds: [failed[2]] })).body).toEqual({
      retried: 1,
    });
    expect(await until(campaign.id, (c) => finished(c) && c.sentCount === 5)).toMatchObject({
      status: 'completed',
      failedCount: 0,
    });
  });
});
