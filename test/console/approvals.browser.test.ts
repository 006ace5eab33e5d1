import { bootstrapTeam } from '../../services/platform/teams';
import { apiClient, newTeam, sleep, useProviderSuite } from '../support/helpers';
import {
  breaksInsideWords,
  consoleFetch,
  DESKTOP,
  expectPageIsClean,
  PHONE,
  screenshot,
  scrollsSideways,
  textWhen,
  unexpectedComplaints,
  useConsoleSuite,
} from './consoleBrowser';

/**
 * The console's sign-in gate and its approvals inbox, in Chromium: a person signs in with the
 * account of the OAuth sign-in, sees what each pending approval would do, edits a delivery's
 * message and approves it, while the inbox follows new requests without a reload.
 */
describe('console: sign-in gate and approvals inbox', () => {
  const suite = useProviderSuite('console-inbox');
  const browser = useConsoleSuite(suite);
  const AGENT_NAME = 'Studio Concierge';
  let n = 0;

  beforeAll(async () => {
    expect(
      (await suite.api.call('PATCH', `/agents/${suite.team.agentId}`, { name: AGENT_NAME, mode: 'manual' })).body,
    ).toMatchObject({ name: AGENT_NAME, mode: 'manual' });
  });
  beforeEach(async () => {
    const res = await suite.api.call('PUT', `/agents/${suite.team.agentId}/integrations/email`, {
      provider: 'resend',
      config: { baseUrl: suite.fake.baseUrl },
      secrets: { apiKey: 're_test' },
      from: 'studio@hopper.example',
    });
    expect(res.status).toBe(200);
  });

  const origin = () => suite.server.url;

  async function contact(api: typeof suite.api, name: string) {
    const res = await api.post('/contacts', {
      name,
      email: `${name.split(' ')[0].toLowerCase()}.${++n}.${Date.now()}@example.test`,
    });
    expect(res.status).toBe(201);
    return res.body as { id: string; name: string; email: string };
  }

  /** A manual-mode delivery of one artifact, waiting for approval with its draft written. */
  async function pendingDelivery(api: typeof suite.api, recipients: { id: string }[], message: string) {
    const artifact = (
      await api.post('/artifacts', {
        title: `Brand guidelines ${++n}`,
        type: 'offer',
        status: 'ready',
        url: 'https://files.example.test/brand-guidelines.pdf',
      })
    ).body;
    const res = await api.post('/artifacts/deliver', {
      artifactIds: [artifact.id],
      message,
      integration: 'email',
      contactIds: recipients.map((r) => r.id),
      subject: 'Your brand guidelines',
    });
    expect(res.status).toBe(202);
    const executionId: string = res.body.executionId;
    for (let i = 0; i < 100; i++) {
      const execution = (await api.get(`/warp-executions/${executionId}`)).body;
      if (execution.draft) return { executionId, artifact, execution };
      await sleep(150);
    }
    throw new Error(`execution ${executionId} was never drafted`);
  }

  async function settled(executionId: string) {
    for (let i = 0; i < 100; i++) {
      const execution = (await suite.api.get(`/warp-executions/${executionId}`)).body;
      if (!['pending_approval', 'running'].includes(execution.status)) return execution;
      await sleep(150);
    }
    throw new Error(`execution ${executionId} did not settle`);
  }

  it('signed out, /app sends the person to sign in; a wrong password is refused; the console API needs the session and its CSRF token', async () => {
    const { page, complaints, context } = await browser.open(PHONE);
    await page.goto(`${origin()}/app/campaigns`);
    expect(new URL(page.url()).pathname).toBe('/app/login');
    expect(new URL(page.url()).searchParams.get('next')).toBe('/app/campaigns');
    await page.getByLabel('Email').fill(browser.owner.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await page.getByRole('alert').innerText()).toBe('Wrong email or password.');
    expect(await scrollsSideways(page)).toBe(false);
    await expectPageIsClean(page, complaints.splice(0), 'console-01-login-wrong-password-phone');

    // Without a session the console API answers the API's own 401 envelope.
    const anonymous = await fetch(`${origin()}/app/api/warp-executions`);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as any).error.code).toBe('unauthorized');

    await page.getByLabel('Password').fill(browser.owner.password);
    await Promise.all([
      page.waitForURL((url) => url.pathname === '/app/campaigns'),
      page.getByRole('button', { name: 'Sign in' }).click(),
    ]);
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === 'tap_console')!;
    expect(session).toMatchObject({ httpOnly: true, path: '/', sameSite: 'Lax' });

    // The session cookie alone is not enough: a request without the page's CSRF token is refused.
    const noCsrf = await consoleFetch(page, 'GET', '/warp-executions', undefined, false);
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.error.code).toBe('forbidden');
    const withCsrf = await consoleFetch(page, 'GET', '/warp-executions');
    expect(withCsrf.status).toBe(200);
    // A page of the console says exactly what it allows: nothing inline, nothing from elsewhere.
    const csp = (await page.request.get(`${origin()}/app/approvals`)).headers()['content-security-policy'];
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("default-src 'none'");

    // A sign-out form without the page's CSRF token is refused with a page, and signs nobody out.
    const forged = await page.request.post(`${origin()}/app/logout`, { form: { csrf_token: 'guessed' } });
    expect(forged.status()).toBe(403);
    expect(forged.headers()['content-type']).toMatch(/^text\/html/);
    expect(await forged.text()).toContain('The sign-out form is missing its CSRF token');
    expect((await consoleFetch(page, 'GET', '/warp-executions')).status).toBe(200);

    // Signing out revokes the session's token at once.
    await Promise.all([
      page.waitForURL((url) => url.pathname === '/app/login'),
      page.getByRole('button', { name: 'Sign out' }).click(),
    ]);
    const tokens = await suite
      .db('api_tokens')
      .where({ user_id: browser.owner.userId, name: 'Console sign-in (browser)' });
    expect(tokens.length).toBeGreaterThan(0);
    expect(tokens.every((t) => t.revoked_at !== null)).toBe(true);
    await page.goto(`${origin()}/app/approvals`);
    expect(new URL(page.url()).pathname).toBe('/app/login');
    expect(unexpectedComplaints(complaints)).toEqual([]);
  });

  it('the inbox shows what a delivery will do, follows new requests live, and approves with an edited message; another team’s ids are not found', async () => {
    const grace = await contact(suite.api, 'Grace Hopper');
    const alan = await contact(suite.api, 'Alan Turing');
    const first = await pendingDelivery(suite.api, [grace, alan], 'Here are the brand guidelines we discussed.');

    const { page, complaints } = await browser.signedIn('/app/approvals', DESKTOP);

    const card = page.locator(`article[data-id="${first.executionId}"]`);
    await card.waitFor();
    const text = await card.innerText();
    expect(text).toContain('Approve this delivery?');
    for (const who of [grace, alan]) expect(text).toContain(`${who.name} — ${who.email}`);
    expect(text).toMatch(/Channel\s+Email/);
    expect(text).toContain(AGENT_NAME);
    expect(text).toContain(first.artifact.title);
    expect(text).toMatch(/Approval expires\s+.*expires in 6 days/);
    expect(await card.getByLabel('Subject').inputValue()).toBe('Your brand guidelines');
    expect(await card.getByLabel('Message').inputValue()).toBe('Here are the brand guidelines we discussed.');

    // A permission request of an external runtime arrives while the inbox is open: it appears without a reload.
    const key = (await suite.api.post(`/agents/${suite.team.agentId}/auth-keys`, { name: 'runtime' })).body;
    const asked = await fetch(`${suite.server.baseUrl}/agents/${suite.team.agentId}/hooks?wait=0`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        type: 'permission.request',
        tool: 'Bash',
        input: { command: 'rm -rf build/' },
        sessionId: 'sess-1',
      }),
    });
    expect(asked.status).toBe(202);
    const permission = (await asked.json()) as { executionId: string };
    const permissionCard = page.locator(`article[data-id="${permission.executionId}"]`);
    await permissionCard.waitFor({ timeout: 10_000 });
    const permissionText = await permissionCard.innerText();
    expect(permissionText).toContain('Bash');
    expect(permissionText).toContain('rm -rf build/');
    expect(permissionText).toContain(AGENT_NAME);
    await expectPageIsClean(page, complaints, 'console-02-inbox-desktop');

    // Edit, then approve: exactly the edited subject and message go out, to both recipients.
    await card.getByLabel('Subject').fill('The brand guidelines, final');
    await card.getByLabel('Message').fill('Here are the final brand guidelines, as promised on Tuesday.');
    await card.getByRole('button', { name: 'Approve and send' }).click();
    expect(await textWhen(card.getByRole('status'), /Approved/)).toMatch(/^Approved \((running|succeeded)\)$/);
    expect((await settled(first.executionId)).status).toBe('succeeded');
    for (const who of [grace, alan]) {
      const received = suite.fake.byRecipient(who.email);
      expect(received).toHaveLength(1);
      expect(received[0].subject).toBe('The brand guidelines, final');
      expect(received[0].text).toContain('Here are the final brand guidelines, as promised on Tuesday.');
      expect(received[0].text).not.toContain('we discussed.');
    }

    // Decline the permission request from its card.
    await permissionCard.getByRole('button', { name: 'Decline' }).click();
    expect(await textWhen(permissionCard.getByRole('status'), /Declined/)).toBe('Declined');
    expect((await settled(permission.executionId)).status).toBe('declined');
    // Decided cards leave the inbox on a later refresh.
    await page.locator(`article[data-id="${first.executionId}"]`).waitFor({ state: 'detached', timeout: 15_000 });

    // Another team's pending delivery: its ids are not found through this console, and it stays pending.
    const other = await newTeam(suite.db, 'console-other');
    const otherApi = apiClient(suite.server.baseUrl, other);
    await otherApi.call('PATCH', `/agents/${other.agentId}`, { mode: 'manual' });
    await otherApi.call('PUT', `/agents/${other.agentId}/integrations/email`, {
      provider: 'resend',
      config: { baseUrl: suite.fake.baseUrl },
      secrets: { apiKey: 're_test' },
      from: 'other@elsewhere.example',
    });
    const stranger = await contact(otherApi, 'Ada Lovelace');
    const theirs = await pendingDelivery(otherApi, [stranger], 'Not yours to approve.');
    for (const [method, path] of [
      ['GET', `/warp-executions/${theirs.executionId}`],
      ['GET', `/warp-executions/${theirs.executionId}/approval-view`],
      ['POST', `/warp-executions/${theirs.executionId}/approve`],
      ['POST', `/warp-executions/${theirs.executionId}/decline`],
    ]) {
      const res = await consoleFetch(page, method, path, method === 'POST' ? {} : undefined);
      expect([path, res.status, res.body.error.code]).toEqual([path, 404, 'not_found']);
    }
    expect((await otherApi.get(`/warp-executions/${theirs.executionId}`)).body.status).toBe('pending_approval');
    expect(await page.locator(`article[data-id="${theirs.executionId}"]`).count()).toBe(0);

    // Bad input gets the API's envelope, never a 500.
    const bad = await consoleFetch(page, 'POST', `/warp-executions/${permission.executionId}/approve`, {
      message: 42,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_error');

    await page.setViewportSize(PHONE);
    const second = await pendingDelivery(suite.api, [grace], 'A second delivery, on a phone.');
    await page.locator(`article[data-id="${second.executionId}"]`).waitFor();
    expect(await scrollsSideways(page)).toBe(false);
    await expectPageIsClean(page, complaints, 'console-03-inbox-phone');
    await screenshot(page, 'console-03-inbox-phone');
  });

  it('campaign approval cards of a manual-mode send are decided from the inbox, per recipient', async () => {
    const people = [];
    for (const name of ['Alan Card', 'Grace Card']) {
      const created = await suite.api.post('/contacts', {
        name,
        email: `${name.split(' ')[0].toLowerCase()}.card.${Date.now()}@example.test`,
        tags: ['cards'],
      });
      expect(created.status).toBe(201);
      await suite.api.call('PATCH', `/contacts/${created.body.id}`, { marketingConsent: 'granted' });
      people.push(created.body as { id: string; email: string });
    }
    const [alan, grace] = people;
    const campaign = (
      await suite.api.post('/campaigns', {
        name: 'Card news',
        channel: 'email',
        subject: 'News for you',
        content: 'Hello, the cards are open.',
        tags: ['cards'],
      })
    ).body;
    expect((await suite.api.post(`/campaigns/${campaign.id}/send`, {})).body.status).toBe('sending');

    const { page, complaints } = await browser.signedIn('/app/approvals', DESKTOP);
    // Cards come in send order, which is contact id order (the snapshot's, docs/CAMPAIGNS.md).
    const both = page.locator(`article[data-key="cards-${campaign.id}:${[alan.id, grace.id].sort().join(',')}"]`);
    const text = await textWhen(both, /Card news/);
    expect(text).toMatch(/Campaign approval cards/i);
    expect(text).toMatch(/Channel\s+Email/);
    expect(text).toContain('News for you');
    expect(text).toContain(AGENT_NAME);
    expect(text).toContain('Hello, the cards are open.');
    for (const who of [alan, grace]) expect(text).toContain(who.email);
    await expectPageIsClean(page, complaints, 'console-04-inbox-campaign-cards');
    // A long address wraps where a reader expects it (after "@", before a dot), on a desktop and a phone.
    const addresses = 'ul.plain.recipients li, ul.decide .address';
    expect(await breaksInsideWords(page, addresses)).toEqual([]);
    await page.setViewportSize(PHONE);
    expect(await breaksInsideWords(page, addresses)).toEqual([]);
    await screenshot(page, 'console-04-inbox-campaign-cards-phone');
    await page.setViewportSize(DESKTOP);

    // Approve Alan's card alone: the inbox then shows Grace's card only. The answer is held until
    // the inbox has refreshed with the decision written (Grace's card appears): a refresh while an
    // answer is on its way must leave the card, or the person never sees how it went (under load in
    // CI the answer came after a refresh, and the card was gone).
    const rest = page.locator(`article[data-key="cards-${campaign.id}:${grace.id}"]`);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const decisions = `**/campaigns/${campaign.id}/cards`;
    await page.route(decisions, async (route) => {
      if (route.request().method() !== 'POST') return route.fallback();
      const response = await route.fetch();
      await held;
      await route.fulfill({ response });
    });
    await both.getByRole('button', { name: `Approve ${alan.email}` }).click();
    await rest.waitFor();
    release();
    expect(await textWhen(both.getByRole('status'), /Approved/)).toBe('Approved 1, skipped 0');
    await page.unroute(decisions);
    await rest.getByRole('button', { name: 'Skip all' }).click();
    expect(await textWhen(rest.getByRole('status'), /skipped/)).toBe('Approved 0, skipped 1');

    for (let i = 0; i < 100; i++) {
      if ((await suite.api.get(`/campaigns/${campaign.id}`)).body.status !== 'sending') break;
      await sleep(200);
    }
    expect((await suite.api.get(`/campaigns/${campaign.id}`)).body).toMatchObject({
      status: 'completed',
      sentCount: 1,
      skippedCount: 1,
    });
    expect(suite.fake.byRecipient(alan.email).map((m) => m.subject)).toEqual(['News for you']);
    expect(suite.fake.byRecipient(grace.email)).toEqual([]);
    const skipped = (await suite.api.get(`/campaigns/${campaign.id}/recipients?status=skipped`)).body.data;
    expect(skipped.map((r: any) => [r.contactId, r.skipReason])).toEqual([[grace.id, 'approval_skipped']]);
  });

  it('a person in two teams switches team in the header; the inbox and the API follow the chosen team', async () => {
    const second = await bootstrapTeam(suite.db, { team: `${suite.team.slug}-second`, email: browser.owner.email });
    const secondApi = apiClient(suite.server.baseUrl, { slug: second.team, token: second.token });
    expect((await secondApi.call('PATCH', '/team', { name: 'Second Studio' })).status).toBe(200);
    const ask = async (api: typeof suite.api, agentId: string, tool: string) => {
      const key = (await api.post(`/agents/${agentId}/auth-keys`, { name: 'runtime' })).body.key;
      const res = await fetch(`${suite.server.baseUrl}/agents/${agentId}/hooks?wait=0`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'permission.request', tool, sessionId: 'switch' }),
      });
      expect(res.status).toBe(202);
      return ((await res.json()) as { executionId: string }).executionId;
    };
    const firstTeams = await ask(suite.api, suite.team.agentId, 'FirstTeamTool');
    const secondTeams = await ask(secondApi, second.agentId, 'SecondTeamTool');

    const { page, complaints } = await browser.signedIn('/app/approvals', PHONE);
    await page.locator(`article[data-id="${firstTeams}"]`).waitFor();
    expect(await page.locator(`article[data-id="${secondTeams}"]`).count()).toBe(0);

    await page.getByLabel('Team', { exact: true }).selectOption({ label: 'Second Studio' });
    await Promise.all([
      page.waitForURL((url) => url.pathname === '/app/approvals'),
      page.getByRole('button', { name: 'Switch' }).click(),
    ]);
    await page.locator(`article[data-id="${secondTeams}"]`).waitFor();
    expect(await page.locator(`article[data-id="${firstTeams}"]`).count()).toBe(0);
    expect(await page.locator('#main').getAttribute('data-team')).toBe(second.team);
    const other = await consoleFetch(page, 'GET', `/warp-executions/${firstTeams}`);
    expect([other.status, other.body.error.code]).toEqual([404, 'not_found']);
    expect(await scrollsSideways(page)).toBe(false);
    await expectPageIsClean(page, complaints, 'console-05-team-switch-phone');
    // Both requests were answered by nobody: decline them so they do not wait for a week.
    for (const [api, id] of [
      [suite.api, firstTeams],
      [secondApi, secondTeams],
    ] as const)
      expect((await api.post(`/warp-executions/${id}/decline`, {})).status).toBe(200);
  });
});
