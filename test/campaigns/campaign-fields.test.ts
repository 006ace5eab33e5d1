import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { newId } from '../../db/ids';
import { apiClient, newTeam, useProviderSuite } from '../support/helpers';
import { mcpClient, ok } from '../support/mcpHelpers';
import { campaignKit } from './campaignKit';

/**
 * Campaign fields through the HTTP API (and MCP for the list): scheduledAt on create and edit,
 * each channel's own fields (push title, email subject and HTML, WhatsApp language and category),
 * and the campaign list newest first. Issue 38 items 5, 6 and 8.
 */
describe('campaign fields', () => {
  const suite = useProviderSuite('campaign-fields');
  const { contact, until, finished } = campaignKit(() => suite.api);
  const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString();

  beforeAll(async () => {
    const fake = suite.fake.baseUrl;
    for (const [channel, body] of Object.entries({
      email: { provider: 'resend', config: { baseUrl: fake }, secrets: { apiKey: 'k' }, from: 'news@acme.example' },
      push: { provider: 'fcm', config: { baseUrl: fake, projectId: 'p1' }, secrets: { accessToken: 't' } },
      whatsapp: {
        provider: 'whatsapp_cloud',
        config: { baseUrl: fake, phoneNumberId: '555', businessAccountId: 'waba1' },
        secrets: { accessToken: 'wa' },
      },
    })) {
      const res = await suite.api.call('PUT', `/agents/${suite.team.agentId}/integrations/${channel}`, body);
      expect([channel, res.status]).toEqual([channel, 200]);
    }
  });

  const emailCampaign = (contactIds: string[], extra: Record<string, unknown> = {}) =>
    suite.api.post('/campaigns', {
      name: `Fields ${randomUUID().slice(0, 8)}`,
      channel: 'email',
      subject: 'Hi {{first}}',
      content: 'Hello {{first}}',
      templateParams: { first: 'contact.firstName' },
      contactIds,
      ...extra,
    });

  describe('scheduledAt on create and edit (item 5)', () => {
    it('a campaign created with scheduledAt stays Draft and sends nothing; its send is Scheduled for then and sends when due', async () => {
      const who = await contact();
      const at = inSeconds(4);
      const created = await emailCampaign([who.id], { scheduledAt: at });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ status: 'draft', scheduledAt: at, startedAt: null });
      expect(created.body.actions).toContain('send');
      expect((await suite.api.get(`/campaigns/${created.body.id}`)).body).toMatchObject({
        status: 'draft',
        scheduledAt: at,
      });

      const sent = await suite.api.post(`/campaigns/${created.body.id}/send`, {});
      expect([sent.status, sent.body.status, sent.body.scheduledAt]).toEqual([200, 'scheduled', at]);
      expect(suite.fake.byRecipient(who.email!)).toEqual([]);
      const done = await until(created.body.id, finished);
      expect(done).toMatchObject({ status: 'completed', sentCount: 1 });
      const [message] = suite.fake.byRecipient(who.email!);
      expect(message.subject).toBe(`Hi ${who.firstName}`);
      // Not before its time (a second of slack for the clocks of the fake and the worker).
      expect(message.receivedAt).toBeGreaterThanOrEqual(new Date(at).getTime() - 1000);
    });

    it('edit sets, moves and clears scheduledAt (still Draft); a time in the send wins; null sends now; a past one sends now', async () => {
      const who = await contact();
      const campaign = (await emailCampaign([who.id])).body;
      expect(campaign.scheduledAt).toBeNull();
      const later = inSeconds(3600);
      const set = await suite.api.call('PATCH', `/campaigns/${campaign.id}`, { scheduledAt: later });
      expect([set.status, set.body.status, set.body.scheduledAt]).toEqual([200, 'draft', later]);
      // Any offset is taken, and answered in UTC.
      const withOffset = await suite.api.call('PATCH', `/campaigns/${campaign.id}`, {
        scheduledAt: '2099-01-02T10:00:00+02:00',
      });
      expect(withOffset.body.scheduledAt).toBe('2099-01-02T08:00:00.000Z');
      const cleared = await suite.api.call('PATCH', `/campaigns/${campaign.id}`, { scheduledAt: null });
      expect([cleared.status, cleared.body.scheduledAt]).toEqual([200, null]);
      // An edit that does not name it keeps it.
      await suite.api.call('PATCH', `/campaigns/${campaign.id}`, { scheduledAt: later });
      expect((await suite.api.call('PATCH', `/campaigns/${campaign.id}`, { name: 'Renamed' })).body).toMatchObject({
        name: 'Renamed',
        scheduledAt: later,
      });

      // The send's own time wins over the campaign's; cancel schedule clears it, back to Draft.
      const other = inSeconds(7200);
      const scheduled = await suite.api.post(`/campaigns/${campaign.id}/send`, { scheduledAt: other });
      expect([scheduled.body.status, scheduled.body.scheduledAt]).toEqual(['scheduled', other]);
      const unscheduled = await suite.api.post(`/campaigns/${campaign.id}/cancel-schedule`);
      expect(unscheduled.body).toMatchObject({ status: 'draft', scheduledAt: null });

      // null in the send: now, whatever the campaign's own time.
      await suite.api.call('PATCH', `/campaigns/${campaign.id}`, { scheduledAt: later });
      const now = await suite.api.post(`/campaigns/${campaign.id}/send`, { scheduledAt: null });
      expect([now.status, now.body.status]).toEqual([200, 'sending']);
      expect((await until(campaign.id, finished)).sentCount).toBe(1);

      // A time already past (the spec: "no or past scheduledAt" sends): Sending at once.
      const late = await contact();
      const past = (await emailCampaign([late.id], { scheduledAt: new Date(Date.now() - 60_000).toISOString() })).body;
      expect(past.status).toBe('draft');
      const sentPast = await suite.api.post(`/campaigns/${past.id}/send`, {});
      expect([sentPast.status, sentPast.body.status]).toEqual([200, 'sending']);
      expect(await until(past.id, finished)).toMatchObject({ status: 'completed', sentCount: 1 });
      expect(suite.fake.byRecipient(late.email!)).toHaveLength(1);
    });

    it("an Approved WhatsApp campaign's scheduledAt is edited without losing the approval; its send is Scheduled for then", async () => {
      const who = await contact({ phone: '+15550002001' });
      const c = (
        await suite.api.post('/campaigns', {
          name: `promo_${randomUUID().slice(0, 8)}`,
          channel: 'whatsapp',
          content: 'Hi {{first}}',
          templateParams: { first: 'contact.firstName' },
          language: 'en',
          category: 'UTILITY',
          contactIds: [who.id],
          scheduledAt: inSeconds(3600),
        })
      ).body;
      expect((await suite.api.post(`/campaigns/${c.id}/whatsapp/submit`)).body.status).toBe('pending');
      await until(c.id, () => [...suite.fake.templates.values()].some((t) => t.name === c.name));
      [...suite.fake.templates.values()].find((t) => t.name === c.name)!.status = 'APPROVED';
      await suite.api.post(`/campaigns/${c.id}/whatsapp/refresh`);
      await until(c.id, (x) => x.status === 'approved');

      const at = inSeconds(3);
      const moved = await suite.api.call('PATCH', `/campaigns/${c.id}`, { scheduledAt: at });
      expect([moved.status, moved.body.status, moved.body.scheduledAt]).toEqual([200, 'approved', at]);
      const sent = await suite.api.post(`/campaigns/${c.id}/send`, {});
      expect([sent.body.status, sent.body.scheduledAt]).toEqual(['scheduled', at]);
      expect(await until(c.id, finished)).toMatchObject({ status: 'completed', sentCount: 1 });
      expect(suite.fake.byRecipient('+15550002001')).toHaveLength(1);
    });

    it('a scheduledAt that is not an ISO 8601 date-time is 400 validation_error, on create, edit and send', async () => {
      const who = await contact();
      const campaign = (await emailCampaign([who.id])).body;
      for (const [what, res] of [
        ['create', await emailCampaign([who.id], { scheduledAt: 'tomorrow' })],
        ['edit', await suite.api.call('PATCH', `/campaigns/${campaign.id}`, { scheduledAt: '2099-13-01T00:00:00Z' })],
        ['send', await suite.api.post(`/campaigns/${campaign.id}/send`, { scheduledAt: 12 })],
      ] as const) {
        expect([what, res.status, res.body.error?.code]).toEqual([what, 400, 'validation_error']);
        expect(res.body.error.details.issues[0].path).toBe('scheduledAt');
      }
      expect((await suite.api.get(`/campaigns/${campaign.id}`)).body).toMatchObject({
        status: 'draft',
        scheduledAt: null,
      });
    });
  });

  describe("each channel's own fields (item 6)", () => {
    it('push takes a title, sent as the notification title with its placeholders filled; edit changes it', async () => {
      const who = await contact({ properties: { pushToken: `device-${randomUUID().slice(0, 8)}` } });
      const created = await suite.api.post('/campaigns', {
        name: 'Push news',
        channel: 'push',
        title: 'Hi {{first}}',
        content: 'Something new for you, {{first}}',
        templateParams: { first: 'contact.firstName' },
        contactIds: [who.id],
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ channel: 'push', title: 'Hi {{first}}', subject: null });
      const edited = await suite.api.call('PATCH', `/campaigns/${created.body.id}`, { title: 'Hello {{first}}' });
      expect([edited.status, edited.body.title, edited.body.subject]).toEqual([200, 'Hello {{first}}', null]);
      await suite.api.post(`/campaigns/${created.body.id}/send`, {});
      expect(await until(created.body.id, finished)).toMatchObject({ status: 'completed', sentCount: 1 });
      const [push] = [...suite.fake.messages.values()].filter((m) => m.provider === 'fcm');
      expect(push).toMatchObject({
        subject: `Hello ${who.firstName}`, // the fake's name for the notification's title
        text: `Something new for you, ${who.firstName}`,
      });
    });

    it("a channel's field on another channel is 422 with its rule's code, on create and on edit", async () => {
      const who = await contact({ phone: '+15550001111', properties: { pushToken: 'device-rules' } });
      const base = (channel: string) => ({
        name: `rule_${channel}`,
        channel,
        content: 'Hello',
        contactIds: [who.id],
        ...(channel === 'whatsapp' ? { language: 'en', category: 'MARKETING' } : {}),
      });
      const cases: [string, Record<string, unknown>, string][] = [
        ['email', { title: 'T' }, 'title_push_only'],
        ['email', { language: 'en' }, 'language_whatsapp_only'],
        ['email', { category: 'UTILITY' }, 'category_whatsapp_only'],
        ['push', { subject: 'S' }, 'subject_not_for_channel'],
        ['push', { contentHtml: '<p>x</p>' }, 'html_email_only'],
        ['push', { language: 'en' }, 'language_whatsapp_only'],
        ['sms', { subject: 'S' }, 'subject_not_for_channel'],
        ['sms', { title: 'T' }, 'title_push_only'],
        ['sms', { category: 'MARKETING' }, 'category_whatsapp_only'],
        ['whatsapp', { subject: 'S' }, 'subject_not_for_channel'],
        ['whatsapp', { title: 'T' }, 'title_push_only'],
        ['whatsapp', { contentHtml: '<p>x</p>' }, 'html_email_only'],
      ];
      const field = (extra: Record<string, unknown>) => Object.keys(extra)[0];
      for (const [channel, extra, code] of cases) {
        const res = await suite.api.post('/campaigns', { ...base(channel), ...extra });
        expect([channel, extra, res.status, res.body.error?.code, res.body.error?.details]).toEqual([
          channel,
          extra,
          422,
          code,
          { field: field(extra), channel },
        ]);
      }
      // The same rules on edit; the campaign is left as it was.
      const drafts = Object.fromEntries(
        await Promise.all(
          ['email', 'push', 'sms', 'whatsapp'].map(
            async (channel) => [channel, (await suite.api.post('/campaigns', base(channel))).body] as const,
          ),
        ),
      );
      for (const [channel, extra, code] of cases) {
        const res = await suite.api.call('PATCH', `/campaigns/${drafts[channel].id}`, extra);
        expect([channel, extra, res.status, res.body.error?.code]).toEqual([channel, extra, 422, code]);
      }
      for (const draft of Object.values(drafts))
        expect((await suite.api.get(`/campaigns/${draft.id}`)).body).toMatchObject({
          subject: null,
          title: null,
          contentHtml: null,
          updatedAt: draft.updatedAt,
        });
      // Clearing a field the channel does not have is no violation.
      const cleared = await suite.api.call('PATCH', `/campaigns/${drafts.email.id}`, { title: null, language: null });
      expect(cleared.status).toBe(200);
      // Each channel keeps its own: email a subject and HTML, WhatsApp a language and category.
      const email = await suite.api.call('PATCH', `/campaigns/${drafts.email.id}`, {
        subject: 'S',
        contentHtml: '<p>x</p>',
      });
      expect(email.body).toMatchObject({ subject: 'S', contentHtml: '<p>x</p>', title: null, language: null });
      expect((await suite.api.get(`/campaigns/${drafts.whatsapp.id}`)).body).toMatchObject({
        language: 'en',
        category: 'MARKETING',
      });
      const badCategory = await suite.api.post('/campaigns', { ...base('whatsapp'), category: 'PROMO' });
      expect([badCategory.status, badCategory.body.error.code]).toEqual([400, 'validation_error']);
    });

    it('campaigns stored before these rules read by them: a push subject is its title, an email language is not shown, and an edit goes through', async () => {
      const who = await contact({ properties: { pushToken: 'device-stored' } });
      const row = (channel: string, extra: Record<string, unknown>) => ({
        id: newId('cmp'),
        team_id: suite.team.teamId,
        name: `stored ${channel}`,
        channel,
        content: 'Hello',
        contact_ids: [who.id],
        template_params: '{}',
        ai_params: '{}',
        ...extra,
      });
      const push = row('push', { subject: 'Stored title' });
      const email = row('email', { subject: 'Stored subject', language: 'en' });
      await suite.db('campaigns').insert([push, email]);
      expect((await suite.api.get(`/campaigns/${push.id}`)).body).toMatchObject({
        title: 'Stored title',
        subject: null,
      });
      expect((await suite.api.get(`/campaigns/${email.id}`)).body).toMatchObject({
        subject: 'Stored subject',
        language: null,
      });
      const renamed = await suite.api.call('PATCH', `/campaigns/${email.id}`, { name: 'renamed' });
      expect([renamed.status, renamed.body.name, renamed.body.language]).toEqual([200, 'renamed', null]);
      const pushRenamed = await suite.api.call('PATCH', `/campaigns/${push.id}`, { name: 'renamed push' });
      expect([pushRenamed.status, pushRenamed.body.title]).toEqual([200, 'Stored title']);
    });
  });

  describe('the list, newest first (item 8)', () => {
    let mcp: Client | undefined;
    afterAll(async () => {
      await mcp?.close();
    });

    it('GET /campaigns, list_campaigns and svc-campaign-list answer the newest first, a page at a time', async () => {
      // A team of its own, so the list holds exactly these.
      const team = await newTeam(suite.db, 'campaign-list');
      const api = apiClient(suite.server.baseUrl, team);
      const who = (await api.post('/contacts', { name: 'List Person', email: `list-${Date.now()}@example.test` })).body;
      const ids: string[] = [];
      for (const name of ['first', 'second', 'third']) {
        const res = await api.post('/campaigns', { name, channel: 'sms', content: 'Hi', contactIds: [who.id] });
        expect(res.status).toBe(201);
        ids.push(res.body.id);
      }
      const newestFirst = [...ids].reverse();

      const page1 = (await api.get('/campaigns?limit=2')).body;
      expect(page1.data.map((c: any) => c.name)).toEqual(['third', 'second']);
      expect(page1.pagination.nextCursor).toEqual(expect.any(String));
      const page2 = (await api.get(`/campaigns?limit=2&cursor=${page1.pagination.nextCursor}`)).body;
      expect(page2).toMatchObject({
        data: [expect.objectContaining({ id: ids[0] })],
        pagination: { nextCursor: null },
      });

      expect((await api.call('PUT', '/apps/campaigns')).body).toMatchObject({ installed: true });
      mcp = await mcpClient(suite.server.ctx.config.mcpEndpoint, team.token);
      const listed = await ok(mcp, 'list_campaigns', { limit: 2 });
      expect(listed.data.map((c: any) => c.id)).toEqual(newestFirst.slice(0, 2));
      const rest = await ok(mcp, 'list_campaigns', { limit: 2, cursor: listed.pagination.nextCursor });
      expect(rest.data.map((c: any) => c.id)).toEqual(newestFirst.slice(2));
      const warp = await ok(mcp, 'execute', { warp: 'svc-campaign-list', inputs: {} });
      expect(warp.result.data.map((c: any) => c.id)).toEqual(newestFirst);
    });
  });
});
