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

/**
 * An artifact's page lists its delivery records (recipient, channel, status, approval), each
 * linked to the message log narrowed to that delivery's message.
 */
describe('console: an artifact’s deliveries', () => {
  const suite = useApiSuite('console-deliveries');
  const browser = useConsoleSuite(suite);

  it('an artifact delivered in auto mode shows its records; the link opens the message log at the message', async () => {
    const agentId = suite.team.agentId;
    expect((await suite.api.call('PUT', `/agents/${agentId}/integrations/email`, { provider: 'sandbox' })).status).toBe(
      200,
    );
    const contact = async (name: string, email: string) => {
      const res = await suite.api.post('/contacts', { name, email });
      expect(res.status).toBe(201);
      await suite.api.call('PATCH', `/contacts/${res.body.id}`, { marketingConsent: 'granted' });
      return res.body.id as string;
    };
    const grace = await contact('Grace Hopper', 'grace@example.com');
    const alan = await contact('Alan Turing', 'alan@example.com');
    const artifact = (
      await suite.api.post('/artifacts', {
        title: 'Proposal',
        type: 'offer',
        url: 'https://example.com/proposal',
        contactId: grace,
        status: 'ready',
      })
    ).body;
    expect(artifact.status).toBe('ready');
    const other = (await suite.api.post('/artifacts', { title: 'Other', type: 'file', status: 'ready' })).body;

    // Delivered through the API, in auto mode: one record per recipient.
    let delivered = await suite.api.post('/artifacts/deliver', {
      artifactIds: [artifact.id],
      integration: 'email',
      subject: 'The proposal',
      message: 'Here is the proposal we discussed.',
      contactIds: [grace, alan],
    });
    expect([200, 202]).toContain(delivered.status);
    const executionId = delivered.body.executionId as string;
    for (let i = 0; i < 80 && delivered.body.status !== 'succeeded'; i++) {
      await sleep(250);
      delivered = await suite.api.get(`/warp-executions/${executionId}`);
    }
    expect(delivered.body.status).toBe('succeeded');
    // A delivery of another artifact is not on this artifact's page.
    await suite.api.post('/artifacts/deliver', {
      artifactIds: [other.id],
      integration: 'email',
      message: 'Another file.',
      contactIds: [alan],
    });
    const records = (await suite.api.get(`/deliveries?artifactId=${artifact.id}`)).body.data;
    expect(records.map((d: any) => [d.to, d.integration, d.status]).sort()).toEqual([
      ['alan@example.com', 'email', 'sent'],
      ['grace@example.com', 'email', 'sent'],
    ]);

    // From the list of artifacts to its page.
    const { page, complaints } = await browser.signedIn('/app/artifacts', DESKTOP);
    await page.getByRole('link', { name: 'Proposal' }).click();
    await page.waitForURL((url) => url.pathname === `/app/artifacts/${artifact.id}`);
    const rows = page.locator('#deliveries ul.records > li');
    await textWhen(rows, /grace@/);
    expect(await rows.count()).toBe(2);
    for (const d of records) {
      const name = d.contactId === grace ? 'Grace Hopper' : 'Alan Turing';
      const text = await page.locator(`li[data-id="${d.id}"]`).innerText();
      expect(text.replace(/\s+/g, ' ')).toMatch(
        new RegExp(
          `^${name} — ${d.to.replace('.', '\\.')} Email · sent · approval: not needed \\(auto mode\\) · sent .+ Subject: The proposal Message log$`,
        ),
      );
    }
    expect(await page.locator('#artifact-facts').innerText()).toMatch(/For\nGrace Hopper/);
    await expectPageIsClean(page, complaints, 'console-deliveries-desktop');

    // The link opens the message log at Grace's message.
    const graceRecord = records.find((d: any) => d.contactId === grace);
    await page.getByRole('link', { name: 'Message log of the delivery to grace@example.com' }).click();
    await page.waitForURL((url) => url.pathname === '/app/messages');
    const url = new URL(page.url());
    expect(Object.fromEntries(url.searchParams)).toEqual({
      sourceKind: 'delivery',
      sourceId: executionId,
      contactId: grace,
    });
    const logRows = page.locator('#message-log tbody tr');
    await textWhen(logRows, /grace@example\.com/);
    const message = (await suite.api.get(`/messages?sourceKind=delivery&sourceId=${executionId}&contactId=${grace}`))
      .body.data;
    expect(message.map((m: any) => [m.address, m.status, m.providerMessageId])).toEqual([
      ['grace@example.com', 'sent', graceRecord.providerMessageId],
    ]);
    expect(await logRows.evaluateAll((els) => els.map((el) => el.getAttribute('data-id')))).toEqual([message[0].id]);
    expect(await page.getByLabel('Sent for').inputValue()).toBe('delivery');
    expect(await page.locator('#message-narrowed').innerText()).toContain(executionId);
    await expectPageIsClean(page, complaints, 'console-deliveries-messages-desktop');

    // On a phone.
    const phone = await browser.signedIn(`/app/artifacts/${artifact.id}`, PHONE);
    await textWhen(phone.page.locator('#deliveries ul.records > li'), /alan@/);
    expect(await scrollsSideways(phone.page)).toBe(false);
    await expectPageIsClean(phone.page, phone.complaints, 'console-deliveries-phone');

    // Another team's artifact is not found, on its page and through the console's API.
    const them = await newTeam(suite.db, 'console-deliveries-other');
    const theirs = (await apiClient(suite.server.baseUrl, them).post('/artifacts', { title: 'Theirs', type: 'file' }))
      .body;
    await phone.page.goto(`${suite.server.url}/app/artifacts/${theirs.id}`);
    await textWhen(phone.page.getByRole('alert'), /not found/);
    expect(await phone.page.getByRole('alert').innerText()).toBe('Artifact not found.');
    const res = await consoleFetch(phone.page, 'GET', `/artifacts/${theirs.id}`);
    expect([res.status, res.body?.error?.code]).toEqual([404, 'not_found']);
    const none = await consoleFetch(phone.page, 'GET', `/deliveries?artifactId=${theirs.id}`);
    expect([none.status, none.body.data]).toEqual([200, []]);
  });

  it('a manual-mode delivery shows as approved once a person approved it', async () => {
    const agentId = suite.team.agentId;
    await suite.api.call('PUT', `/agents/${agentId}/integrations/email`, { provider: 'sandbox' });
    expect((await suite.api.call('PATCH', `/agents/${agentId}`, { mode: 'manual' })).status).toBe(200);
    const ada = (await suite.api.post('/contacts', { name: 'Ada Lovelace', email: 'ada@example.com' })).body.id;
    const artifact = (
      await suite.api.post('/artifacts', { title: 'Contract', type: 'agreement', contactId: ada, status: 'ready' })
    ).body;
    const asked = await suite.api.post('/artifacts/deliver', {
      artifactIds: [artifact.id],
      integration: 'email',
      subject: 'The contract',
      message: 'The contract, to sign.',
    });
    expect([asked.status, asked.body.pending]).toEqual([202, true]);

    const { page, complaints } = await browser.signedIn(`/app/artifacts/${artifact.id}`, PHONE);
    // Waiting for approval there is no record yet.
    await textWhen(page.locator('#deliveries'), /Not delivered yet/);
    expect((await suite.api.post(`/warp-executions/${asked.body.executionId}/approve`, {})).status).toBe(200);
    let execution = asked.body;
    for (let i = 0; i < 80 && execution.status !== 'succeeded'; i++) {
      await sleep(250);
      execution = (await suite.api.get(`/warp-executions/${asked.body.executionId}`)).body;
    }
    expect(execution.status).toBe('succeeded');
    const [record] = (await suite.api.get(`/deliveries?artifactId=${artifact.id}`)).body.data;
    expect([record.to, record.status]).toEqual(['ada@example.com', 'sent']);
    // The page's poll brings the record, approved.
    const row = page.locator(`li[data-id="${record.id}"]`);
    expect((await textWhen(row, /approval/)).replace(/\s+/g, ' ')).toContain(
      'Ada Lovelace — ada@example.com Email · sent · approval: approved',
    );
    expect(await textWhen(page.locator('#artifact-facts'), /sent/)).toMatch(/Status\s+sent/);
    expect(await scrollsSideways(page)).toBe(false);
    await expectPageIsClean(page, complaints, 'console-deliveries-approved-phone');
    await suite.api.call('PATCH', `/agents/${agentId}`, { mode: 'auto' });
  });
});
