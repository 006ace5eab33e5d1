import { apiClient, newTeam, sleep, useProviderSuite } from '../support/helpers';
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

/**
 * The Forms and Shop pages in Chromium: a form built in the console is the API's form; its public
 * page, opened from the console's link, takes a sign-up that the console lists with its double
 * opt-in confirmation; products are made, edited and deleted in the page, and a contact's orders shown.
 */
describe('console: forms and shop', () => {
  const suite = useProviderSuite('console-forms-shop');
  const browser = useConsoleSuite(suite);
  const CONSENT = 'Email me the monthly newsletter';

  it('builds a form, opens its public link, and lists the sign-up and its confirmation', async () => {
    await suite.api.call('PUT', `/agents/${suite.team.agentId}/integrations/email`, {
      provider: 'resend',
      config: { baseUrl: suite.fake.baseUrl },
      secrets: { apiKey: 'k' },
      from: 'news@acme.example',
    });
    const { page, complaints } = await browser.signedIn('/app/forms', DESKTOP);
    await textWhen(page.getByRole('status').first(), /forms? on this page/);

    // Without the app the pages are offline: the page says so and installs it.
    await page.getByRole('button', { name: 'Install the Forms app' }).click();
    await page.getByRole('button', { name: 'Install the Forms app' }).waitFor({ state: 'detached' });
    const apps = (await suite.api.get('/apps?limit=100')).body.data;
    expect(apps.find((a: { slug: string }) => a.slug === 'forms')).toMatchObject({ installed: true });

    // The builder, as a person fills it.
    await page.getByLabel('Name (what the team calls it)').fill('Newsletter');
    await page.getByLabel('Heading of the page (empty: the name)').fill('Join our newsletter');
    await page.getByLabel('A paragraph under the heading').fill('One email a month, no more.');
    const company = page.locator('#new-form fieldset[data-field="company"]');
    await company.getByLabel('Ask for it').check();
    await company.getByLabel(/^Label/).fill('Your company');
    await page.locator('#new-form fieldset[data-field="name"]').getByLabel('Required').check();
    await page.getByLabel(/^Tags added/).fill('newsletter, spring');
    await page.getByLabel(/^Marketing consent checkbox label/).fill(CONSENT);
    await page.getByLabel(/Double opt-in/).check();
    await page.getByLabel('Agent whose email integration sends the link').selectOption(suite.team.agentId);
    await Promise.all([
      page.waitForURL(/\/app\/forms\/[^/]+$/),
      page.getByRole('button', { name: 'Create form' }).click(),
    ]);
    const formId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
    const form = (await suite.api.get(`/forms/${formId}`)).body;
    expect(form).toMatchObject({
      name: 'Newsletter',
      title: 'Join our newsletter',
      description: 'One email a month, no more.',
      fields: [
        { name: 'name', label: 'Name', required: true },
        { name: 'email', label: 'Email', required: true },
        { name: 'company', label: 'Your company', required: false },
      ],
      tags: ['newsletter', 'spring'],
      consentText: CONSENT,
      doubleOptIn: true,
      agentId: suite.team.agentId,
      active: true,
    });

    // Its public link, opened from the console, takes a sign-up.
    const link = page.locator('#public-url');
    expect(await link.getAttribute('href')).toBe(form.url);
    const visitor = await browser.open(PHONE);
    await visitor.page.goto((await link.getAttribute('href'))!);
    const email = `signup-${Date.now()}@example.test`;
    await visitor.page.getByRole('textbox', { name: 'Name', exact: true }).fill('Bea Browser');
    await visitor.page.getByRole('textbox', { name: 'Email', exact: true }).fill(email);
    await visitor.page.getByRole('textbox', { name: 'Your company', exact: true }).fill('Chromium Ltd');
    await visitor.page.getByLabel(CONSENT).check();
    await Promise.all([
      visitor.page.waitForURL(form.url),
      visitor.page.getByRole('button', { name: 'Sign up' }).click(),
    ]);
    await visitor.page.getByRole('heading', { name: 'Thank you' }).waitFor();

    // The console lists it, awaiting its confirmation; the emailed link confirms it.
    const row = page.locator('#content tr', { hasText: email });
    expect(await textWhen(row.locator('td.consent'), /awaiting confirmation/)).toBe('awaiting confirmation');
    let messages = suite.fake.byRecipient(email);
    for (let waited = 0; messages.length === 0 && waited < 10_000; waited += 100) {
      await sleep(100);
      messages = suite.fake.byRecipient(email);
    }
    const confirm = messages[0].text.match(/https?:\/\/\S+\/confirm\?\S+/)![0];
    await visitor.page.goto(confirm);
    await visitor.page.getByRole('button', { name: 'Yes, confirm my subscription' }).click();
    await visitor.page.getByRole('heading', { name: 'Subscription confirmed' }).waitFor();
    expect(await textWhen(row.locator('td.consent'), /^confirmed/)).toBe('confirmed');
    expect(await row.locator('td.confirmed').innerText()).not.toBe('');
    const submissions = (await suite.api.get(`/forms/${formId}/submissions`)).body.data;
    expect(submissions).toEqual([
      expect.objectContaining({ email, consent: 'confirmed', confirmationSentAt: expect.any(String) }),
    ]);
    await textWhen(page.locator('#form-head'), /1 submission/);
    await expectPageIsClean(page, complaints, 'console-forms-desktop');

    // Editing in the page saves through PATCH.
    await page.locator('summary', { hasText: 'Edit the form' }).click();
    await page.getByLabel('Heading of the page (empty: the name)').fill('Join the monthly letter');
    await page.getByRole('button', { name: 'Save form' }).click();
    await textWhen(page.locator('#edit-form .outcome'), /Saved/);
    expect((await suite.api.get(`/forms/${formId}`)).body.title).toBe('Join the monthly letter');

    // On a phone: the list and the form.
    const phone = await browser.signedIn('/app/forms', PHONE);
    await textWhen(phone.page.locator(`tr[data-id="${formId}"] td.submission-count`), /1/);
    expect(await scrollsSideways(phone.page)).toBe(false);
    await screenshot(phone.page, 'console-forms-list-phone');
    await phone.page.getByRole('link', { name: 'Newsletter' }).click();
    await textWhen(phone.page.locator('#content tr', { hasText: email }).locator('td.consent'), /confirmed/);
    expect(await scrollsSideways(phone.page)).toBe(false);
    await expectPageIsClean(phone.page, phone.complaints, 'console-forms-phone');

    // Another team's form is not found.
    const other = await newTeam(suite.db, 'console-forms-other');
    const theirs = (await apiClient(suite.server.baseUrl, other).post('/forms', { name: 'Theirs' })).body;
    await phone.page.goto(`${suite.server.url}/app/forms/${theirs.id}`);
    await textWhen(phone.page.getByRole('alert'), /Form not found/);
    expect((await consoleFetch(phone.page, 'GET', `/forms/${theirs.id}/submissions`)).status).toBe(404);
  });

  it("makes, edits and deletes products, and shows a contact's orders", async () => {
    const { page, complaints } = await browser.signedIn('/app/shop', DESKTOP);
    await page.getByLabel('Name', { exact: true }).fill('Mug');
    await page.getByLabel(/^SKU/).fill('MUG-1');
    await page.getByLabel('Price', { exact: true }).fill('12.5');
    await page.getByLabel(/^Currency/).fill('EUR');
    await page.getByLabel('Description').fill('Stoneware, 300 ml');
    await page.getByRole('button', { name: 'Create product' }).click();
    await textWhen(page.locator('#new-product-name').locator('xpath=ancestor::form').locator('.outcome'), /Created/);
    const mug = (await suite.api.get('/products')).body.data.find((p: { sku: string }) => p.sku === 'MUG-1');
    expect(mug).toMatchObject({
      name: 'Mug',
      price: 12.5,
      currency: 'EUR',
      description: 'Stoneware, 300 ml',
      active: true,
    });

    // Edit its price in the page.
    await page.getByRole('button', { name: 'Edit Mug' }).click();
    await page.locator('#edit-product-price').fill('14');
    await page.getByRole('button', { name: 'Save product' }).click();
    await textWhen(page.locator('#product-edit .outcome'), /Saved/);
    expect((await suite.api.get(`/products/${mug.id}`)).body.price).toBe(14);
    await textWhen(page.locator(`tr[data-id="${mug.id}"] td.price`), /14\.00 EUR/);

    // A product and an order recorded through the API appear on the page.
    const lamp = (await suite.api.post('/products', { name: 'Lamp', sku: 'LAMP', price: 40, currency: 'EUR' })).body;
    const dana = (await suite.api.post('/contacts', { name: 'Dana Shopper', email: `dana-${Date.now()}@example.test` }))
      .body;
    const order = await suite.api.post(`/contacts/${dana.id}/orders`, {
      items: [{ sku: 'MUG-1', quantity: 2 }, { sku: 'LAMP' }],
      externalId: 'S-1001',
    });
    expect(order.status).toBe(201);
    await page.reload();
    await textWhen(page.locator(`tr[data-id="${lamp.id}"]`), /Lamp/);
    const orderRow = page.locator(`#content tr[data-id="${order.body.id}"]`).last();
    expect(await textWhen(orderRow.locator('td.amount'), /68\.00 EUR/)).toBe('68.00 EUR');
    await page.getByLabel('Contact', { exact: true }).selectOption(dana.id);
    await textWhen(page.locator('#contact-orders-total'), /1 order/);
    expect(await page.locator('#contact-orders-total').innerText()).toBe('1 order, 68.00 EUR in all');
    expect(await page.locator(`#contact-orders tr[data-id="${order.body.id}"] td.items`).innerText()).toBe(
      '2 × Mug, 1 × Lamp',
    );
    const theirOrders = (await suite.api.get(`/contacts/${dana.id}/orders`)).body.data;
    expect(theirOrders.map((o: { id: string }) => o.id)).toEqual([order.body.id]);
    await expectPageIsClean(page, complaints, 'console-shop-desktop');

    // Delete the lamp in the page: the API no longer has it.
    await page.getByRole('button', { name: 'Delete Lamp' }).click();
    await page.locator(`tr[data-id="${lamp.id}"]`).waitFor({ state: 'detached' });
    expect((await suite.api.get(`/products/${lamp.id}`)).status).toBe(404);

    // On a phone, from the contact's page to its orders.
    const phone = await browser.signedIn(`/app/contacts/${dana.id}`, PHONE);
    await Promise.all([
      phone.page.waitForURL((url) => url.pathname === '/app/shop'),
      phone.page.getByRole('link', { name: 'Its orders in the Shop' }).click(),
    ]);
    await textWhen(phone.page.locator('#contact-orders-total'), /1 order/);
    expect(await scrollsSideways(phone.page)).toBe(false);
    await expectPageIsClean(phone.page, phone.complaints, 'console-shop-phone');

    // Another team's contact: its orders are not found.
    const other = await newTeam(suite.db, 'console-shop-other');
    const stranger = (await apiClient(suite.server.baseUrl, other).post('/contacts', { email: 'x@example.test' })).body;
    const theirs = await consoleFetch(phone.page, 'GET', `/contacts/${stranger.id}/orders`);
    expect(theirs).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
  });
});
