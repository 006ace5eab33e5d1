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

/**
 * The pages the campaign, OAuth and MCP walk-throughs needed beyond the first console: segments
 * (and a campaign whose audience is one, previewed before it is created), contacts in pages and
 * changed (a contact a send skipped gets an address), API tokens (made, used, revoked), hook rules
 * of an agent (a web hook's secret shown once, disabled, deleted).
 */
describe('console: segments, contacts in pages, API tokens, hook rules', () => {
  const suite = useApiSuite('console-pages');
  const browser = useConsoleSuite(suite);

  async function contact(body: Record<string, unknown>, consent = true) {
    const res = await suite.api.post('/contacts', body);
    expect(res.status).toBe(201);
    if (consent)
      expect((await suite.api.call('PATCH', `/contacts/${res.body.id}`, { marketingConsent: 'granted' })).status).toBe(
        200,
      );
    return res.body as { id: string; name: string };
  }

  it('a segment made in the console is the audience of a campaign; its contacts and the preview agree with the API', async () => {
    const alan = await contact({ name: 'Alan Turing', email: 'alan@example.com', tags: ['newsletter'] });
    const barbara = await contact({ name: 'Barbara Liskov', email: 'barbara@example.com', tags: ['newsletter'] });
    const late = await contact({ name: 'Late Larry', tags: ['newsletter'] });
    await contact({ name: 'Other Olga', email: 'olga@example.com', tags: ['clients'] });

    const { page, complaints } = await browser.signedIn('/app/segments', PHONE);
    await page.getByLabel('Name').fill('Newsletter readers');
    await page.getByLabel('A contact is in it when it matches').selectOption('all');
    await page.getByLabel(/^Conditions, one per line/).fill('tag newsletter\nhas_email');
    await page.getByRole('button', { name: 'Create segment' }).click();
    expect(await textWhen(page.locator('form .outcome'), /Created|\(/)).toBe('Created Newsletter readers.');
    const segment = (await suite.api.get('/segments')).body.data[0];
    expect(segment).toMatchObject({
      name: 'Newsletter readers',
      match: 'all',
      groups: [{ match: 'all', conditions: [{ type: 'tag', value: 'newsletter' }, { type: 'has_email' }] }],
    });
    expect(await textWhen(page.locator(`tr[data-id="${segment.id}"]`), /newsletter/)).toContain(
      'tag newsletter and has_email',
    );
    await page.getByRole('button', { name: 'Contacts in Newsletter readers' }).click();
    const inSegment = page.locator('#segment-preview tbody tr');
    await textWhen(inSegment, /Alan/);
    const shown = await inSegment.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')).sort());
    const fromApi = (await suite.api.get(`/segments/${segment.id}/contacts`)).body.data.map((c: any) => c.id).sort();
    expect(shown).toEqual([alan.id, barbara.id].sort());
    expect(fromApi).toEqual(shown);
    expect(await scrollsSideways(page)).toBe(false);
    await expectPageIsClean(page, complaints, 'console-60-segments-phone');

    // A campaign whose audience is the segment: the preview counts as the API does, the draft keeps the segment.
    await page.getByRole('link', { name: 'Campaigns' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Readers news');
    await page.getByLabel('Subject', { exact: true }).fill('Hi');
    await page.getByLabel('Message ({{placeholder}} allowed)').fill('Hello readers.');
    await page.getByLabel('Contacts of a saved segment').selectOption({ label: 'Newsletter readers' });
    await page.getByRole('button', { name: 'Preview audience' }).click();
    expect(await textWhen(page.locator('#new-audience-preview'), /can be sent|\(/)).toBe('2 of 2 can be sent.');
    // By tag instead (no segment): Larry has no email, and the preview says why he would be skipped.
    await page.getByLabel('Contacts of a saved segment').selectOption('');
    await page.getByLabel('Contacts with any of these tags').fill('newsletter');
    await page.getByRole('button', { name: 'Preview audience' }).click();
    expect(await textWhen(page.locator('#new-audience-preview'), /of 3/)).toBe(
      '2 of 3 can be sent; skipped: 1 missing channel.',
    );
    // The audience is the union of what is given: back to the segment alone.
    await page.getByLabel('Contacts with any of these tags').fill('');
    await page.getByLabel('Contacts of a saved segment').selectOption({ label: 'Newsletter readers' });
    await Promise.all([
      page.waitForURL(/\/app\/campaigns\/cmp_|\/app\/campaigns\/[^/]+$/),
      page.getByRole('button', { name: 'Create draft' }).click(),
    ]);
    const campaignId = new URL(page.url()).pathname.split('/').pop();
    expect((await suite.api.get(`/campaigns/${campaignId}`)).body).toMatchObject({
      name: 'Readers news',
      segmentId: segment.id,
      tags: null,
    });

    // Contacts: Larry, skipped for want of an address, gets one from the console.
    await page.getByRole('link', { name: 'Contacts' }).click();
    await page.getByRole('button', { name: 'Change Late Larry' }).click();
    await page.getByLabel('New email').fill('larry@example.com');
    await page.getByRole('button', { name: 'Save' }).click();
    expect(await textWhen(page.locator('#contact-edit .outcome'), /Saved|\(/)).toBe('Saved.');
    expect((await suite.api.get(`/contacts/${late.id}`)).body.email).toBe('larry@example.com');
    expect(await textWhen(page.locator(`tr[data-id="${late.id}"]`), /larry@/)).toContain('larry@example.com');
    await expectPageIsClean(page, complaints, 'console-61-contact-changed-phone');

    // Another team's segment is not found through the console.
    const other = await newTeam(suite.db, 'console-pages-other');
    const theirs = (
      await apiClient(suite.server.baseUrl, other).post('/segments', {
        name: 'Theirs',
        groups: [{ conditions: [{ type: 'has_email' }] }],
      })
    ).body;
    for (const [method, path] of [
      ['GET', `/segments/${theirs.id}/contacts`],
      ['DELETE', `/segments/${theirs.id}`],
    ] as const) {
      const res = await consoleFetch(page, method, path);
      expect([path, res.status, res.body?.error?.code]).toEqual([path, 404, 'not_found']);
    }
  });

  it('contacts come in pages of 50: every contact once across the pages, in the order of the API', async () => {
    const prefix = `Paged ${Date.now()}`;
    for (let i = 0; i < 60; i++) await contact({ name: `${prefix} ${i}`, email: `paged.${i}@example.test` }, false);
    const all: string[] = [];
    for (let cursor: string | null = null, first = true; first || cursor; first = false) {
      const res: any = (await suite.api.get(`/contacts?limit=100${cursor ? `&cursor=${cursor}` : ''}`)).body;
      all.push(...res.data.map((c: any) => c.id));
      cursor = res.pagination.nextCursor;
    }
    expect(all.length).toBeGreaterThanOrEqual(60);

    const { page, complaints } = await browser.signedIn('/app/contacts', DESKTOP);
    const rows = page.locator('#contact-list tbody tr');
    const idsShown = () => rows.evaluateAll((els) => els.map((el) => el.getAttribute('data-id')!));
    // Polled from here: a predicate evaluated in the page would need eval, which the console's CSP refuses.
    const firstRowBecomes = async (wanted: (id: string | null) => boolean) => {
      for (let i = 0; i < 100; i++) {
        if (wanted(await rows.first().getAttribute('data-id'))) return;
        await sleep(100);
      }
      throw new Error(`the first row is still ${await rows.first().getAttribute('data-id')}`);
    };
    await textWhen(page.getByRole('status').first(), /contacts on this page/);
    const seen: string[] = [];
    let pages = 0;
    for (;;) {
      const ids = await idsShown();
      expect(ids.length).toBeLessThanOrEqual(50);
      seen.push(...ids);
      pages++;
      const next = page.getByRole('button', { name: 'Next page of Contacts' });
      if (!(await next.isVisible()) || (await next.isDisabled())) break;
      await next.click();
      await firstRowBecomes((id) => id !== ids[0]);
    }
    expect(pages).toBe(Math.ceil(all.length / 50));
    expect(seen).toEqual(all);
    await page.getByRole('button', { name: 'Previous page of Contacts' }).click();
    await firstRowBecomes((id) => id === all[50 * (pages - 2)]);
    await expectPageIsClean(page, complaints, 'console-62-contacts-paged');
  });

  it('an API token made in the console works once copied and stops when revoked; another user’s token is not found', async () => {
    const { page, complaints } = await browser.signedIn('/app/tokens', PHONE);
    await page.getByLabel('Name (what uses it)').fill('ci script');
    await page.getByLabel(/^Valid for days/).fill('30');
    await page.getByRole('button', { name: 'Create token' }).click();
    const token = await textWhen(page.locator('#api-token-value'), /^tap_/);
    const created = (await suite.api.get('/api-tokens')).body.data.find((t: any) => t.name === 'ci script');
    expect(token.startsWith(created.prefix)).toBe(true);
    const expiresInDays = (Date.parse(created.expiresAt) - Date.now()) / 86_400_000;
    expect(expiresInDays).toBeGreaterThan(29.9);
    expect(expiresInDays).toBeLessThanOrEqual(30);
    const asScript = () =>
      fetch(`${suite.server.baseUrl}/agents`, {
        headers: { authorization: `Bearer ${token}`, 'x-team-slug': suite.team.slug },
      });
    expect((await asScript()).status).toBe(200);
    expect(await scrollsSideways(page)).toBe(false);
    await expectPageIsClean(page, complaints, 'console-63-api-token-phone');

    await page.getByRole('button', { name: `Revoke ci script (${created.prefix})` }).click();
    await textWhen(page.locator(`tr[data-id="${created.id}"]`), /revoked/);
    expect((await asScript()).status).toBe(401);

    const other = await newTeam(suite.db, 'console-pages-tokens');
    const theirToken = (await apiClient(suite.server.baseUrl, other).get('/api-tokens')).body.data[0];
    const res = await consoleFetch(page, 'DELETE', `/api-tokens/${theirToken.id}`);
    expect([res.status, res.body?.error?.code]).toEqual([404, 'not_found']);
    expect((await apiClient(suite.server.baseUrl, other).get('/agents')).status).toBe(200);
  });

  it('a web hook rule: its signing secret shown once, then disabled and deleted; apps installed from Agents', async () => {
    const receiver = await new FakeWebhookReceiver().start();
    try {
      const { page, complaints } = await browser.signedIn('/app/hooks', DESKTOP);
      await page.getByLabel('Kind').selectOption('web');
      await page.getByLabel(/^Event \(/).fill('agent.message');
      await page.getByLabel('URL (web)').fill(receiver.url('/agent-output'));
      await page.getByRole('button', { name: 'Create hook' }).click();
      expect(await textWhen(page.locator('#hook-rules form .outcome'), /Created|\(/)).toBe(
        'Created the web hook on agent.message.',
      );
      const secret = await textWhen(page.locator('#hook-secret-value'), /^whsec_/);
      const hooks = (await suite.api.get(`/agents/${suite.team.agentId}/hook-rules`)).body.data;
      expect(hooks).toEqual([
        expect.objectContaining({
          source: 'web',
          event: 'agent.message',
          url: receiver.url('/agent-output'),
          enabled: true,
        }),
      ]);
      expect(JSON.stringify(hooks)).not.toContain(secret);
      await expectPageIsClean(page, complaints, 'console-64-hook-rule');

      await page.getByRole('button', { name: 'Disable hook agent.message' }).click();
      await textWhen(page.locator(`tr[data-id="${hooks[0].id}"]`), /disabled/);
      expect((await suite.api.get(`/agents/${suite.team.agentId}/hook-rules/${hooks[0].id}`)).body.enabled).toBe(false);
      await page.getByRole('button', { name: 'Delete hook agent.message' }).click();
      await textWhen(page.locator('#hook-rules'), /No hooks yet/);
      expect((await suite.api.get(`/agents/${suite.team.agentId}/hook-rules`)).body.data).toEqual([]);

      // Apps (the MCP walk-through's install step) from the Agents page.
      await page.getByRole('link', { name: 'Agents' }).click();
      await page.getByRole('button', { name: 'Install Campaigns' }).click();
      await page.getByRole('button', { name: 'Uninstall Campaigns' }).waitFor();
      const apps = (await suite.api.get('/apps')).body.data;
      expect(apps.find((a: any) => a.slug === 'campaigns')).toMatchObject({ installed: true });
      expect(await page.locator('#credits').innerText()).toMatch(/^MCP credits this cycle \(\w+\): \d+ used/);
      await expectPageIsClean(page, complaints, 'console-65-apps');
    } finally {
      await receiver.stop();
    }
  });
});
