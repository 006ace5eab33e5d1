import { apiClient, newTeam, useApiSuite } from '../support/helpers';
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
 * A contact's page (`/app/contacts/{id}`): its fields, and its custom properties added, changed
 * and removed by a person; the API's contact holds exactly what the page did.
 */
describe('console: a contact page with its properties', () => {
  const suite = useApiSuite('console-contact');
  const browser = useConsoleSuite(suite);

  it('adds, changes and removes properties, and the API keeps exactly those', async () => {
    const created = await suite.api.post('/contacts', {
      name: 'Grace Hopper',
      email: 'grace@example.com',
      company: 'Navy',
      tags: ['vip'],
      properties: { source: 'conference' },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const apiContact = async () => (await suite.api.get(`/contacts/${id}`)).body;

    // From the list, a person opens the contact's page.
    const { page, complaints } = await browser.signedIn('/app/contacts', PHONE);
    await Promise.all([
      page.waitForURL((url) => url.pathname === `/app/contacts/${id}`),
      page.getByRole('link', { name: 'Grace Hopper' }).click(),
    ]);
    await textWhen(page.locator('h1'), /Grace Hopper/);
    expect(await page.locator('#contact-properties li[data-key="source"]').innerText()).toContain('conference');
    expect(await page.locator('dl.facts').innerText()).toContain('Navy');

    const save = async (key: string, kind: string, value: string) => {
      await page.getByLabel('Property name').fill(key);
      await page.getByLabel('Kind of value').selectOption(kind);
      await page.getByLabel('Value', { exact: true }).fill(value);
      await page.getByRole('button', { name: 'Save property' }).click();
    };
    const outcome = page.locator('#property-form .outcome');

    // Add: a text, a number, a yes/no and a JSON list.
    await save('plan', 'text', 'gold');
    expect(await textWhen(outcome, /plan|\(/)).toBe('Added plan.');
    await save('seats', 'number', '12');
    expect(await textWhen(outcome, /seats|\(/)).toBe('Added seats.');
    await save('trial', 'boolean', 'false');
    expect(await textWhen(outcome, /trial|\(/)).toBe('Added trial.');
    await save('languages', 'json', '["en", "fr"]');
    expect(await textWhen(outcome, /languages|\(/)).toBe('Added languages.');
    expect((await apiContact()).properties).toEqual({
      source: 'conference',
      plan: 'gold',
      seats: 12,
      trial: false,
      languages: ['en', 'fr'],
    });

    // A value that is not what its kind says is not sent.
    await save('seats', 'number', 'twelve');
    expect(await textWhen(outcome, /number/)).toBe('The value is not a number.');
    expect((await apiContact()).properties.seats).toBe(12);

    // Change: the row's Change… fills the form; the new value replaces the old.
    await page.getByRole('button', { name: 'Change seats' }).click();
    expect(await page.getByLabel('Property name').inputValue()).toBe('seats');
    expect(await page.getByLabel('Value', { exact: true }).inputValue()).toBe('12');
    await page.getByLabel('Value', { exact: true }).fill('15');
    await page.getByRole('button', { name: 'Save property' }).click();
    expect(await textWhen(outcome, /Changed|\(/)).toBe('Changed seats.');
    await textWhen(page.locator('li[data-key="seats"]'), /15/);

    // Remove: the key is gone from the contact, the others stay.
    await page.getByRole('button', { name: 'Remove source' }).click();
    await page.locator('li[data-key="source"]').waitFor({ state: 'detached' });
    const after = await apiContact();
    expect(after.properties).toEqual({ plan: 'gold', seats: 15, trial: false, languages: ['en', 'fr'] });
    // The other fields were left alone.
    expect(after).toMatchObject({ name: 'Grace Hopper', email: 'grace@example.com', company: 'Navy', tags: ['vip'] });

    // What the page shows is what the API has.
    const shown = await page
      .locator('#contact-properties li')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-key')));
    expect(shown).toEqual(Object.keys(after.properties).sort());
    expect(await page.locator('li[data-key="languages"] .value').innerText()).toBe('["en","fr"]');
    expect(await scrollsSideways(page)).toBe(false);
    await expectPageIsClean(page, complaints, 'console-contact-properties-phone');

    const desktop = await browser.signedIn(`/app/contacts/${id}`, DESKTOP);
    await textWhen(desktop.page.locator('li[data-key="plan"]'), /gold/);
    await expectPageIsClean(desktop.page, desktop.complaints, 'console-contact-properties-desktop');
  });

  it("another team's contact is not found, and its properties cannot be changed through the console", async () => {
    const other = await newTeam(suite.db, 'console-contact-other');
    const otherApi = apiClient(suite.server.baseUrl, other);
    const theirs = await otherApi.post('/contacts', { name: 'Their Tom', properties: { secret: 'kept' } });
    expect(theirs.status).toBe(201);

    const { page, complaints } = await browser.signedIn(`/app/contacts/${theirs.body.id}`, DESKTOP);
    expect(await textWhen(page.getByRole('alert'), /not found/)).toBe('Contact not found.');
    const patch = await consoleFetch(page, 'PATCH', `/contacts/${theirs.body.id}`, { properties: { secret: null } });
    expect(patch.status).toBe(404);
    expect((await otherApi.get(`/contacts/${theirs.body.id}`)).body.properties).toEqual({ secret: 'kept' });
    expect(await page.locator('body').innerText()).not.toContain('Their Tom');
    await expectPageIsClean(page, complaints, 'console-contact-not-found');
  });
});
