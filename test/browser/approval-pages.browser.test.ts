import type { Browser, BrowserContext, Page } from 'playwright-core';
import { requestApproval } from '../../services/deliveries/warps';
import { sleep, useProviderSuite } from '../support/helpers';
import { collectBrowserComplaints, launchChromium, screenshot } from './chromium';

/**
 * The pages a person reaches from a link in a message, in Chromium: the signed approval link of a
 * manual-mode delivery (and of a sensitive MCP write), and a marketing email's unsubscribe link.
 * A browser enforces the pages' CSP (form-action) and shows whether a long link fits a phone.
 */
describe('approval and unsubscribe pages in a real browser', () => {
  const suite = useProviderSuite('approval-pages');
  const PHONE = { width: 390, height: 844 };
  const DESKTOP = { width: 1280, height: 800 };
  const AGENT_NAME = 'Studio Concierge';
  const TEAM_NAME = 'Hopper & Partners Design';
  let chromium: Browser;
  let context: BrowserContext | undefined;
  let n = 0;

  beforeAll(async () => {
    chromium = await launchChromium();
    expect((await suite.api.call('PATCH', '/team', { name: TEAM_NAME })).status).toBe(200);
    expect(
      (await suite.api.call('PATCH', `/agents/${suite.team.agentId}`, { name: AGENT_NAME, mode: 'manual' })).body,
    ).toMatchObject({ name: AGENT_NAME, mode: 'manual' });
  });
  afterAll(async () => {
    await chromium?.close();
  });
  afterEach(async () => {
    await context?.close();
    context = undefined;
  });
  // The fake provider is reset before each test, so each test sets its integration again.
  beforeEach(async () => {
    const res = await suite.api.call('PUT', `/agents/${suite.team.agentId}/integrations/email`, {
      provider: 'resend',
      config: { baseUrl: suite.fake.baseUrl },
      secrets: { apiKey: 're_test' },
      from: 'studio@hopper.example',
    });
    expect(res.status).toBe(200);
  });

  async function openPage(viewport: { width: number; height: number }): Promise<{ page: Page; complaints: string[] }> {
    context = await chromium.newContext({ viewport });
    const page = await context.newPage();
    // A form the CSP blocks never navigates: fail in seconds, not at the test's timeout.
    page.setDefaultNavigationTimeout(10_000);
    return { page, complaints: collectBrowserComplaints(page) };
  }

  async function contact(name: string, extra: Record<string, unknown> = {}) {
    const res = await suite.api.post('/contacts', {
      name,
      email: `${name.split(' ')[0].toLowerCase()}.${++n}.${Date.now()}@example.test`,
      ...extra,
    });
    expect(res.status).toBe(201);
    return res.body as { id: string; name: string; email: string };
  }

  /** A manual-mode delivery waiting for approval, with its draft, and a fresh signed link to it. */
  async function pendingDelivery(recipients: { id: string }[], message: string) {
    const form = new FormData();
    form.append('file', new Blob(['%PDF'], { type: 'application/pdf' }), 'signed-agreement-final-version.pdf');
    const media = (await (
      await fetch(`${suite.server.baseUrl}/media`, {
        method: 'POST',
        headers: { authorization: `Bearer ${suite.team.token}`, 'x-team-slug': suite.team.slug },
        body: form,
      })
    ).json()) as { id: string };
    const artifact = (
      await suite.api.post('/artifacts', {
        title: `Brand guidelines ${++n}`,
        type: 'offer',
        status: 'ready',
        media: [media.id],
        // No spaces for a browser to break at: this must wrap inside the card, not widen it.
        url: `https://files.example.test/${'deliverables/'.repeat(12)}brand-guidelines-final.pdf`,
      })
    ).body;
    const res = await suite.api.post('/artifacts/deliver', {
      artifactIds: [artifact.id],
      message,
      integration: 'email',
      contactIds: recipients.map((r) => r.id),
      subject: 'Your brand guidelines',
    });
    expect(res.status).toBe(202);
    const executionId: string = res.body.executionId;
    let execution: any;
    for (let i = 0; i < 100 && !execution?.draft; i++) {
      execution = (await suite.api.get(`/warp-executions/${executionId}`)).body;
      if (!execution.draft) await sleep(150);
    }
    expect(execution.draft).not.toBeNull();
    const link = await suite.api.post(`/warp-executions/${executionId}/approval-link`);
    expect(link.status).toBe(201);
    return { executionId, artifact, url: link.body.url as string, execution };
  }

  async function waitForExecution(executionId: string) {
    for (let i = 0; i < 100; i++) {
      const execution = (await suite.api.get(`/warp-executions/${executionId}`)).body;
      if (!['pending_approval', 'running'].includes(execution.status)) return execution;
      await sleep(150);
    }
    throw new Error(`execution ${executionId} did not settle`);
  }

  /** Nothing on the page is wider than the screen: no sideways scrolling, the card and message fit. */
  async function expectNothingOverflows(page: Page, viewportWidth: number) {
    const measured = (await page.evaluate(`(() => {
      const boxes = [...document.querySelectorAll('main, main *')].map((el) => ({ tag: el.tagName, right: el.getBoundingClientRect().right, scroll: el.scrollWidth, client: el.clientWidth }));
      return { pageWidth: document.documentElement.scrollWidth, widest: Math.max(...boxes.map((b) => b.right)), clipped: boxes.filter((b) => b.client > 0 && b.scroll > b.client + 1) };
    })()`)) as { pageWidth: number; widest: number; clipped: unknown[] };
    expect(measured.pageWidth).toBeLessThanOrEqual(viewportWidth);
    expect(measured.widest).toBeLessThanOrEqual(viewportWidth);
    expect(measured.clipped).toEqual([]);
  }

  const MONTHS = [
    'January',
    'February',
    'March',
    'April',
    'May',
    'June',
    'July',
    'August',
    'September',
    'October',
    'November',
    'December',
  ];

  it('a delivery link shows recipients, channel, agent, team, message and expiry; fits a phone; approving sends; the used link says so', async () => {
    const grace = await contact('Grace Hopper');
    const alan = await contact('Alan Turing');
    const delivery = await pendingDelivery([grace, alan], 'Here are the brand guidelines we discussed on Tuesday.');

    const { page, complaints } = await openPage(PHONE);
    const response = await page.goto(delivery.url);
    expect(response!.status()).toBe(200);
    const text = await page.locator('main').innerText();
    expect(text).toContain('Approve this delivery?');
    for (const who of [grace, alan]) {
      expect(text).toContain(who.name);
      expect(text).toContain(who.email);
    }
    expect(text).toMatch(/Channel\s+Email/);
    expect(text).toContain(AGENT_NAME);
    expect(text).toContain(TEAM_NAME);
    expect(text).toContain('Your brand guidelines');
    expect(text).toContain('Here are the brand guidelines we discussed on Tuesday.');
    expect(text).toContain(delivery.artifact.title);
    expect(text).toContain('signed-agreement-final-version.pdf');
    const expires = new Date(delivery.execution.approvalExpiresAt);
    const hhmm = delivery.execution.approvalExpiresAt.slice(11, 16);
    expect(text).toContain(
      `${expires.getUTCDate()} ${MONTHS[expires.getUTCMonth()]} ${expires.getUTCFullYear()} at ${hhmm} UTC`,
    );
    expect(text).toMatch(/expires in 6 days/);
    // The team's name has an ampersand: shown as written, escaped once.
    expect(await page.locator('main').innerHTML()).not.toContain('&amp;amp;');
    await expectNothingOverflows(page, PHONE.width);
    await screenshot(page, 'approval-1-delivery-phone');
    expect(suite.fake.messages.size).toBe(0);

    await page.setViewportSize(DESKTOP);
    await expectNothingOverflows(page, DESKTOP.width);
    await screenshot(page, 'approval-2-delivery-desktop');

    await page.setViewportSize(PHONE);
    const [answer] = await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name: 'Approve and send' }).click(),
    ]);
    expect(answer!.status()).toBe(200);
    const done = await page.locator('main').innerText();
    expect(done).toContain('Approved and sent');
    expect(done).toContain('You approved this delivery; it was sent.');
    expect(done).toContain('You can close this tab.');
    expect(done).not.toMatch(/start again from the application/i);
    await expectNothingOverflows(page, PHONE.width);
    await screenshot(page, 'approval-3-approved-phone');

    expect((await waitForExecution(delivery.executionId)).status).toBe('succeeded');
    for (const who of [grace, alan]) {
      const received = suite.fake.byRecipient(who.email);
      expect(received).toHaveLength(1);
      expect(received[0].text).toContain('Here are the brand guidelines we discussed on Tuesday.');
    }
    const records = (await suite.api.get(`/deliveries?executionId=${delivery.executionId}`)).body.data;
    expect(records.map((r: any) => [r.to, r.status]).sort()).toEqual(
      [
        [alan.email, 'sent'],
        [grace.email, 'sent'],
      ].sort(),
    );

    const again = await page.goto(delivery.url);
    expect(again!.status()).toBe(200);
    const used = await page.locator('main').innerText();
    expect(used).toContain('This delivery was already approved and sent.');
    expect(used).not.toMatch(/succeeded|pending_approval/);
    expect(await page.getByRole('button').count()).toBe(0);
    await screenshot(page, 'approval-4-already-approved-phone');
    expect(suite.fake.byRecipient(grace.email)).toHaveLength(1);
    expect(complaints).toEqual([]);
  });

  it('declining from the page sends nothing and says so', async () => {
    const ada = await contact('Ada Lovelace');
    const delivery = await pendingDelivery([ada], 'A draft nobody should receive.');
    const { page, complaints } = await openPage(DESKTOP);
    await page.goto(delivery.url);
    await expectNothingOverflows(page, DESKTOP.width);
    const [answer] = await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name: 'Decline' }).click(),
    ]);
    expect(answer!.status()).toBe(200);
    const text = await page.locator('main').innerText();
    expect(text).toContain('Declined');
    expect(text).toContain('You declined this delivery. Nothing was sent.');
    expect(text).toContain('You can close this tab.');
    expect(text).not.toMatch(/start again from the application/i);
    await screenshot(page, 'approval-5-declined-desktop');
    expect((await waitForExecution(delivery.executionId)).status).toBe('declined');
    await sleep(500);
    expect(suite.fake.byRecipient(ada.email)).toHaveLength(0);

    await page.goto(delivery.url);
    expect(await page.locator('main').innerText()).toContain('This delivery was declined. Nothing was sent.');
    expect(complaints).toEqual([]);
  });

  it('a sensitive MCP write (send_campaign) shows the campaign, channel, audience size, agent and team', async () => {
    const people = [await contact('Katherine Johnson'), await contact('Dorothy Vaughan')];
    for (const who of people) await suite.api.call('PATCH', `/contacts/${who.id}`, { marketingConsent: 'granted' });
    const campaign = (
      await suite.api.post('/campaigns', {
        name: 'Spring portfolio review',
        channel: 'email',
        subject: 'Our spring work',
        content: 'Hello, here is what we made this spring.',
        contactIds: people.map((p) => p.id),
        agentId: suite.team.agentId,
      })
    ).body;
    expect(campaign.id).toBeDefined();
    const { ctx } = suite.server;
    const pending = await requestApproval(
      ctx,
      {
        team: { id: suite.team.teamId, slug: suite.team.slug, plan: 'free' },
        agentId: suite.team.agentId,
        userId: suite.team.userId,
      },
      'svc-campaign-send',
      { campaignId: campaign.id },
    );
    expect(pending.status).toBe('pending_approval');
    const link = await suite.api.post(`/warp-executions/${pending.executionId}/approval-link`);
    expect(link.status).toBe(201);

    const { page, complaints } = await openPage(PHONE);
    expect((await page.goto(link.body.url))!.status()).toBe(200);
    const text = await page.locator('main').innerText();
    expect(text).toContain('Send the campaign “Spring portfolio review”?');
    expect(text).toMatch(/Channel\s+Email/);
    expect(text).toContain('2 of 2 contacts can receive it now');
    expect(text).toContain(AGENT_NAME);
    expect(text).toContain(TEAM_NAME);
    expect(text).toMatch(/expires in 6 days/);
    await expectNothingOverflows(page, PHONE.width);
    await screenshot(page, 'approval-6-campaign-send-phone');
    const [answer] = await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name: 'Decline' }).click(),
    ]);
    expect(answer!.status()).toBe(200);
    expect(await page.locator('main').innerText()).toContain('You declined this request. Nothing was changed.');
    expect((await suite.api.get(`/campaigns/${campaign.id}`)).body.status).toBe('draft');
    expect(complaints).toEqual([]);
  });

  it("an external runtime's permission.request: the tool and its input on a phone, approved in the browser, the runtime told so", async () => {
    const key = (await suite.api.post(`/agents/${suite.team.agentId}/auth-keys`)).body.key as string;
    const hooks = `${suite.server.baseUrl}/agents/${suite.team.agentId}/hooks`;
    const asked = (await (
      await fetch(`${hooks}?wait=0`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          type: 'permission.request',
          tool: 'Bash',
          input: { command: 'npm publish --access public ./packages/design-tokens-and-brand-guidelines' },
          requestId: `browser-${Date.now()}`,
        }),
      })
    ).json()) as { decision: string; executionId: string; pollUrl: string };
    expect(asked.decision).toBe('pending');
    const link = await suite.api.post(`/warp-executions/${asked.executionId}/approval-link`);
    expect(link.status).toBe(201);

    const { page, complaints } = await openPage(PHONE);
    expect((await page.goto(link.body.url))!.status()).toBe(200);
    const text = await page.locator('main').innerText();
    expect(text).toContain('Let the agent use Bash?');
    expect(text).toMatch(/Tool\s+Bash/);
    expect(text).toContain('npm publish --access public');
    expect(text).toContain(AGENT_NAME);
    await expectNothingOverflows(page, PHONE.width);
    await screenshot(page, 'approval-7-agent-permission-phone');
    const [answer] = await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name: 'Approve' }).click(),
    ]);
    expect(answer!.status()).toBe(200);
    // The platform runs nothing here: the agent's runtime does, once told.
    expect(await page.locator('main').innerText()).toContain(
      'You approved this request; it was passed on: the agent may go ahead.',
    );
    await screenshot(page, 'approval-8-agent-permission-approved-phone');
    const polled = await fetch(`${asked.pollUrl}?wait=10`, { headers: { authorization: `Bearer ${key}` } });
    expect(await polled.json()).toMatchObject({ decision: 'approved', executionId: asked.executionId });
    expect(complaints).toEqual([]);
  });

  it('an unsubscribe link from a real campaign email: confirm in the browser, see it done, the contact is opted out', async () => {
    const reader = await contact('Mary Jackson');
    await suite.api.call('PATCH', `/contacts/${reader.id}`, { marketingConsent: 'granted' });
    await suite.api.call('PATCH', `/agents/${suite.team.agentId}`, { mode: 'auto' });
    try {
      const campaign = (
        await suite.api.post('/campaigns', {
          name: `Newsletter ${++n}`,
          channel: 'email',
          subject: 'News',
          content: 'Hello from the studio.',
          contactIds: [reader.id],
          agentId: suite.team.agentId,
        })
      ).body;
      expect((await suite.api.post(`/campaigns/${campaign.id}/send`, {})).status).toBe(200);
      let message;
      for (let i = 0; i < 100 && !(message = suite.fake.byRecipient(reader.email)[0]); i++) await sleep(150);
      expect(message).toBeDefined();
      // The worker writes links with its own base URL; this suite's API serves the same signed path.
      const url = /Unsubscribe: (\S+)/.exec(message!.text)![1].replace(/^https?:\/\/[^/]+\/v1/, suite.server.baseUrl);

      const { page, complaints } = await openPage(PHONE);
      expect((await page.goto(url))!.status()).toBe(200);
      const ask = await page.locator('main').innerText();
      expect(ask).toContain('Unsubscribe from these emails?');
      expect(ask).toContain(reader.email);
      expect(ask).toContain(TEAM_NAME);
      expect((await suite.api.get(`/contacts/${reader.id}`)).body.optedOut).toBe(false);
      await expectNothingOverflows(page, PHONE.width);
      await screenshot(page, 'unsubscribe-1-confirm-phone');

      const [answer] = await Promise.all([
        page.waitForNavigation(),
        page.getByRole('button', { name: 'Unsubscribe' }).click(),
      ]);
      expect(answer!.status()).toBe(200);
      const done = await page.locator('main').innerText();
      expect(done).toContain('You are unsubscribed');
      expect(done).toContain('You can close this tab.');
      expect(done).not.toMatch(/start again from the application/i);
      await screenshot(page, 'unsubscribe-2-done-phone');
      expect((await suite.api.get(`/contacts/${reader.id}`)).body.optedOut).toBe(true);

      await page.goto(url);
      expect(await page.locator('main').innerText()).toContain(`${reader.email} is already unsubscribed`);
      expect(complaints).toEqual([]);
    } finally {
      await suite.api.call('PATCH', `/agents/${suite.team.agentId}`, { mode: 'manual' });
    }
  });
});
