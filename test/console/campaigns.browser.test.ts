import { createHmac } from 'node:crypto';
import type { Page } from 'playwright-core';
import { apiClient, newTeam, useProviderSuite } from '../support/helpers';
import {
  consoleFetch,
  DESKTOP,
  expectPageIsClean,
  PHONE,
  screenshot,
  scrollsSideways,
  textWhen,
  useConsoleSuite,
} from './consoleBrowser';

const WEBHOOK_SECRET = `whsec_${Buffer.from('a webhook signing key of 32 bytes').toString('base64')}`;

/** A Resend (Svix) webhook delivery, signed as the provider signs it. */
function signedEvent(id: string, event: unknown) {
  const body = JSON.stringify(event);
  const timestamp = Math.floor(Date.now() / 1000);
  const key = Buffer.from(WEBHOOK_SECRET.replace(/^whsec_/, ''), 'base64');
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

/**
 * Campaigns in the console, in Chromium: created, test-sent and sent from the page, with only the
 * actions the state allows, the recipients by status with skip reasons, and the two plots drawn
 * from the timeline (their uPlot data asserted), opens and clicks arriving by provider webhook.
 */
describe('console: campaigns', () => {
  const suite = useProviderSuite('console-campaigns', {
    EMAIL_WEBHOOK_SECRETS: JSON.stringify({ resend: WEBHOOK_SECRET }),
  });
  const browser = useConsoleSuite(suite);
  let n = 0;

  beforeEach(async () => {
    const res = await suite.api.call('PUT', `/agents/${suite.team.agentId}/integrations/email`, {
      provider: 'resend',
      config: { baseUrl: suite.fake.baseUrl },
      secrets: { apiKey: 're_test' },
      from: 'news@acme.example',
    });
    expect(res.status).toBe(200);
  });

  async function contact(name: string, opts: { email?: boolean; consent?: 'granted' | 'pending' }) {
    const created = await suite.api.post('/contacts', {
      name,
      ...(opts.email === false
        ? {}
        : { email: `${name.split(' ')[0].toLowerCase()}.${++n}.${Date.now()}@example.test` }),
      tags: ['newsletter'],
    });
    expect(created.status).toBe(201);
    if (opts.consent === 'granted')
      expect(
        (await suite.api.call('PATCH', `/contacts/${created.body.id}`, { marketingConsent: 'granted' })).status,
      ).toBe(200);
    return created.body as { id: string; name: string; email?: string };
  }

  const actionsShown = (page: Page) =>
    page.locator('#actions button').evaluateAll((els) => els.map((el) => el.getAttribute('data-action')));
  /** The data uPlot draws in a plot: [xs, ...series]. */
  const plotData = (page: Page, id: string) =>
    page.evaluate(`document.getElementById(${JSON.stringify(id)})?.uplot?.data ?? null`) as Promise<number[][] | null>;

  async function waitForPlot(page: Page, id: string, done: (data: number[][]) => boolean): Promise<number[][]> {
    for (let i = 0; i < 100; i++) {
      const data = await plotData(page, id);
      if (data && done(data)) return data;
      await page.waitForTimeout(200);
    }
    throw new Error(`plot ${id} never showed the expected data: ${JSON.stringify(await plotData(page, id))}`);
  }

  it('creates, test-sends and sends a campaign from the console; actions follow the state; the plots draw the send, opens and clicks', async () => {
    const ada = await contact('Ada Lovelace', { consent: 'granted' });
    const alan = await contact('Alan Turing', { consent: 'granted' });
    const grace = await contact('Grace Hopper', { consent: 'granted' });
    await contact('Nobody Mailable', { email: false, consent: 'granted' });
    await contact('Pending Person', { consent: 'pending' });

    const { page, complaints } = await browser.signedIn('/app/campaigns', DESKTOP);
    await textWhen(page.getByRole('status').first(), /campaigns/);
    await expectPageIsClean(page, complaints, 'console-20-campaigns-empty');

    await page.getByLabel('Name', { exact: true }).fill('November news');
    await page.getByLabel('Subject', { exact: true }).fill('Hi {{first}}');
    await page.getByLabel('Message ({{placeholder}} allowed)').fill('Hello {{first}}, here is what is new.');
    await page.getByLabel('Contacts with any of these tags').fill('newsletter');
    await page.getByLabel('{{first}}', { exact: true }).selectOption('contact');
    await page.getByLabel('Contact field for {{first}}').selectOption('contact.firstName');
    await Promise.all([
      page.waitForURL((url) => /^\/app\/campaigns\/cmp_/.test(url.pathname)),
      page.getByRole('button', { name: 'Create draft' }).click(),
    ]);
    const campaignId = new URL(page.url()).pathname.split('/').pop()!;
    await textWhen(page.getByRole('heading', { level: 1 }), /November news/);

    // A Draft: edit, send, test send, delete, and nothing the state forbids.
    await textWhen(page.locator('#actions'), /Send/);
    expect(await actionsShown(page)).toEqual(['edit', 'send', 'test-send', 'delete']);
    // What is hidden is what the API refuses: retry and archive of a Draft are invalid_state.
    for (const path of ['retry', 'archive', 'cancel-send', 'cancel-schedule']) {
      const res = await consoleFetch(page, 'POST', `/campaigns/${campaignId}/${path}`, {});
      expect([path, res.status, res.body.error.code]).toEqual([path, 409, 'invalid_state']);
    }

    // A test send to Ada: [TEST] subject, placeholders filled, nothing of the campaign changes.
    await page.getByRole('button', { name: 'Test send' }).click();
    await page.getByLabel('Send a [TEST] copy to').selectOption(ada.id);
    await page.getByRole('button', { name: 'Send test' }).click();
    expect(await textWhen(page.locator('#action-outcome'), /Done|\(/)).toBe('Done.');
    const test = suite.fake.byRecipient(ada.email!);
    expect(test.map((m) => m.subject)).toEqual(['[TEST] Hi Ada']);
    expect(test[0].text).toContain('Hello Ada, here is what is new.');

    // Send now from the console.
    const sendStarted = Date.now() / 1000;
    await page.locator('#actions').getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByRole('button', { name: 'Send campaign' }).click();
    await textWhen(page.locator('#content > div').first(), /completed/);
    const campaign = (await suite.api.get(`/campaigns/${campaignId}`)).body;
    expect(campaign).toMatchObject({ status: 'completed', sentCount: 3, skippedCount: 2, failedCount: 0 });
    for (const who of [ada, alan, grace])
      expect(suite.fake.byRecipient(who.email!).map((m) => m.subject)).toContain(`Hi ${who.name.split(' ')[0]}`);

    // Completed: retry, archive (and test send, delete); no edit, no send.
    await page.locator('#actions button[data-action="archive"]').waitFor();
    expect(await actionsShown(page)).toEqual(['test-send', 'retry', 'archive', 'delete']);
    const resend = await consoleFetch(page, 'POST', `/campaigns/${campaignId}/send`, {});
    expect([resend.status, resend.body.error.code]).toEqual([409, 'invalid_state']);

    // The plot of messages sent over time: cumulative, ending at the 3 sent, at the time they were sent.
    const sent = await waitForPlot(page, 'plot-sent', (d) => d[1][d[1].length - 1] === 3);
    const [xs, ys] = sent;
    expect(xs.length).toBe(ys.length);
    expect(ys).toEqual([...ys].sort((a, b) => a - b));
    expect(xs[0]).toBeGreaterThanOrEqual(Math.floor(sendStarted) - 1);
    expect(xs[xs.length - 1]).toBeLessThanOrEqual(Date.now() / 1000);
    const timeline = (await suite.api.get(`/campaigns/${campaignId}/timeline`)).body;
    expect(timeline.points.reduce((s: number, p: any) => s + p.sent, 0)).toBe(3);
    expect(xs).toEqual(timeline.points.map((p: any) => new Date(p.at).getTime() / 1000));

    // Recipients by status, with the skip reasons.
    await page.getByLabel('Status', { exact: true }).selectOption('skipped');
    // The filtered answer replaces the full list (which shows the skipped too): wait for it.
    for (let i = 0; i < 50 && (await page.locator('#recipients tbody tr').count()) !== 2; i++)
      await page.waitForTimeout(100);
    expect(await page.locator('#recipients tbody tr').count()).toBe(2);
    const skipped = await page.locator('#recipients').innerText();
    expect(skipped).toContain('missing channel');
    expect(skipped).toContain('pending consent');
    expect(await page.locator('#counts').innerText()).toMatch(/Skipped because\s+.*missing channel: 1/);

    // Opens and clicks come from the provider's webhooks; the second plot follows them.
    const rows = (await suite.api.get(`/campaigns/${campaignId}/recipients?status=sent`)).body.data;
    const messageOf = (email: string) => rows.find((r: any) => r.address === email).providerMessageId;
    const post = (id: string, type: string, email: string) => {
      const e = signedEvent(id, { type, data: { email_id: messageOf(email) } });
      return fetch(`${suite.server.baseUrl}/webhooks/email/resend`, {
        method: 'POST',
        headers: e.headers,
        body: e.body,
      });
    };
    for (const [id, type, who] of [
      ['evt_1', 'email.opened', ada],
      ['evt_2', 'email.opened', alan],
      ['evt_3', 'email.clicked', ada],
    ] as const)
      expect((await post(id, type, who.email!)).status).toBe(200);
    const engagement = await waitForPlot(
      page,
      'plot-engagement',
      (d) => d[1][d[1].length - 1] === 2 && d[2][d[2].length - 1] === 1,
    );
    expect(engagement.length).toBe(3);
    expect(await page.locator('#counts').innerText()).toMatch(/2\s*Opened[\s\S]*1\s*Clicked/);
    await page.getByLabel('Status', { exact: true }).selectOption('sent');
    await textWhen(page.locator('#recipients'), /sent/);
    await expectPageIsClean(page, complaints, 'console-21-campaign-completed-desktop');

    // Archive: now only unarchive (and test send, delete); archive and retry are hidden.
    await page.getByRole('button', { name: 'Archive' }).click();
    await page.locator('#actions button[data-action="unarchive"]').waitFor();
    expect(await actionsShown(page)).toEqual(['test-send', 'unarchive', 'delete']);
    const retryArchived = await consoleFetch(page, 'POST', `/campaigns/${campaignId}/retry`, {});
    expect([retryArchived.status, retryArchived.body.error.code]).toEqual([409, 'invalid_state']);

    await page.setViewportSize(PHONE);
    await page.reload();
    await waitForPlot(page, 'plot-sent', (d) => d[1][d[1].length - 1] === 3);
    expect(await scrollsSideways(page)).toBe(false);
    await expectPageIsClean(page, complaints, 'console-22-campaign-archived-phone');

    // The archived list has it; the active list does not.
    await page.goto(`${suite.server.url}/app/campaigns`);
    await textWhen(page.getByRole('status').first(), /campaigns/);
    expect(await page.locator(`tr[data-id="${campaignId}"]`).count()).toBe(0);
    await page.getByLabel('Show archived').check();
    await page.locator(`tr[data-id="${campaignId}"]`).waitFor();
    await screenshot(page, 'console-23-campaigns-archived-phone');
  });

  it('another team’s campaign is not found in the console, and its actions are refused as not found', async () => {
    const other = await newTeam(suite.db, 'console-campaigns-other');
    const otherApi = apiClient(suite.server.baseUrl, other);
    const theirContact = (
      await otherApi.post('/contacts', { name: 'Their Person', email: 'their@example.test', tags: ['x'] })
    ).body;
    const theirs = (
      await otherApi.post('/campaigns', {
        name: 'Their news',
        channel: 'email',
        subject: 'S',
        content: 'C',
        tags: ['x'],
      })
    ).body;
    expect(theirs.id).toMatch(/^cmp_/);

    const { page, complaints } = await browser.signedIn(`/app/campaigns/${theirs.id}`, DESKTOP);
    expect(await textWhen(page.getByRole('alert'), /not found/)).toBe('Campaign not found.');
    expect(await page.locator('#actions').count()).toBe(0);
    for (const [method, path, body] of [
      ['GET', `/campaigns/${theirs.id}/timeline`, undefined],
      ['GET', `/campaigns/${theirs.id}/recipients`, undefined],
      ['POST', `/campaigns/${theirs.id}/send`, {}],
      ['POST', `/campaigns/${theirs.id}/send-test`, { contactId: theirContact.id }],
      ['DELETE', `/campaigns/${theirs.id}`, undefined],
    ] as const) {
      const res = await consoleFetch(page, method, path, body);
      expect([path, res.status, res.body.error.code]).toEqual([path, 404, 'not_found']);
    }
    expect((await otherApi.get(`/campaigns/${theirs.id}`)).body.status).toBe('draft');
    await expectPageIsClean(page, complaints, 'console-24-campaign-not-found');
  });

  it('schedules and cancels the schedule, and cancels a send held by approval cards, with the buttons following each state', async () => {
    const reader = await contact('Rita Reader', { consent: 'granted' });
    const campaign = (
      await suite.api.post('/campaigns', {
        name: 'Later news',
        channel: 'email',
        subject: 'Later',
        content: 'Hello later.',
        contactIds: [reader.id],
      })
    ).body;
    const { page, complaints } = await browser.signedIn(`/app/campaigns/${campaign.id}`, DESKTOP);
    await page.locator('#actions button[data-action="send"]').waitFor();

    // Send at a time tomorrow: Scheduled, and only cancel schedule (with test send and delete) is offered.
    await page.locator('#actions').getByRole('button', { name: 'Send', exact: true }).click();
    const tomorrow = new Date(Date.now() + 24 * 3600 * 1000);
    const local = new Date(tomorrow.getTime() - tomorrow.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    await page.getByLabel('Send at (empty: now)').fill(local);
    await page.getByRole('button', { name: 'Send campaign' }).click();
    await page.locator('#actions button[data-action="cancel-schedule"]').waitFor();
    expect(await actionsShown(page)).toEqual(['cancel-schedule', 'test-send', 'delete']);
    const scheduled = (await suite.api.get(`/campaigns/${campaign.id}`)).body;
    expect(scheduled.status).toBe('scheduled');
    expect(scheduled.scheduledAt.slice(0, 16)).toBe(new Date(local).toISOString().slice(0, 16));
    await expectPageIsClean(page, complaints, 'console-25-campaign-scheduled');
    await page.getByRole('button', { name: 'Cancel schedule' }).click();
    await page.locator('#actions button[data-action="send"]').waitFor();
    expect(await actionsShown(page)).toEqual(['edit', 'send', 'test-send', 'delete']);
    expect((await suite.api.get(`/campaigns/${campaign.id}`)).body).toMatchObject({
      status: 'draft',
      scheduledAt: null,
    });

    // A Draft is edited in place: the page and the API show the new text.
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Later news, revised');
    await page.getByLabel('Message ({{placeholder}} allowed)').fill('Hello later, revised.');
    await page.getByRole('button', { name: 'Save' }).click();
    await textWhen(page.getByRole('heading', { level: 1 }), /revised/);
    expect(await textWhen(page.locator('#content .message').first(), /revised/)).toBe('Hello later, revised.');
    expect((await suite.api.get(`/campaigns/${campaign.id}`)).body).toMatchObject({
      name: 'Later news, revised',
      content: 'Hello later, revised.',
      status: 'draft',
    });

    // A manual-mode agent holds the send on approval cards: Sending offers cancel send (and test send) only.
    expect((await suite.api.call('PATCH', `/agents/${suite.team.agentId}`, { mode: 'manual' })).status).toBe(200);
    try {
      await page.locator('#actions').getByRole('button', { name: 'Send', exact: true }).click();
      await page.getByRole('button', { name: 'Send campaign' }).click();
      await page.locator('#actions button[data-action="cancel-send"]').waitFor();
      expect(await actionsShown(page)).toEqual(['cancel-send', 'test-send']);
      await textWhen(page.locator('#counts'), /1\s*Awaiting approval/);
      await page.getByRole('button', { name: 'Cancel send' }).click();
      await page.locator('#actions button[data-action="retry"]').waitFor();
      expect(await actionsShown(page)).toEqual(['test-send', 'retry', 'archive', 'delete']);
      expect((await suite.api.get(`/campaigns/${campaign.id}`)).body).toMatchObject({
        status: 'failed',
        failedCount: 1,
      });
      await page.getByLabel('Status', { exact: true }).selectOption('failed');
      expect(await textWhen(page.locator('#recipients'), /cancelled/)).toContain(reader.email);
      expect(suite.fake.byRecipient(reader.email!)).toEqual([]);

      // Delete asks once more, then the campaign is gone.
      await page.getByRole('button', { name: 'Delete' }).click();
      await Promise.all([
        page.waitForURL((url) => url.pathname === '/app/campaigns'),
        page.getByRole('button', { name: 'Delete for good' }).click(),
      ]);
      expect((await suite.api.get(`/campaigns/${campaign.id}`)).status).toBe(404);
    } finally {
      await suite.api.call('PATCH', `/agents/${suite.team.agentId}`, { mode: 'auto' });
    }
  });
});
