import { FakeWebhookReceiver } from '../fakes/webhookReceiver';
import { apiClient, newTeam, sleep, useApiSuite } from '../support/helpers';
import {
  consoleFetch,
  DESKTOP,
  expectPageIsClean,
  PHONE,
  scrollsSideways,
  textWhen,
  useConsoleSuite,
} from './consoleBrowser';

const SIGNUP = {
  form: 'signup form',
  user: { email: 'grace@example.com', name: 'Grace Hopper', marketing: 'granted' },
};

/**
 * The README's "Automations and webhooks" walk-through (scripts/automation-walkthrough.sh), done
 * in the console instead of curl: the agent's email through the sandbox and the Automations app,
 * an outbound webhook endpoint (its signing secret shown once), an AGENT_AUTH_KEY (shown once),
 * and the "Welcome" automation on the inbound source `signup` (wait 3 s → email → wait 1 s) built
 * in the form. The sign-up form's POST is the one step no person does: the test makes it, twice
 * with one webhook-id, to the URL and with the key the pages showed. Then the person watches the
 * enrollment complete, and the test checks what a person would: one enrollment, one email after
 * the wait, the receiver's verified contact.created.
 */
describe('console: the automation walk-through in the browser', () => {
  const suite = useApiSuite('console-automation');
  const browser = useConsoleSuite(suite);
  let receiver: FakeWebhookReceiver;

  beforeAll(async () => {
    receiver = await new FakeWebhookReceiver().start();
  });
  afterAll(async () => {
    await receiver?.stop();
  });

  it('endpoint → key → automation → inbound POST twice → one enrollment, one email, one verified event', async () => {
    const { page, complaints } = await browser.signedIn('/app/agents', PHONE);

    // Agents: email through the sandbox; the Automations app installed.
    const agent = page.locator(`article[data-id="${suite.team.agentId}"]`);
    await textWhen(agent, /Channels/);
    await agent.getByRole('button', { name: 'Email through the sandbox' }).click();
    await textWhen(agent, /Email via sandbox/);
    await page.getByRole('button', { name: 'Install Automations' }).click();
    await page.getByRole('button', { name: 'Uninstall Automations' }).waitFor();
    const apps = (await suite.api.get('/apps')).body.data;
    expect(apps.find((a: any) => a.slug === 'automations')).toMatchObject({ installed: true });
    expect(await scrollsSideways(page)).toBe(false);
    await expectPageIsClean(page, complaints, 'console-50-automation-agents-phone');

    // Webhooks: an endpoint for contact events; its generated signing secret is shown this once.
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByLabel('URL').fill(receiver.url('/signup-events'));
    await page.getByLabel('Description').fill('walk-through receiver');
    await page.getByLabel('contact.created').check();
    await page.getByLabel('contact.updated').check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = await textWhen(page.locator('#endpoint-secret-value'), /^whsec_/);
    // The receiver verifies with what the page showed: a wrong secret would leave it empty below.
    receiver.setSecret('/signup-events', secret);
    const endpoints = (await suite.api.get('/webhooks/endpoints')).body.data;
    expect(endpoints).toEqual([
      expect.objectContaining({
        url: receiver.url('/signup-events'),
        description: 'walk-through receiver',
        eventTypes: ['contact.created', 'contact.updated'],
        enabled: true,
      }),
    ]);
    expect(endpoints[0].secret).toBeUndefined();
    const endpointCard = page.locator(`article[data-id="${endpoints[0].id}"]`);
    expect(await textWhen(endpointCard, /every event|contact\.created/)).toContain('contact.created, contact.updated');
    expect(await scrollsSideways(page)).toBe(false);
    await expectPageIsClean(page, complaints, 'console-51-webhook-endpoint-secret-phone');
    // Shown once: after a reload the page has no secret to show.
    await page.reload();
    await endpointCard.waitFor();
    expect(await page.locator('#endpoint-secret-value').count()).toBe(0);
    expect(await page.locator('body').innerText()).not.toContain(secret);

    // Hooks and keys: an AGENT_AUTH_KEY, shown once; the page names the hooks URL it is for.
    await page.getByRole('link', { name: 'Hooks', exact: true }).click();
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = await textWhen(page.locator('#auth-key-value'), /^ak_/);
    const keys = (await suite.api.get(`/agents/${suite.team.agentId}/auth-keys`)).body.data;
    expect(keys).toHaveLength(1);
    expect(key.startsWith(keys[0].prefix)).toBe(true);
    expect(await page.locator('#hook-url').innerText()).toBe(
      `POST ${suite.server.baseUrl}/agents/${suite.team.agentId}/hooks?source=<source>`,
    );
    expect(await scrollsSideways(page)).toBe(false);
    await expectPageIsClean(page, complaints, 'console-52-auth-key-phone');

    // Automations: "Welcome" on the inbound source signup: wait 3s → email → wait 1s.
    await page.getByRole('link', { name: 'Automations' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Welcome');
    await page.getByLabel('Enroll a contact on').selectOption('inbound');
    await page.getByLabel(/^Source name/).fill('signup');
    await page
      .getByLabel(/^Mapping, one per line/)
      .fill('email=$.user.email\nname=$.user.name\nmarketingConsent=$.user.marketing\nconsentSource=$.form');
    const addStep = async (type: string) => {
      await page.getByLabel('Next step').selectOption(type);
      await page.getByRole('button', { name: 'Add step' }).click();
    };
    await addStep('wait');
    await page
      .getByRole('group', { name: 'Step 1: wait' })
      .getByLabel(/^Duration/)
      .fill('3s');
    await addStep('send');
    const send = page.getByRole('group', { name: 'Step 2: send' });
    await send.getByLabel('Channel').selectOption('email');
    await send.getByLabel('Subject').fill('Welcome {{first}}');
    await send.getByLabel(/^Message/).fill('Hi {{first}}, thanks for signing up.');
    await send.getByLabel(/^Placeholders/).fill('first=contact.firstName');
    await addStep('wait');
    await page
      .getByRole('group', { name: 'Step 3: wait' })
      .getByLabel(/^Duration/)
      .fill('1s');
    expect(await scrollsSideways(page)).toBe(false);
    await expectPageIsClean(page, complaints, 'console-53-automation-form-phone');
    await Promise.all([
      page.waitForURL(/\/app\/automations\/au_/),
      page.getByRole('button', { name: 'Create automation' }).click(),
    ]);
    const automationId = new URL(page.url()).pathname.split('/').pop()!;
    const automation = (await suite.api.get(`/automations/${automationId}`)).body;
    expect(automation).toMatchObject({
      name: 'Welcome',
      enabled: true,
      agentId: suite.team.agentId,
      trigger: {
        kind: 'inbound',
        source: 'signup',
        mapping: {
          email: '$.user.email',
          name: '$.user.name',
          marketingConsent: '$.user.marketing',
          consentSource: '$.form',
        },
      },
    });
    expect(automation.steps).toEqual([
      { type: 'wait', duration: '3s' },
      expect.objectContaining({
        type: 'send',
        channel: 'email',
        subject: 'Welcome {{first}}',
        content: 'Hi {{first}}, thanks for signing up.',
        templateParams: { first: 'contact.firstName' },
      }),
      { type: 'wait', duration: '1s' },
    ]);

    // The automation's page says where the sign-ups go; the sign-up form POSTs there, twice with one webhook-id.
    const inbound = (await textWhen(page.locator('#inbound-url'), /^POST /)).replace(/^POST /, '');
    expect(inbound).toBe(`${suite.server.baseUrl}/agents/${suite.team.agentId}/hooks?source=signup`);
    const post = async () => {
      const res = await fetch(inbound, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'webhook-id': 'msg_signup_1' },
        body: JSON.stringify(SIGNUP),
      });
      expect(res.status).toBe(202);
      return (await res.json()) as { deliveryId: string; runs: { runId: string }[] };
    };
    const first = await post();
    const again = await post();
    expect(first.deliveryId).toBe('msg_signup_1');
    expect(first.runs).toHaveLength(1);
    expect(again.runs.map((r) => r.runId)).toEqual([first.runs[0].runId]);

    // The person watches: Grace enrolled, through the wait and the email, then completed.
    const enrollmentRows = page.locator('section[aria-labelledby="enrollments-title"] tbody tr');
    const row = enrollmentRows.filter({ hasText: 'Grace Hopper' });
    await textWhen(row, /completed/);
    const totals = page.locator('#automation-steps .enrollment-totals');
    expect(await textWhen(totals, /1 completed/)).toBe('Enrollments: 0 active, 1 completed, 0 exited, 0 failed');
    expect(await enrollmentRows.count()).toBe(1);
    await page.getByRole('button', { name: 'Details of the enrollment of Grace Hopper' }).click();
    const detail = page.locator('#enrollment-detail');
    expect(await textWhen(detail.locator('.step-results'), /sent/)).toBe('Step 1: sent to grace@example.com');
    const sentRows = detail.locator('tbody tr');
    await textWhen(sentRows, /grace@example\.com/);
    expect(await sentRows.count()).toBe(1);
    expect(await scrollsSideways(page)).toBe(false);
    await expectPageIsClean(page, complaints, 'console-54-automation-enrollment-phone');

    // What a person checks with curl, through the API: one enrollment, one message, sent after the wait.
    const enrollments = (await suite.api.get(`/automations/${automationId}/enrollments`)).body.data;
    expect(enrollments).toHaveLength(1);
    expect(enrollments[0].status).toBe('completed');
    const messages = (await suite.api.get(`/messages?sourceKind=automation&sourceId=${enrollments[0].id}`)).body.data;
    expect(messages.map((m: any) => [m.address, m.status])).toEqual([['grace@example.com', 'sent']]);
    const waited = Date.parse(messages[0].createdAt) - Date.parse(enrollments[0].createdAt);
    expect(waited).toBeGreaterThanOrEqual(3000);
    const outbox = (await suite.api.get('/outbox')).body.data;
    expect(outbox.map((m: any) => [m.to, m.subject])).toEqual([['grace@example.com', 'Welcome Grace']]);
    expect(outbox[0].body).toContain('Hi Grace, thanks for signing up.');

    // Messages: the message log, filtered to automations, and the sandbox outbox, as the person sees them.
    await page.getByRole('link', { name: 'Messages' }).click();
    await page.getByLabel('Sent for').selectOption('automation');
    const logRows = page.locator('#message-log tbody tr');
    expect(await textWhen(logRows, /grace@example\.com/)).toContain('automation');
    expect(await logRows.count()).toBe(1);
    expect(await textWhen(page.locator('#outbox tbody tr'), /Welcome Grace/)).toContain('grace@example.com');
    expect(await scrollsSideways(page)).toBe(false);
    await expectPageIsClean(page, complaints, 'console-55-messages-phone');

    // The receiver verified Grace's contact.created with the secret the page showed; the endpoint's deliveries say so.
    const contactId = enrollments[0].contactId;
    await receiver.waitFor(() =>
      receiver.forPath('/signup-events').some((r) => r.type === 'contact.created' && r.data.contact.id === contactId),
    );
    const created = receiver.forPath('/signup-events').filter((r) => r.type === 'contact.created');
    expect(created.map((r) => r.data.contact.email)).toEqual(['grace@example.com']);
    await page.getByRole('link', { name: 'Webhooks' }).click();
    const deliveries = page.locator(`article[data-id="${endpoints[0].id}"] tbody tr`);
    expect(await textWhen(deliveries.filter({ hasText: 'contact.created' }), /delivered/)).toMatch(
      /contact\.created\s+delivered\s+1/,
    );
    expect(await scrollsSideways(page)).toBe(false);
    await expectPageIsClean(page, complaints, 'console-56-webhook-deliveries-phone');
  });

  it("another team's automation, endpoint and agent are not found through the console", async () => {
    const other = await newTeam(suite.db, 'console-automation-other');
    const theirApi = apiClient(suite.server.baseUrl, other);
    const theirs = (
      await theirApi.post('/automations', {
        name: 'Theirs',
        trigger: { kind: 'inbound', source: 'theirs' },
        steps: [{ type: 'exit' }],
      })
    ).body;
    const theirEndpoint = (await theirApi.post('/webhooks/endpoints', { url: receiver.url('/theirs') })).body;
    expect(theirEndpoint.id).toMatch(/^whe_/);

    const { page, complaints } = await browser.signedIn(`/app/automations/${theirs.id}`, DESKTOP);
    expect(await textWhen(page.getByRole('alert'), /not found/)).toBe('Automation not found.');
    for (const [method, path] of [
      ['GET', `/automations/${theirs.id}/enrollments`],
      ['PATCH', `/webhooks/endpoints/${theirEndpoint.id}`],
      ['DELETE', `/webhooks/endpoints/${theirEndpoint.id}`],
      ['GET', `/webhooks/endpoints/${theirEndpoint.id}/deliveries`],
      ['POST', `/agents/${other.agentId}/auth-keys`],
      ['GET', `/agents/${other.agentId}/hook-rules`],
    ] as const) {
      const res = await consoleFetch(page, method, path, method === 'PATCH' ? { enabled: false } : undefined);
      expect([path, res.status, res.body?.error?.code]).toEqual([path, 404, 'not_found']);
    }
    // Nothing of theirs changed: the endpoint is still on, and their agent has no key.
    expect((await theirApi.get(`/webhooks/endpoints/${theirEndpoint.id}`)).body.enabled).toBe(true);
    expect((await theirApi.get(`/agents/${other.agentId}/auth-keys`)).body.data).toEqual([]);
    await sleep(100);
    await expectPageIsClean(page, complaints, 'console-57-automation-not-found');
  });
});
