import type { Browser, BrowserContext } from 'playwright-core';
import { collectBrowserComplaints, launchChromium, screenshot } from '../browser/chromium';
import { sleep, useProviderSuite } from '../support/helpers';

/**
 * A sign-up through the real page in Chromium with JavaScript turned off, on a phone: the labels
 * find the inputs, the stylesheet loads under the page's CSP, the honeypot stays out of sight,
 * the form posts, and the emailed double opt-in link's button grants the consent.
 */
describe('a form in a real browser', () => {
  const suite = useProviderSuite('forms-browser');
  const PHONE = { width: 390, height: 844 };
  const CONSENT = 'Email me the monthly newsletter';
  let chromium: Browser;
  let context: BrowserContext | undefined;

  beforeAll(async () => {
    chromium = await launchChromium();
    await suite.api.call('PUT', '/apps/forms');
  });
  afterAll(async () => {
    await context?.close();
    await chromium?.close();
  });

  it('signs up without JavaScript on a phone, then confirms by the emailed link', async () => {
    await suite.api.call('PUT', `/agents/${suite.team.agentId}/integrations/email`, {
      provider: 'resend',
      config: { baseUrl: suite.fake.baseUrl },
      secrets: { apiKey: 'k' },
      from: 'news@acme.example',
    });
    const form = (
      await suite.api.post('/forms', {
        name: 'Newsletter',
        title: 'Join our newsletter',
        description: 'One email a month, no more.',
        fields: [{ name: 'name', required: true }, { name: 'email' }, { name: 'company' }],
        tags: ['newsletter'],
        consentText: CONSENT,
        doubleOptIn: true,
        agentId: suite.team.agentId,
      })
    ).body;
    context = await chromium.newContext({ viewport: PHONE, javaScriptEnabled: false });
    const page = await context.newPage();
    page.setDefaultNavigationTimeout(10_000);
    const complaints = collectBrowserComplaints(page);

    await page.goto(form.url);
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    await expect(page.getByRole('heading', { name: 'Join our newsletter' }).isVisible()).resolves.toBe(true);
    // The served stylesheet applied (the CSP allows it): the button is the brand blue.
    const button = page.getByRole('button', { name: 'Sign up' });
    expect(await page.evaluate<string>("getComputedStyle(document.querySelector('button')).backgroundColor")).toBe(
      'rgb(29, 78, 216)',
    );
    // Nothing wider than the phone; the honeypot is off-screen.
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
    const honeypot = await page.locator('input[name=website]').boundingBox();
    expect(honeypot!.x + honeypot!.width).toBeLessThan(0);

    const email = `browser-${Date.now()}@example.test`;
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Bea Browser');
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email);
    await page.getByRole('textbox', { name: 'Company', exact: true }).fill('Chromium Ltd');
    await page.getByLabel(CONSENT).check();
    await screenshot(page, 'form-phone-filled');
    await Promise.all([page.waitForURL(form.url), button.click()]);
    await expect(page.getByRole('heading', { name: 'Thank you' }).isVisible()).resolves.toBe(true);
    expect(await page.textContent('main')).toContain('check your inbox');

    const contact = await suite.db('contacts').where({ team_id: suite.team.teamId, email }).first();
    expect(contact).toMatchObject({ name: 'Bea Browser', company: 'Chromium Ltd', marketing_consent: 'pending' });
    let messages = suite.fake.byRecipient(email);
    for (let waited = 0; messages.length === 0 && waited < 10_000; waited += 100) {
      await sleep(100);
      messages = suite.fake.byRecipient(email);
    }
    const link = messages[0].text.match(/https?:\/\/\S+\/confirm\?\S+/)![0];

    await page.goto(link);
    await expect(page.getByRole('heading', { name: 'Confirm your subscription' }).isVisible()).resolves.toBe(true);
    await page.getByRole('button', { name: 'Yes, confirm my subscription' }).click();
    await page.getByRole('heading', { name: 'Subscription confirmed' }).waitFor();
    await screenshot(page, 'form-phone-confirmed');
    expect(await suite.db('contacts').where({ id: contact.id }).first()).toMatchObject({
      marketing_consent: 'granted',
      consent_source: `form:${form.id}`,
    });
    expect(complaints).toEqual([]);
  });
});
