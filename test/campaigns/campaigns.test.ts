import { createHmac } from 'node:crypto';
import { newId } from '../../db/ids';
import { apiClient, newTeam, sleep, startTestApi, useProviderSuite } from '../support/helpers';

/** Campaign rules and the campaign workflow through the HTTP API, sending to the suite.fake provider over HTTP. */
const WEBHOOK_SECRET = `whsec_${Buffer.from('a webhook signing key of 32 bytes').toString('base64')}`;

/** A Resend (Svix) webhook delivery, signed as the provider signs it. */
function signedEvent(id: string, event: unknown, secret = WEBHOOK_SECRET, timestamp = Math.floor(Date.now() / 1000)) {
  const body = JSON.stringify(event);
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'svix-id': id,
      'svix-timestamp': String(timestamp),
      'svix-signature': `v1,${signature}`,
    },
  };
}

describe('campaigns', () => {
  const suite = useProviderSuite('campaigns', { EMAIL_WEBHOOK_SECRETS: JSON.stringify({ resend: WEBHOOK_SECRET }) });
  let n = 0;

  beforeAll(async () => {
    await suite.api.call('PUT', `/agents/${suite.team.agentId}/integrations/email`, {
      provider: 'resend',
      config: { baseUrl: suite.fake.baseUrl },
      secrets: { apiKey: 'k' },
      from: 'news@acme.example',
    });
    await suite.api.call('PUT', `/agents/${suite.team.agentId}/integrations/sms`, {
      provider: 'twilio',
      config: { baseUrl: suite.fake.baseUrl, accountSid: 'AC1' },
      secrets: { authToken: 't' },
    });
  });

  async function contact(
    fields: Record<string, unknown> = {},
    consent: 'granted' | 'pending' = 'granted',
    extra: Record<string, unknown> = {},
  ) {
    const i = ++n;
    const created = (
      await suite.api.post('/contacts', {
        name: `Ada${i} Person`,
        email: `c${i}-${Date.now()}@example.test`,
        company: 'Acme',
        ...fields,
      })
    ).body;
    await suite.api.call('PATCH', `/contacts/${created.id}`, { marketingConsent: consent, ...extra });
    return created;
  }
  const emailCampaign = (contactIds: string[], extra: Record<string, unknown> = {}) =>
    suite.api.post('/campaigns', {
      name: `News ${++n}`,
      channel: 'email',
      subject: 'Hi {{first}}',
      content: 'Hello {{first}} from {{company}}. {{greeting}} {{missing}}',
      templateParams: { first: 'contact.firstName', company: 'contact.company' },
      aiParams: { greeting: 'Say hello warmly' },
      agentId: suite.team.agentId,
      contactIds,
      ...extra,
    });
  async function until(campaignId: string, done: (c: any) => boolean, timeoutMs = 30_000) {
    const deadline = Date.now() + timeoutMs;
    let last: any;
    while (Date.now() < deadline) {
      last = (await suite.api.get(`/campaigns/${campaignId}`)).body;
      if (done(last)) return last;
      await sleep(150);
    }
    throw new Error(`campaign ${campaignId} stayed ${last?.status}`);
  }
  const finished = (c: any) => c.status === 'completed' || c.status === 'failed';

  it('rejects every create rule violation with its code', async () => {
    const who = await contact();
    const emptySegment = (
      await suite.api.post('/segments', {
        name: 'nobody',
        groups: [{ conditions: [{ type: 'email_contains', value: 'no-such-address' }] }],
      })
    ).body;
    const cases: [string, Record<string, unknown>, number, string][] = [
      ['no audience source', { name: 'a', channel: 'email', content: 'x' }, 422, 'empty_audience'],
      [
        'an empty segment',
        { name: 'a', channel: 'email', content: 'x', segmentId: emptySegment.id },
        422,
        'empty_audience',
      ],
      [
        'tags nobody has',
        { name: 'a', channel: 'email', content: 'x', tags: ['nobody-has-this'] },
        422,
        'empty_audience',
      ],
      [
        'unknown contact',
        { name: 'a', channel: 'email', content: 'x', contactIds: ['ct_nope'] },
        422,
        'unknown_contact',
      ],
      ['unknown segment', { name: 'a', channel: 'email', content: 'x', segmentId: 'seg_nope' }, 422, 'unknown_segment'],
      [
        'WhatsApp with aiParams',
        {
          name: 'promo_one',
          channel: 'whatsapp',
          content: 'Hi {{a}}',
          templateParams: {},
          aiParams: { a: 'x' },
          contactIds: [who.id],
        },
        422,
        'whatsapp_ai_params',
      ],
      [
        'WhatsApp name not slug',
        { name: 'Promo One', channel: 'whatsapp', content: 'Hi', contactIds: [who.id] },
        422,
        'whatsapp_name_not_slug',
      ],
      [
        'WhatsApp unmapped placeholder',
        { name: 'promo_one', channel: 'whatsapp', content: 'Hi {{first}}', contactIds: [who.id] },
        422,
        'unmapped_placeholder',
      ],
      [
        'placeholder in both maps',
        {
          name: 'a',
          channel: 'email',
          content: '{{x}}',
          templateParams: { x: 'contact.name' },
          aiParams: { x: 'p' },
          agentId: suite.team.agentId,
          contactIds: [who.id],
        },
        422,
        'placeholder_in_both_maps',
      ],
      [
        'plain body over 5 000',
        { name: 'a', channel: 'email', content: 'x'.repeat(5001), contactIds: [who.id] },
        422,
        'body_too_long',
      ],
      [
        'HTML body over 50 000',
        { name: 'a', channel: 'email', content: 'x', contentHtml: 'x'.repeat(50001), contactIds: [who.id] },
        422,
        'body_too_long',
      ],
      [
        'aiParams without an agent integration (push)',
        {
          name: 'a',
          channel: 'push',
          content: '{{x}}',
          aiParams: { x: 'p' },
          agentId: suite.team.agentId,
          contactIds: [who.id],
        },
        422,
        'ai_params_need_agent',
      ],
      [
        'a bad placeholder name',
        { name: 'a', channel: 'email', content: 'x', templateParams: { 'Bad-Name': 'x' }, contactIds: [who.id] },
        400,
        'validation_error',
      ],
    ];
    for (const [name, body, status, code] of cases) {
      const res = await suite.api.post('/campaigns', body);
      expect([name, res.status, res.body.error?.code]).toEqual([name, status, code]);
    }
    const ok = await suite.api.post('/campaigns', {
      name: 'promo_one',
      channel: 'whatsapp',
      content: 'Hi {{first}}',
      templateParams: { first: 'contact.firstName' },
      language: 'en',
      category: 'MARKETING',
      contactIds: [who.id],
    });
    expect(ok.status).toBe(201);
    expect(ok.body.status).toBe('draft');
  });

  it('update keeps the audience when no source is sent, replaces it when one is, under the same non-empty rule', async () => {
    const [a, b] = [await contact({ tags: ['upd'] }), await contact()];
    const created = (await emailCampaign([b.id])).body;
    const renamed = await suite.api.call('PATCH', `/campaigns/${created.id}`, { name: 'Renamed' });
    expect(renamed.body).toMatchObject({ name: 'Renamed', contactIds: [b.id], tags: null });
    const retagged = await suite.api.call('PATCH', `/campaigns/${created.id}`, { tags: ['upd'], contactIds: null });
    expect(retagged.body).toMatchObject({ tags: ['upd'], contactIds: null });
    const emptied = await suite.api.call('PATCH', `/campaigns/${created.id}`, { tags: ['nobody-at-all'] });
    expect([emptied.status, emptied.body.error.code]).toEqual([422, 'empty_audience']);
    expect((await suite.api.get(`/campaigns/${created.id}`)).body.tags).toEqual(['upd']);
    void a;
  });

  it('sends: placeholders filled, skips with reasons, counters, recipients with retryable flags → Completed', async () => {
    const granted = [await contact(), await contact()];
    const pending = await contact({}, 'pending');
    const optedOut = await contact({}, 'granted', { optedOut: true });
    const noEmail = await contact({ email: undefined, phone: '+15551112222' });
    await suite.api.call('PATCH', `/contacts/${noEmail.id}`, { email: null });
    const campaign = (await emailCampaign([...granted, pending, optedOut, noEmail].map((c) => c.id))).body;

    const sent = await suite.api.post(`/campaigns/${campaign.id}/send`, {});
    expect(sent.status).toBe(200);
    expect(sent.body.status).toBe('sending');
    const done = await until(campaign.id, finished);
    expect(done).toMatchObject({
      status: 'completed',
      recipientCount: 5,
      sentCount: 2,
      skippedCount: 3,
      failedCount: 0,
    });
    for (const c of granted) {
      const [message] = suite.fake.byRecipient(c.email);
      expect(message.subject).toBe(`Hi ${c.firstName}`);
      expect(message.text.split('\n\n--\n')[0]).toBe(
        `Hello ${c.firstName} from Acme. Say hello warmly, ${c.firstName}. `,
      );
      expect(message.text).toMatch(/\n\n--\n.*Unsubscribe: http\S+\/unsubscribe\/ct_\S+\?sig=\S+$/);
      expect(message.headers).toMatchObject({
        'List-Unsubscribe': expect.stringMatching(/^<http.*\/unsubscribe\/ct_/),
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      });
      expect(message.from).toBe('news@acme.example');
    }
    expect(suite.fake.messages.size).toBe(2);
    // One outbound message per recipient sent, with the id the provider answered (also on the recipient).
    const outbound = await suite
      .db('outbound_messages')
      .where({ source_kind: 'campaign', source_id: campaign.id })
      .orderBy('contact_id');
    const sentRecipients = (await suite.api.get(`/campaigns/${campaign.id}/recipients?status=sent`)).body.data;
    expect(outbound).toHaveLength(2);
    for (const c of granted) {
      const [message] = suite.fake.byRecipient(c.email);
      expect(outbound.filter((m) => m.contact_id === c.id)).toEqual([
        expect.objectContaining({
          id: expect.stringMatching(/^msg_/),
          team_id: suite.team.teamId,
          agent_id: suite.team.agentId,
          channel: 'email',
          address: c.email,
          provider: 'resend',
          provider_message_id: message.id,
          status: 'sent',
          error: null,
          idempotency_key: `${campaign.id}:${c.id}:1`,
        }),
      ]);
      expect(sentRecipients.find((r: any) => r.contactId === c.id).providerMessageId).toBe(message.id);
    }
    const skipped = await suite.api.get(`/campaigns/${campaign.id}/recipients?status=skipped`);
    const reasons = Object.fromEntries(skipped.body.data.map((r: any) => [r.contactId, [r.skipReason, r.retryable]]));
    expect(reasons).toEqual({
      [pending.id]: ['pending_consent', false],
      [optedOut.id]: ['opted_out', false],
      [noEmail.id]: ['missing_channel', false], // retryable once the contact has an email (spec)
    });
    const stats = (await suite.api.get(`/campaigns/${campaign.id}/stats`)).body;
    expect(stats).toMatchObject({
      recipients: 5,
      sent: 2,
      skipped: 3,
      failed: 0,
      pending: 0,
      skipReasons: { pending_consent: 1, opted_out: 1, missing_channel: 1 },
    });
    const edit = await suite.api.call('PATCH', `/campaigns/${campaign.id}`, { name: 'late edit' });
    expect([edit.status, edit.body.error.code]).toEqual([409, 'invalid_state']);
    expect((await suite.api.post(`/campaigns/${campaign.id}/send`, {})).status).toBe(409);
  });

  it('a provider refusal fails that recipient (Failed, no longer editable); retry takes exactly the retryable ones and dispatches again', async () => {
    const [ok, refused] = [await contact(), await contact()];
    const noEmail = await contact();
    await suite.api.call('PATCH', `/contacts/${noEmail.id}`, { email: null });
    const pending = await contact({}, 'pending');
    const campaign = (await emailCampaign([ok.id, refused.id, noEmail.id, pending.id])).body;
    expect((await suite.api.post(`/campaigns/${campaign.id}/retry`, {})).status).toBe(409);
    suite.fake.fail({ status: 400 });
    await suite.api.post(`/campaigns/${campaign.id}/send`, {});
    const failed = await until(campaign.id, finished);
    expect(failed).toMatchObject({ status: 'failed', sentCount: 1, failedCount: 1, skippedCount: 2 });
    const failedRows = (await suite.api.get(`/campaigns/${campaign.id}/recipients?status=failed`)).body.data;
    expect(failedRows).toHaveLength(1);
    expect(failedRows[0]).toMatchObject({ retryable: true, error: { error: { code: 'provider_rejected' } } });
    const refusedOne = failedRows[0].contactId;
    const editFailed = await suite.api.call('PATCH', `/campaigns/${campaign.id}`, { name: 'edit after failure' });
    expect([editFailed.status, editFailed.body.error.code]).toEqual([409, 'invalid_state']);

    const fixedEmail = `fixed-${Date.now()}@example.test`;
    await suite.api.call('PATCH', `/contacts/${noEmail.id}`, { email: fixedEmail });
    const retried = await suite.api.post(`/campaigns/${campaign.id}/retry`, {});
    expect(retried.body).toEqual({ retried: 2 });
    const done = await until(campaign.id, (c) => finished(c) && c.sentCount === 3);
    expect(done).toMatchObject({ status: 'completed', sentCount: 3, failedCount: 0, skippedCount: 1 });
    const all = (await suite.api.get(`/campaigns/${campaign.id}/recipients?perPage=100`)).body.data;
    expect(all.find((r: any) => r.contactId === pending.id)).toMatchObject({
      status: 'skipped',
      skipReason: 'pending_consent',
      retryable: false,
    });
    expect(all.find((r: any) => r.contactId === refusedOne)).toMatchObject({ status: 'sent', error: null });
    // Nobody got the campaign twice: the one the first run reached was not retried.
    const reachedFirst = [ok, refused].find((c) => c.id !== refusedOne)!;
    expect(suite.fake.byRecipient(reachedFirst.email).map((m) => m.key.split(':')[2])).toEqual(['1']);
    expect(suite.fake.byRecipient(fixedEmail).map((m) => m.key.split(':')[2])).toEqual(['2']);
    const refusedMessages = await suite
      .db('outbound_messages')
      .where({ source_id: campaign.id, contact_id: refusedOne })
      .orderBy('seq');
    expect(
      refusedMessages.map((m) => [m.idempotency_key.split(':')[2], m.status, m.error?.error.code ?? null]),
    ).toEqual([
      ['1', 'failed', 'provider_rejected'],
      ['2', 'sent', null],
    ]);
    expect(refusedMessages[1].provider_message_id).toBe(
      all.find((r: any) => r.contactId === refusedOne).providerMessageId,
    );
    expect(await suite.api.post(`/campaigns/${campaign.id}/retry`, {})).toMatchObject({ body: { retried: 0 } });
  });

  it('schedules with a durable timer; cancel schedule returns it to Draft with scheduledAt cleared; a due schedule sends', async () => {
    const who = await contact();
    const campaign = (await emailCampaign([who.id])).body;
    expect((await suite.api.post(`/campaigns/${campaign.id}/cancel-schedule`)).status).toBe(409);
    const scheduled = await suite.api.post(`/campaigns/${campaign.id}/send`, {
      scheduledAt: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(scheduled.body).toMatchObject({ status: 'scheduled' });
    expect(scheduled.body.scheduledAt).not.toBeNull();
    const cancelled = await suite.api.post(`/campaigns/${campaign.id}/cancel-schedule`);
    expect(cancelled.body).toMatchObject({ status: 'draft', scheduledAt: null });
    expect(suite.fake.messages.size).toBe(0);

    await suite.api.post(`/campaigns/${campaign.id}/send`, { scheduledAt: new Date(Date.now() + 4_000).toISOString() });
    expect((await suite.api.get(`/campaigns/${campaign.id}`)).body.status).toBe('scheduled');
    const done = await until(campaign.id, finished);
    expect(done.status).toBe('completed');
    expect(suite.fake.byRecipient(who.email)).toHaveLength(1);
  });

  it('two sends at once: one starts the run, the other is 409; the audience gets one message each', async () => {
    const people = [await contact(), await contact()];
    const campaign = (await emailCampaign(people.map((p) => p.id))).body;
    const answers = await Promise.all([1, 2, 3].map(() => suite.api.post(`/campaigns/${campaign.id}/send`, {})));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409]);
    const done = await until(campaign.id, finished);
    expect(done).toMatchObject({ status: 'completed', sentCount: 2 });
    for (const p of people) expect(suite.fake.byRecipient(p.email)).toHaveLength(1);
    expect(await suite.db('campaigns').where({ id: campaign.id }).first('run')).toEqual({ run: 1 });
  });

  it('cancel send: remaining recipients fail with cancelled and the campaign ends Failed', async () => {
    const people = [];
    // Enough recipients that the send outlasts a slow signal on a loaded machine (batches of 5 at 300 ms).
    const rows = Array.from({ length: 120 }, (_, i) => ({
      id: newId('ct'),
      team_id: suite.team.teamId,
      name: `Bulk ${i}`,
      email: `bulk${i}-${Date.now()}@example.test`,
      marketing_consent: 'granted',
    }));
    await suite.db('contacts').insert(rows);
    people.push(...rows);
    const campaign = (await emailCampaign(people.map((p) => p.id))).body;
    expect((await suite.api.post(`/campaigns/${campaign.id}/cancel-send`)).status).toBe(409);
    // Batches of 5: cancel takes effect at the next batch boundary.
    const smallBatches = await startTestApi(suite.db, { CAMPAIGN_BATCH_SIZE: '5' });
    suite.fake.latencyMs = 300;
    await apiClient(smallBatches.baseUrl, suite.team).post(`/campaigns/${campaign.id}/send`, {});
    await smallBatches.close();
    await until(campaign.id, (c) => c.status === 'sending');
    while (suite.fake.requests === 0) await sleep(50);
    const cancelled = await suite.api.post(`/campaigns/${campaign.id}/cancel-send`);
    expect(cancelled.status).toBe(200);
    const done = await until(campaign.id, finished);
    expect(done.status).toBe('failed');
    expect(done.sentCount + done.failedCount).toBe(120);
    expect(done.failedCount).toBeGreaterThan(0);
    const reasons = (
      await suite.api.get(`/campaigns/${campaign.id}/recipients?status=failed&perPage=100`)
    ).body.data.map((r: any) => r.error.error.code);
    expect(new Set(reasons)).toEqual(new Set(['cancelled']));
    expect(suite.fake.messages.size).toBe(done.sentCount);
  });

  it('cancel send stops a batch in flight: of 200 recipients in one batch of 500, the rest are not sent', async () => {
    const rows = Array.from({ length: 200 }, (_, i) => ({
      id: newId('ct'),
      team_id: suite.team.teamId,
      name: `Inflight ${i}`,
      email: `inflight${i}-${Date.now()}@example.test`,
      marketing_consent: 'granted',
    }));
    await suite.db('contacts').insert(rows);
    const campaign = (await emailCampaign(rows.map((r) => r.id))).body;
    // 20 in flight at 400 ms each: the whole batch would take about 4 s.
    suite.fake.latencyMs = 400;
    await suite.api.post(`/campaigns/${campaign.id}/send`, {});
    while (suite.fake.requests === 0) await sleep(20);
    expect((await suite.api.post(`/campaigns/${campaign.id}/cancel-send`)).status).toBe(200);
    const done = await until(campaign.id, finished);
    suite.fake.latencyMs = 0;
    expect(done).toMatchObject({ status: 'failed', recipientCount: 200 });
    expect(done.sentCount + done.failedCount).toBe(200);
    // Those in flight finish (and are recorded sent); nobody is taken after the mark is seen.
    expect(done.sentCount).toBeLessThan(100);
    expect(suite.fake.messages.size).toBe(done.sentCount);
    const cancelled = (await suite.api.get(`/campaigns/${campaign.id}/stats`)).body;
    expect(cancelled).toMatchObject({ failed: done.failedCount, sent: done.sentCount, pending: 0 });
  });

  it('manual mode: nothing goes until approval cards are decided; skipped cards end approval_skipped and retry after approval', async () => {
    const people = [await contact(), await contact(), await contact()];
    const campaign = (await emailCampaign(people.map((p) => p.id))).body;
    await suite.api.call('PATCH', `/agents/${suite.team.agentId}`, { mode: 'manual' });
    try {
      await suite.api.post(`/campaigns/${campaign.id}/send`, {});
      let cards: any[] = [];
      for (let i = 0; i < 100 && cards.length < 3; i++) {
        await sleep(100);
        cards = (await suite.api.get(`/campaigns/${campaign.id}/cards`)).body.data;
      }
      expect(cards.map((c) => c.contactId).sort()).toEqual(people.map((p) => p.id).sort());
      expect((await suite.api.get(`/campaigns/${campaign.id}/stats`)).body).toMatchObject({
        awaitingApproval: 3,
        sent: 0,
      });
      expect(suite.fake.messages.size).toBe(0);

      const decided = await suite.api.post(`/campaigns/${campaign.id}/cards`, {
        approve: [people[0].id, people[1].id],
        skip: [people[2].id],
      });
      expect(decided.body).toEqual({ approved: 2, skipped: 1 });
      const done = await until(campaign.id, finished);
      expect(done).toMatchObject({ status: 'completed', sentCount: 2, skippedCount: 1 });
      expect(suite.fake.byRecipient(people[2].email)).toEqual([]);
      const skipped = (await suite.api.get(`/campaigns/${campaign.id}/recipients?status=skipped`)).body.data;
      expect(skipped).toEqual([
        expect.objectContaining({ contactId: people[2].id, skipReason: 'approval_skipped', retryable: true }),
      ]);
      expect((await suite.api.post(`/campaigns/${campaign.id}/cards`, { approve: 'all' })).status).toBe(409);

      expect((await suite.api.post(`/campaigns/${campaign.id}/retry`, {})).body).toEqual({ retried: 1 });
      const retried = await until(campaign.id, (c) => finished(c) && c.sentCount === 3);
      expect(retried.status).toBe('completed');
      expect(suite.fake.byRecipient(people[2].email)).toHaveLength(1);
    } finally {
      await suite.api.call('PATCH', `/agents/${suite.team.agentId}`, { mode: 'auto' });
    }
  });

  it('manual mode: cancel send closes the open cards; the rest fail with cancelled', async () => {
    const people = [await contact(), await contact()];
    const campaign = (await emailCampaign(people.map((p) => p.id))).body;
    await suite.api.call('PATCH', `/agents/${suite.team.agentId}`, { mode: 'manual' });
    try {
      await suite.api.post(`/campaigns/${campaign.id}/send`, {});
      for (let i = 0; i < 100 && (await suite.api.get(`/campaigns/${campaign.id}/cards`)).body.data.length < 2; i++)
        await sleep(100);
      await suite.api.post(`/campaigns/${campaign.id}/cancel-send`);
      const done = await until(campaign.id, finished);
      expect(done).toMatchObject({ status: 'failed', failedCount: 2, sentCount: 0 });
      expect((await suite.api.get(`/campaigns/${campaign.id}/cards`)).body.data).toEqual([]);
      expect(suite.fake.messages.size).toBe(0);
    } finally {
      await suite.api.call('PATCH', `/agents/${suite.team.agentId}`, { mode: 'auto' });
    }
  });

  it('test send: real subject and body with [TEST], email only, nothing of the campaign changes', async () => {
    const who = await contact();
    const campaign = (await emailCampaign([who.id])).body;
    const res = await suite.api.post(`/campaigns/${campaign.id}/send-test`, { contactId: who.id });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ sent: true, to: who.email, subject: `[TEST] Hi ${who.firstName}` });
    expect(suite.fake.byRecipient(who.email)[0].text).toContain(`Hello ${who.firstName} from Acme.`);
    expect(
      await suite
        .db('outbound_messages')
        .where({ source_id: campaign.id })
        .select('source_kind', 'contact_id', 'address', 'provider', 'provider_message_id', 'status'),
    ).toEqual([
      {
        source_kind: 'campaign_test',
        contact_id: who.id,
        address: who.email,
        provider: 'resend',
        provider_message_id: suite.fake.byRecipient(who.email)[0].id,
        status: 'sent',
      },
    ]);
    expect(res.body.providerMessageId).toBe(suite.fake.byRecipient(who.email)[0].id);
    expect((await suite.api.get(`/campaigns/${campaign.id}`)).body).toMatchObject({
      status: 'draft',
      sentCount: 0,
      recipientCount: 0,
    });
    expect((await suite.api.get(`/campaigns/${campaign.id}/recipients`)).body.data).toEqual([]);

    const noEmail = await contact();
    await suite.api.call('PATCH', `/contacts/${noEmail.id}`, { email: null });
    const missing = await suite.api.post(`/campaigns/${campaign.id}/send-test`, { contactId: noEmail.id });
    expect([missing.status, missing.body.error.code]).toEqual([422, 'test_send_requires_email']);
    const sms = (
      await suite.api.post('/campaigns', { name: 'sms one', channel: 'sms', content: 'Hi', contactIds: [who.id] })
    ).body;
    const notEmail = await suite.api.post(`/campaigns/${sms.id}/send-test`, { contactId: who.id });
    expect([notEmail.status, notEmail.body.error.code]).toEqual([422, 'test_send_requires_email']);
  });

  it('aiParams are written by the configured OpenAI-compatible API (here the fake) when AI_BASE_URL is set', async () => {
    const withAi = await startTestApi(suite.db, { AI_BASE_URL: `${suite.fake.baseUrl}/v1`, AI_API_KEY: 'sk-test' });
    try {
      const who = await contact();
      const campaign = (await emailCampaign([who.id])).body;
      const res = await apiClient(withAi.baseUrl, suite.team).post(`/campaigns/${campaign.id}/send-test`, {
        contactId: who.id,
      });
      expect(res.status).toBe(200);
      const [message] = suite.fake.byRecipient(who.email);
      expect(message.text.split('\n\n--\n')[0]).toBe(`Hello ${who.firstName} from Acme. AI says: Say hello warmly `);
    } finally {
      await withAi.close();
    }
  });

  it('archive only Completed or Failed (it leaves the active list); delete, edit and cancel schedule not while Sending; WhatsApp needs Approved to send', async () => {
    const who = await contact();
    const draft = (await emailCampaign([who.id])).body;
    expect((await suite.api.post(`/campaigns/${draft.id}/archive`)).status).toBe(409);
    await suite.api.post(`/campaigns/${draft.id}/send`, {});
    await until(draft.id, finished);
    expect((await suite.api.post(`/campaigns/${draft.id}/archive`)).body.archived).toBe(true);
    expect((await suite.api.get('/campaigns?limit=100')).body.data.map((c: any) => c.id)).not.toContain(draft.id);
    expect((await suite.api.get('/campaigns?archived=true&limit=100')).body.data.map((c: any) => c.id)).toContain(
      draft.id,
    );
    expect((await suite.api.post(`/campaigns/${draft.id}/retry`, {})).status).toBe(409);
    expect((await suite.api.post(`/campaigns/${draft.id}/unarchive`)).body.archived).toBe(false);
    expect(await suite.db('campaign_recipients').where({ campaign_id: draft.id }).count('* as n')).toEqual([{ n: 1 }]);
    expect((await suite.api.call('DELETE', `/campaigns/${draft.id}`)).status).toBe(204);
    // Its recipients go with it; its messages stay in the team's log.
    expect(await suite.db('campaign_recipients').where({ campaign_id: draft.id }).count('* as n')).toEqual([{ n: 0 }]);
    expect((await suite.api.get(`/messages?sourceId=${draft.id}`)).body.data).toHaveLength(1);

    const slow = [];
    for (let i = 0; i < 25; i++) slow.push(await contact());
    const sending = (await emailCampaign(slow.map((p) => p.id))).body;
    suite.fake.latencyMs = 500;
    await suite.api.post(`/campaigns/${sending.id}/send`, {});
    const blocked = await suite.api.call('DELETE', `/campaigns/${sending.id}`);
    expect([blocked.status, blocked.body.error.code]).toEqual([409, 'invalid_state']);
    const editSending = await suite.api.call('PATCH', `/campaigns/${sending.id}`, { content: 'changed mid-send' });
    expect([editSending.status, editSending.body.error.code]).toEqual([409, 'invalid_state']);
    const unschedule = await suite.api.post(`/campaigns/${sending.id}/cancel-schedule`);
    expect([unschedule.status, unschedule.body.error.code]).toEqual([409, 'invalid_state']);
    suite.fake.latencyMs = 0;
    await until(sending.id, finished);

    const wa = (
      await suite.api.post('/campaigns', {
        name: 'promo_two',
        channel: 'whatsapp',
        content: 'Hi',
        language: 'en',
        category: 'UTILITY',
        contactIds: [who.id],
      })
    ).body;
    const waSend = await suite.api.post(`/campaigns/${wa.id}/send`, {});
    expect([waSend.status, waSend.body.error.code]).toEqual([422, 'whatsapp_not_approved']);
  });

  it('email open and click webhooks: signature verified, first time per recipient counted, replays ignored', async () => {
    const [a, b] = [await contact(), await contact()];
    const campaign = (await emailCampaign([a.id, b.id])).body;
    await suite.api.post(`/campaigns/${campaign.id}/send`, {});
    await until(campaign.id, finished);
    const recipients = (await suite.api.get(`/campaigns/${campaign.id}/recipients?status=sent`)).body.data;
    const messageId = recipients.find((r: any) => r.contactId === a.id).providerMessageId;
    const post = (e: ReturnType<typeof signedEvent>) =>
      fetch(`${suite.server.baseUrl}/webhooks/email/resend`, { method: 'POST', headers: e.headers, body: e.body });

    const opened = await post(signedEvent('msg_1', { type: 'email.opened', data: { email_id: messageId } }));
    expect(await opened.json()).toEqual({ applied: true });
    expect((await post(signedEvent('msg_1', { type: 'email.opened', data: { email_id: messageId } }))).status).toBe(
      200,
    ); // replay
    await post(signedEvent('msg_2', { type: 'email.opened', data: { email_id: messageId } })); // second open, same recipient
    await post(signedEvent('msg_3', { type: 'email.clicked', data: { email_id: messageId } }));
    const unknown = await post(signedEvent('msg_4', { type: 'email.opened', data: { email_id: 'unknown-message' } }));
    expect([unknown.status, await unknown.json()]).toEqual([200, { applied: false }]);
    expect((await suite.api.get(`/campaigns/${campaign.id}`)).body).toMatchObject({ openedCount: 1, clickedCount: 1 });
    const rows = (await suite.api.get(`/campaigns/${campaign.id}/recipients?status=sent`)).body.data;
    const row = rows.find((r: any) => r.contactId === a.id);
    expect(row.opened_at).toEqual(expect.any(String));
    expect(row.clicked_at).toEqual(expect.any(String));
    expect(row).not.toHaveProperty('openedAt');
    expect(rows.find((r: any) => r.contactId === b.id)).toMatchObject({ opened_at: null, clicked_at: null });
    // The event was matched through the outbound message, which keeps the first open and click too.
    const outbound = await suite
      .db('outbound_messages')
      .where({ provider: 'resend', provider_message_id: messageId })
      .first();
    expect(outbound).toMatchObject({ source_kind: 'campaign', source_id: campaign.id, contact_id: a.id });
    expect([outbound.opened_at, outbound.clicked_at]).toEqual([expect.any(Date), expect.any(Date)]);

    // Opens of a test send and of an artifact delivery are matched on their messages; the campaign's counts do not move.
    const testSend = (await suite.api.post(`/campaigns/${campaign.id}/send-test`, { contactId: b.id })).body;
    const artifact = (
      await suite.api.post('/artifacts', {
        title: 'Offer',
        type: 'offer',
        url: 'https://example.test/o',
        status: 'ready',
        contactId: b.id,
      })
    ).body;
    const delivered = (
      await suite.api.post('/artifacts/deliver', {
        artifactIds: [artifact.id],
        message: 'Here it is.',
        integration: 'email',
      })
    ).body;
    expect(delivered.status).toBe('succeeded');
    for (const [i, id] of [testSend.providerMessageId, delivered.deliveries[0].providerMessageId].entries()) {
      expect(
        await (await post(signedEvent(`msg_other_${i}`, { type: 'email.opened', data: { email_id: id } }))).json(),
      ).toEqual({ applied: true });
      expect(
        (await suite.db('outbound_messages').where({ provider: 'resend', provider_message_id: id }).first()).opened_at,
      ).toEqual(expect.any(Date));
    }
    expect((await suite.api.get(`/campaigns/${campaign.id}`)).body).toMatchObject({ openedCount: 1, clickedCount: 1 });
    expect(
      (await suite.api.get(`/campaigns/${campaign.id}/recipients?status=sent`)).body.data.find(
        (r: any) => r.contactId === b.id,
      ).opened_at,
    ).toBeNull();

    const forged = await post(
      signedEvent(
        'msg_5',
        { type: 'email.opened', data: { email_id: messageId } },
        `whsec_${Buffer.from('not the key').toString('base64')}`,
      ),
    );
    expect([forged.status, ((await forged.json()) as any).error.code]).toEqual([401, 'invalid_signature']);
    const stale = await post(
      signedEvent(
        'msg_6',
        { type: 'email.clicked', data: { email_id: messageId } },
        WEBHOOK_SECRET,
        Math.floor(Date.now() / 1000) - 600,
      ),
    );
    expect(stale.status).toBe(401);
    const unknownProvider = await fetch(`${suite.server.baseUrl}/webhooks/email/postmark`, {
      method: 'POST',
      body: '{}',
    });
    expect(unknownProvider.status).toBe(404);
  });

  it('every marketing email carries a signed unsubscribe link that opts the contact out (GET asks, POST acts)', async () => {
    const who = await contact();
    const campaign = (await emailCampaign([who.id])).body;
    await suite.api.post(`/campaigns/${campaign.id}/send`, {});
    await until(campaign.id, finished);
    const [message] = suite.fake.byRecipient(who.email);
    const link = /Unsubscribe: (\S+)/
      .exec(message.text)![1]
      .replace(/^http:\/\/localhost:\d+\/v1/, suite.server.baseUrl);
    expect(message.headers!['List-Unsubscribe']).toContain(`/unsubscribe/${who.id}?sig=`);
    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect((await suite.api.get(`/contacts/${who.id}`)).body.optedOut).toBe(false);
    expect((await fetch(link.replace(/sig=[^&]+/, 'sig=forged'), { method: 'POST' })).status).toBe(403);
    const oneClick = await fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(oneClick.status).toBe(200);
    expect((await suite.api.get(`/contacts/${who.id}`)).body.optedOut).toBe(true);
    const preview = await suite.api.post('/campaigns/audience-preview', { campaignId: campaign.id });
    expect(preview.body.skipped.opted_out).toBe(1);
  });

  it('another suite.team sees none of it', async () => {
    const who = await contact();
    const campaign = (await emailCampaign([who.id])).body;
    const segment = (
      await suite.api.post('/segments', { name: 'ours', groups: [{ conditions: [{ type: 'has_email' }] }] })
    ).body;
    const other = apiClient(suite.server.baseUrl, await newTeam(suite.db, 'campaigns-other'));
    for (const path of [
      `/campaigns/${campaign.id}`,
      `/campaigns/${campaign.id}/recipients`,
      `/campaigns/${campaign.id}/stats`,
      `/segments/${segment.id}`,
      `/segments/${segment.id}/contacts`,
    ]) {
      expect([path, (await other.get(path)).status]).toEqual([path, 404]);
    }
    for (const action of ['send', 'cancel-schedule', 'cancel-send', 'retry', 'archive', 'unarchive']) {
      expect([action, (await other.post(`/campaigns/${campaign.id}/${action}`, {})).status]).toEqual([action, 404]);
    }
    expect((await other.get('/campaigns?limit=100')).body.data).toEqual([]);
    const steal = await other.post('/campaigns', { name: 'x', channel: 'email', content: 'x', segmentId: segment.id });
    expect([steal.status, steal.body.error.code]).toEqual([422, 'unknown_segment']);
  });
});
