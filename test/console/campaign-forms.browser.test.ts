import type { Page } from 'playwright-core';
import { CONTACT_PATHS } from '../../services/campaigns/content';
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

/**
 * The campaign forms carry every field of a campaign, by channel (issue 39): an email's HTML body
 * with its sandboxed preview, placeholders mapped to a contact field, a literal or an AI prompt,
 * contacts picked by search, a schedule; a WhatsApp campaign's language and category, submitted
 * for approval from the console; the audience editable in Draft only. Each checked through the API.
 */
describe('console: campaign forms', () => {
  const suite = useProviderSuite('console-campaign-forms');
  const browser = useConsoleSuite(suite);

  beforeAll(async () => {
    for (const [channel, body] of [
      [
        'email',
        {
          provider: 'resend',
          config: { baseUrl: suite.fake.baseUrl },
          secrets: { apiKey: 're_test' },
          from: 'news@acme.example',
        },
      ],
      [
        'whatsapp',
        {
          provider: 'whatsapp_cloud',
          config: { baseUrl: suite.fake.baseUrl, phoneNumberId: '555', businessAccountId: 'waba1' },
          secrets: { accessToken: 'wa' },
        },
      ],
    ] as const)
      expect((await suite.api.call('PUT', `/agents/${suite.team.agentId}/integrations/${channel}`, body)).status).toBe(
        200,
      );
  });

  let n = 0;
  async function contact(name: string, extra: Record<string, unknown> = {}) {
    const first = name.split(' ')[0].toLowerCase();
    const created = await suite.api.post('/contacts', {
      name,
      email: `${first}.${++n}@example.test`,
      phone: `+1555000${String(1000 + n)}`,
      tags: ['newsletter'],
      ...extra,
    });
    expect(created.status).toBe(201);
    await suite.api.call('PATCH', `/contacts/${created.body.id}`, { marketingConsent: 'granted' });
    return created.body as { id: string; name: string; email: string; phone: string };
  }
  /** Finds a contact by search in the form's audience and adds it. */
  async function pick(page: Page, prefix: string, query: string, who: { name: string }) {
    await page.locator(`#${prefix}-find`).fill(query);
    await page.locator(`#${prefix}-audience`).getByRole('button', { name: 'Search' }).click();
    await page.getByRole('button', { name: new RegExp(`^Add ${who.name}`) }).click();
    await page.locator(`#${prefix}-picked li`).filter({ hasText: who.name }).waitFor();
  }
  /** A datetime-local value a day ahead, as a person types it, and the ISO time it means here. */
  function tomorrowLocal() {
    const at = new Date(Date.now() + 24 * 3600 * 1000);
    at.setSeconds(0, 0);
    const local = new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    return { local, iso: at.toISOString() };
  }

  it('creates an email campaign with an HTML body (previewed in a sandbox), placeholders of each kind, contacts picked by search and a schedule', async () => {
    const ada = await contact('Ada Lovelace');
    const alan = await contact('Alan Turing');
    await contact('Grace Hopper');
    // Another team's Ada is never found by this team's search.
    const other = await newTeam(suite.db, 'console-campaign-forms-other');
    const otherApi = apiClient(suite.server.baseUrl, other);
    const theirs = (await otherApi.post('/contacts', { name: 'Ada Other', email: 'ada.other@example.test' })).body;

    const { page, complaints } = await browser.signedIn('/app/campaigns', DESKTOP);
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    await textWhen(page.getByRole('status').first(), /campaigns? · updated/);

    await page.getByLabel('Name', { exact: true }).fill('December letter');
    await page.getByLabel('Channel').selectOption('email');
    await page.getByLabel('Subject', { exact: true }).fill('News for {{first}}');
    await page.getByLabel('Message ({{placeholder}} allowed)').fill('Hello {{first}}, {{opener}} From {{brand}}.');
    const html =
      '<h1 style="color: #1d4ed8">Hello {{first}}</h1><style>p { font-size: 20px; }</style>' +
      '<p>{{opener}} From <b>{{brand}}</b>.</p><img src="https://images.example.com/x.png" alt="Logo">' +
      '<script>parent.document.title = "ran"</script><p><a href="javascript:alert(1)" onclick="alert(2)">Read more</a></p>';
    await page.getByLabel('HTML body (email; {{placeholder}} allowed)').fill(html);

    // The preview draws the HTML with its styles; nothing in it runs, nothing loads from another host.
    const frame = page.frameLocator('#new-html-preview');
    await frame.locator('h1').filter({ hasText: 'Hello {{first}}' }).waitFor();
    const look = (await page.evaluate(`(() => {
      const doc = document.getElementById('new-html-preview').contentDocument;
      return {
        sandbox: document.getElementById('new-html-preview').getAttribute('sandbox'),
        h1: getComputedStyle(doc.querySelector('h1')).color,
        p: getComputedStyle(doc.querySelector('p')).fontSize,
        scripts: doc.querySelectorAll('script').length,
        imgSrc: doc.querySelector('img').getAttribute('src'),
        href: doc.querySelector('a').getAttribute('href'),
        onclick: doc.querySelector('a').getAttribute('onclick'),
      };
    })()`)) as Record<string, unknown>;
    expect(look).toEqual({
      sandbox: 'allow-same-origin',
      h1: 'rgb(29, 78, 216)',
      p: '20px',
      scripts: 0,
      imgSrc: null,
      href: null,
      onclick: null,
    });
    expect(await page.title()).not.toBe('ran');

    // One row per placeholder: a contact field, a literal, an AI prompt (the contact fields are the service's).
    expect(
      await page
        .getByLabel('Contact field for {{first}}')
        .locator('option')
        .evaluateAll((els) => els.map((el) => el.getAttribute('value'))),
    ).toEqual(Object.keys(CONTACT_PATHS));
    await page.getByLabel('{{first}}', { exact: true }).selectOption('contact');
    await page.getByLabel('Contact field for {{first}}').selectOption('contact.firstName');
    await page.getByLabel('{{brand}}', { exact: true }).selectOption('literal');
    await page.getByLabel('Text or prompt for {{brand}}').fill('Acme & Co');
    await page.getByLabel('{{opener}}', { exact: true }).selectOption('ai');
    await page.getByLabel('Text or prompt for {{opener}}').fill('One warm line about the season');
    await page.getByLabel('Agent (sends, and writes the AI placeholders)').selectOption(suite.team.agentId);

    // Contacts picked by search: this team's only.
    await page.locator('#new-find').fill('Ada');
    await page.locator('#new-audience').getByRole('button', { name: 'Search' }).click();
    await page.getByRole('button', { name: /^Add Ada Lovelace/ }).waitFor();
    expect(await page.locator('#new-audience ul.found').innerText()).not.toContain('Ada Other');
    await pick(page, 'new', 'Ada', ada);
    await pick(page, 'new', 'Turing', alan);
    await page.locator('#new-audience').getByRole('button', { name: 'Preview audience' }).click();
    expect(await textWhen(page.locator('#new-audience-preview'), /can be sent/)).toBe('2 of 2 can be sent.');

    const { local, iso } = tomorrowLocal();
    await page.getByLabel('Scheduled for (your time; empty: when sent)').fill(local);
    await expectPageIsClean(page, complaints, 'console-campaign-forms-desktop');
    await page.setViewportSize(PHONE);
    expect(await scrollsSideways(page)).toBe(false);
    await screenshot(page, 'console-campaign-forms-phone');
    await page.setViewportSize(DESKTOP);

    await Promise.all([
      page.waitForURL((url) => /^\/app\/campaigns\/cmp_/.test(url.pathname)),
      page.getByRole('button', { name: 'Create draft' }).click(),
    ]);
    const campaignId = new URL(page.url()).pathname.split('/').pop()!;
    const made = (await suite.api.get(`/campaigns/${campaignId}`)).body;
    expect(made).toMatchObject({
      name: 'December letter',
      channel: 'email',
      status: 'draft',
      subject: 'News for {{first}}',
      title: null,
      content: 'Hello {{first}}, {{opener}} From {{brand}}.',
      contentHtml: html,
      templateParams: { first: 'contact.firstName', brand: 'Acme & Co' },
      aiParams: { opener: 'One warm line about the season' },
      agentId: suite.team.agentId,
      segmentId: null,
      tags: null,
      contactIds: [ada.id, alan.id],
      language: null,
      category: null,
    });
    expect(new Date(made.scheduledAt).getTime()).toBe(new Date(iso).getTime());

    // Its page shows the fields, and the HTML in the same sandboxed preview.
    await page.frameLocator('#html-preview').locator('h1').filter({ hasText: 'Hello {{first}}' }).waitFor();
    const details = await textWhen(page.locator('#campaign-details'), /Placeholders/);
    expect(details).toContain('{{brand}} = Acme & Co');
    expect(details).toContain('{{opener}} = AI: One warm line about the season');
    expect(details).toContain('2 picked contacts');
    await expectPageIsClean(page, complaints, 'console-campaign-forms-email-page-desktop');
    await page.setViewportSize(PHONE);
    expect(await scrollsSideways(page)).toBe(false);
    await screenshot(page, 'console-campaign-forms-email-page-phone');

    // Nothing was asked of another host (the preview's image, the script's title: neither).
    expect(requests.filter((u) => !u.startsWith(suite.server.url) && !u.startsWith('about:'))).toEqual([]);
    expect(complaints.join('\n')).not.toContain('images.example.com');
    // Another team's contact cannot be put in this team's audience through the form's call either.
    const foreign = await consoleFetch(page, 'POST', '/campaigns/audience-preview', {
      channel: 'email',
      contactIds: [theirs.id],
    });
    expect(foreign.status === 422 || foreign.body.total === 0).toBe(true);
  });

  it('creates a WhatsApp campaign with language and category, submits it for approval (pending), and edits it with the audience fixed', async () => {
    const wendy = await contact('Wendy Whatsapp');
    const { page, complaints } = await browser.signedIn('/app/campaigns', DESKTOP);
    await textWhen(page.getByRole('status').first(), /campaigns? · updated/);
    await page.getByLabel('Name', { exact: true }).fill('order_ready');
    await page.getByLabel('Channel').selectOption('whatsapp');
    // WhatsApp has no subject, no HTML, and no AI placeholders.
    expect(await page.getByLabel('Subject', { exact: true }).isVisible()).toBe(false);
    expect(await page.locator('#new-html').isVisible()).toBe(false);
    await page.getByLabel('Message ({{placeholder}} allowed)').fill('Hi {{first}}, your order is ready');
    expect(
      await page
        .getByLabel('{{first}}', { exact: true })
        .locator('option')
        .evaluateAll((els) => els.map((el) => el.getAttribute('value'))),
    ).toEqual(['', 'contact', 'literal']);
    await page.getByLabel('{{first}}', { exact: true }).selectOption('contact');
    await page.getByLabel('Contact field for {{first}}').selectOption('contact.firstName');
    await page.getByLabel('Template language (en, en_US)').fill('en_US');
    await page.getByLabel('Template category').selectOption('UTILITY');
    await pick(page, 'new', 'Wendy', wendy);
    await Promise.all([
      page.waitForURL((url) => /^\/app\/campaigns\/cmp_/.test(url.pathname)),
      page.getByRole('button', { name: 'Create draft' }).click(),
    ]);
    const campaignId = new URL(page.url()).pathname.split('/').pop()!;
    expect((await suite.api.get(`/campaigns/${campaignId}`)).body).toMatchObject({
      channel: 'whatsapp',
      status: 'draft',
      language: 'en_US',
      category: 'UTILITY',
      subject: null,
      contentHtml: null,
      templateParams: { first: 'contact.firstName' },
      aiParams: {},
      contactIds: [wendy.id],
    });

    // Submit for approval: the API says pending, and the page offers refresh instead.
    await page.getByRole('button', { name: 'Submit template' }).click();
    await page.locator('#actions button[data-action="whatsapp-refresh"]').waitFor();
    expect((await suite.api.get(`/campaigns/${campaignId}`)).body.status).toBe('pending');

    // Pending: still editable, but the audience is fixed; language, category and placeholders change.
    await page.getByRole('button', { name: 'Edit' }).click();
    const audience = page.locator('#edit-audience');
    await textWhen(audience, /Fixed/);
    expect(await audience.locator('input, select').count()).toBe(0);
    expect(await audience.getByRole('button', { name: /^Remove/ }).count()).toBe(0);
    await textWhen(page.locator('#edit-picked'), /Wendy Whatsapp/);
    await page.getByLabel('Template language (en, en_US)').fill('en');
    await page.getByLabel('Template category').selectOption('MARKETING');
    await page.getByLabel('{{first}}', { exact: true }).selectOption('literal');
    await page.getByLabel('Text or prompt for {{first}}').fill('friend');
    await expectPageIsClean(page, complaints, 'console-campaign-forms-whatsapp-edit-desktop');
    await page.getByRole('button', { name: 'Save' }).click();
    await textWhen(page.locator('#action-outcome'), /Done|\(/);
    // An edit of the template sends it back to Draft (to be submitted again), as the API rules.
    expect((await suite.api.get(`/campaigns/${campaignId}`)).body).toMatchObject({
      status: 'draft',
      language: 'en',
      category: 'MARKETING',
      templateParams: { first: 'friend' },
      contactIds: [wendy.id],
    });
    await page.locator('#actions button[data-action="whatsapp-submit"]').waitFor();
    await page.getByRole('button', { name: 'Submit template' }).click();
    await page.locator('#actions button[data-action="whatsapp-refresh"]').waitFor();
    expect((await suite.api.get(`/campaigns/${campaignId}`)).body.status).toBe('pending');
  });

  it('edits a Draft’s audience (tags to picked contacts) and its schedule; another team’s campaign is not found', async () => {
    const vic = await contact('Victor Vip', { tags: ['vip'] });
    const pia = await contact('Pia Picked');
    const campaign = (
      await suite.api.post('/campaigns', {
        name: 'Spring letter',
        channel: 'email',
        subject: 'Spring',
        content: 'Hello.',
        tags: ['newsletter'],
        scheduledAt: new Date(Date.now() + 48 * 3600 * 1000).toISOString(),
      })
    ).body;
    const { page, complaints } = await browser.signedIn(`/app/campaigns/${campaign.id}`, DESKTOP);
    await page.getByRole('button', { name: 'Edit' }).click();
    const tags = page.getByLabel('Contacts with any of these tags');
    expect(await tags.inputValue()).toBe('newsletter');
    await tags.fill('vip');
    await pick(page, 'edit', 'Pia', pia);
    await page.getByLabel('Scheduled for (your time; empty: when sent)').fill('');
    await page.setViewportSize(PHONE);
    expect(await scrollsSideways(page)).toBe(false);
    await screenshot(page, 'console-campaign-forms-edit-draft-phone');
    await page.setViewportSize(DESKTOP);
    await page.getByRole('button', { name: 'Save' }).click();
    await textWhen(page.locator('#action-outcome'), /Done|\(/);
    expect((await suite.api.get(`/campaigns/${campaign.id}`)).body).toMatchObject({
      status: 'draft',
      tags: ['vip'],
      contactIds: [pia.id],
      segmentId: null,
      scheduledAt: null,
      subject: 'Spring',
    });
    const preview = (await suite.api.post('/campaigns/audience-preview', { campaignId: campaign.id })).body;
    expect(preview.total).toBe(2);
    expect(vic.id).toBeTruthy();
    await expectPageIsClean(page, complaints, 'console-campaign-forms-edit-draft');

    const other = await newTeam(suite.db, 'console-campaign-forms-other2');
    const theirs = (
      await apiClient(suite.server.baseUrl, other).post('/campaigns', {
        name: 'Theirs',
        channel: 'email',
        subject: 'S',
        content: 'C',
        contactIds: [
          (await apiClient(suite.server.baseUrl, other).post('/contacts', { name: 'T', email: 't@x.test' })).body.id,
        ],
      })
    ).body;
    const res = await consoleFetch(page, 'PATCH', `/campaigns/${theirs.id}`, { tags: ['vip'] });
    expect([res.status, res.body.error.code]).toEqual([404, 'not_found']);
  });
});
