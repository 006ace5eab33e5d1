import type { Page } from 'playwright-core';
import { useProviderSuite } from '../support/helpers';
import { consoleFetch, DESKTOP, expectPageIsClean, textWhen, useConsoleSuite } from './consoleBrowser';

/**
 * A WhatsApp campaign's template approval from the console: submit, refresh, rejected, resubmit,
 * approved; at each state the page offers exactly the actions the state table allows.
 */
describe('console: WhatsApp template approval', () => {
  const suite = useProviderSuite('console-whatsapp', { WHATSAPP_APP_SECRET: 'meta-app-secret-for-tests' });
  const browser = useConsoleSuite(suite);

  beforeAll(async () => {
    await suite.api.call('PUT', `/agents/${suite.team.agentId}/integrations/whatsapp`, {
      provider: 'whatsapp_cloud',
      config: { baseUrl: suite.fake.baseUrl, phoneNumberId: '555', businessAccountId: 'waba1' },
      secrets: { accessToken: 'wa' },
    });
  });

  const actionsShown = (page: Page) =>
    page.locator('#actions button').evaluateAll((els) => els.map((el) => el.getAttribute('data-action')));
  async function waitForActions(page: Page, expected: string[]) {
    for (let i = 0; i < 100; i++) {
      if (JSON.stringify(await actionsShown(page)) === JSON.stringify(expected)) return;
      await page.waitForTimeout(150);
    }
    expect(await actionsShown(page)).toEqual(expected);
  }
  /** The provider's templates of that name, in the order they were submitted. */
  const templates = (name: string) => [...suite.fake.templates.values()].filter((t) => t.name === name);
  async function submitted(page: Page, name: string, count: number) {
    for (let i = 0; i < 100 && templates(name).length < count; i++) await page.waitForTimeout(100);
    expect(templates(name)).toHaveLength(count);
    return templates(name)[count - 1];
  }

  it('submit → pending → refresh finds it rejected → resubmit → approved, with the buttons of each state', async () => {
    const who = (await suite.api.post('/contacts', { name: 'Wa User', phone: '+15551230001' })).body;
    await suite.api.call('PATCH', `/contacts/${who.id}`, { marketingConsent: 'granted' });
    const campaign = (
      await suite.api.post('/campaigns', {
        name: 'code_ready',
        channel: 'whatsapp',
        content: 'Hi {{first}}, your code is ready',
        templateParams: { first: 'contact.firstName' },
        language: 'en',
        category: 'UTILITY',
        contactIds: [who.id],
      })
    ).body;

    const { page, complaints } = await browser.signedIn(`/app/campaigns/${campaign.id}`, DESKTOP);

    // Draft: no send before the template is approved; the API says why.
    await waitForActions(page, ['edit', 'delete', 'whatsapp-submit']);
    const early = await consoleFetch(page, 'POST', `/campaigns/${campaign.id}/send`, {});
    expect([early.status, early.body.error.code]).toEqual([422, 'whatsapp_not_approved']);

    await page.getByRole('button', { name: 'Submit template' }).click();
    await waitForActions(page, ['edit', 'delete', 'whatsapp-refresh']);
    Object.assign(await submitted(page, 'code_ready', 1), { status: 'REJECTED', reason: 'INVALID_FORMAT' });
    await page.getByRole('button', { name: 'Refresh template status' }).click();
    await textWhen(page.locator('#content > div').first(), /template rejected: INVALID_FORMAT/);
    await waitForActions(page, ['edit', 'delete', 'whatsapp-submit']);
    // Parts a campaign does not have (skip reasons, a subject) are left out, not printed as "null".
    expect(await page.locator('#counts').innerText()).not.toContain('null');
    expect(await page.locator('#main').innerText()).not.toMatch(/\bnull\b/);
    await expectPageIsClean(page, complaints, 'console-26-whatsapp-rejected');

    await page.getByRole('button', { name: 'Submit template' }).click();
    await waitForActions(page, ['edit', 'delete', 'whatsapp-refresh']);
    Object.assign(await submitted(page, 'code_ready', 2), { status: 'APPROVED' });
    await page.getByRole('button', { name: 'Refresh template status' }).click();
    await waitForActions(page, ['edit', 'send', 'delete']);
    expect((await suite.api.get(`/campaigns/${campaign.id}`)).body.status).toBe('approved');
    await expectPageIsClean(page, complaints, 'console-27-whatsapp-approved');
  });
});
