import nodemailer from 'nodemailer';
import pino from 'pino';
import type { Page } from 'playwright-core';
import { RunningInbox, startInboxListener } from '../../services/inbox/smtpListener';
import { apiClient, newTeam, sleep, useApiSuite } from '../support/helpers';
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
 * An agent's page (`/app/agents/{id}`): its memories (searched, added, edited, deleted), skills,
 * documents, character and mailbox, done by a person in Chromium and checked through the API.
 */
describe("console: an agent's knowledge and mailbox", () => {
  const suite = useApiSuite('console-knowledge');
  const browser = useConsoleSuite(suite);
  let inbox: RunningInbox;
  const agentPath = (rest: string) => `/agents/${suite.team.agentId}${rest}`;

  beforeAll(async () => {
    inbox = await startInboxListener(
      {
        INBOX_DOMAIN: suite.server.ctx.config.INBOX_DOMAIN,
        INBOX_SMTP_PORT: 0,
        INBOX_SMTP_HOST: '127.0.0.1',
        INBOX_MAX_BYTES: 64 * 1024,
      },
      suite.db,
      pino({ level: 'silent' }),
    );
  });
  afterAll(async () => {
    await inbox?.close();
  });

  const tab = (page: Page, name: string) => page.getByRole('tab', { name, exact: true }).click();

  it('memories, skills, documents and character made and changed on the page are what the API has', async () => {
    const { page, complaints } = await browser.signedIn('/app/agents', DESKTOP);
    const agentName = (await suite.api.get(agentPath('/character'))).body.name as string;
    await Promise.all([
      page.waitForURL((url) => url.pathname === `/app/agents/${suite.team.agentId}`),
      page.getByRole('link', { name: `Knowledge and mailbox of ${agentName}` }).click(),
    ]);
    await textWhen(page.locator('h1'), /Agent:/);

    // Memories: two facts remembered from the page.
    const newMemory = page.locator('#memory-new');
    const remember = async (content: string, tags: string, importance: string) => {
      await newMemory.getByLabel('What to remember').fill(content);
      await newMemory.getByLabel('Tags (comma separated)').fill(tags);
      await newMemory.getByLabel(/^Importance/).fill(importance);
      await newMemory.getByRole('button', { name: 'Add memory' }).click();
      expect(await textWhen(newMemory.locator('.outcome'), /Remembered|\(/)).toBe('Remembered.');
    };
    await remember('Ada prefers her invoices by email, as PDF', 'billing, ada', '4');
    await remember('The office closes at six on Fridays', 'office', '2');
    const memories = async () => (await suite.api.get(agentPath('/memories?limit=50'))).body.data as any[];
    const ada = (await memories()).find((m) => m.content.startsWith('Ada'));
    expect(ada).toMatchObject({ tags: ['billing', 'ada'], importance: 4 });
    expect(await memories()).toHaveLength(2);

    // Search, with a typo: the page lists what the API's search finds, Ada's first.
    await page.getByLabel('Search memories').fill('invoises');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await textWhen(page.getByRole('status').first(), /found for/);
    const hits = (await suite.api.get(agentPath('/memories?q=invoises'))).body.data.map((m: any) => m.id);
    expect(hits[0]).toBe(ada.id);
    const shownHits = await page
      .locator('#memory-list li')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')));
    expect(shownHits).toEqual(hits);

    // Edit it: new content and importance.
    await page.getByRole('button', { name: `Edit memory: ${ada.content}` }).click();
    const editMemory = page.locator('#memory-edit');
    await editMemory.getByLabel('What to remember').fill('Ada prefers her invoices by email, as PDF, monthly');
    await editMemory.getByLabel(/^Importance/).fill('5');
    await editMemory.getByRole('button', { name: 'Save memory' }).click();
    expect(await textWhen(editMemory.locator('.outcome'), /Saved|\(/)).toBe('Saved.');
    const edited = (await memories()).find((m) => m.id === ada.id);
    expect(edited).toMatchObject({
      content: 'Ada prefers her invoices by email, as PDF, monthly',
      importance: 5,
      tags: ['billing', 'ada'],
    });
    await textWhen(page.locator(`#memory-list li[data-id="${ada.id}"]`), /monthly/);
    await expectPageIsClean(page, complaints, 'console-agent-knowledge-desktop');

    // Delete it: the API forgets it, the other stays.
    await page.getByRole('button', { name: `Delete memory: ${edited.content}` }).click();
    await page.locator(`#memory-list li[data-id="${ada.id}"]`).waitFor({ state: 'detached' });
    expect((await memories()).map((m) => m.content)).toEqual(['The office closes at six on Fridays']);

    // Skills: created, edited, deleted.
    await tab(page, 'Skills');
    expect(new URL(page.url()).hash).toBe('#skills');
    const newSkill = page.locator('#skill-new');
    await newSkill.getByLabel(/^Name/).fill('write-invoice');
    await newSkill.getByLabel(/^When it applies/).fill('a client asks for an invoice');
    await newSkill.getByLabel('Instructions').fill('Find the order, then draft the invoice as PDF.');
    await newSkill.getByRole('button', { name: 'Add skill' }).click();
    expect(await textWhen(newSkill.locator('.outcome'), /Added|\(/)).toBe('Added write-invoice.');
    const skills = async () => (await suite.api.get(agentPath('/skills'))).body.data as any[];
    const [skill] = await skills();
    expect(skill).toMatchObject({
      name: 'write-invoice',
      description: 'a client asks for an invoice',
      instructions: 'Find the order, then draft the invoice as PDF.',
    });
    // A name the API refuses is its own message.
    await newSkill.getByLabel(/^Name/).fill('Write Invoice');
    await newSkill.getByLabel(/^When it applies/).fill('x');
    await newSkill.getByLabel('Instructions').fill('y');
    await newSkill.getByRole('button', { name: 'Add skill' }).click();
    expect(await textWhen(newSkill.locator('.outcome'), /validation_error/)).toContain('lowercase');

    await page.getByRole('button', { name: 'Edit skill write-invoice' }).click();
    const editSkill = page.locator('#skill-edit');
    await editSkill.getByLabel(/^When it applies/).fill('a client asks for an invoice or a receipt');
    await editSkill.getByRole('button', { name: 'Save skill' }).click();
    expect(await textWhen(editSkill.locator('.outcome'), /Saved|\(/)).toBe('Saved.');
    expect((await skills())[0]).toMatchObject({
      id: skill.id,
      name: 'write-invoice',
      description: 'a client asks for an invoice or a receipt',
    });
    await textWhen(page.locator(`#skill-list li[data-id="${skill.id}"]`), /receipt/);
    await screenshot(page, 'console-agent-knowledge-skills-desktop');
    await page.getByRole('button', { name: 'Delete skill write-invoice' }).click();
    await page.locator(`#skill-list li[data-id="${skill.id}"]`).waitFor({ state: 'detached' });
    expect(await skills()).toEqual([]);

    // Documents: added by title and text (a knowledge.ingest job), then listed.
    await tab(page, 'Documents');
    const newDocument = page.locator('#document-new');
    await newDocument.getByLabel(/^Title/).fill('Price list 2026');
    await newDocument
      .getByLabel(/^Text/)
      .fill('Consulting: 120 EUR an hour.\n\nWorkshops: 900 EUR a day.\n\nTravel is billed at cost.');
    await newDocument.getByRole('button', { name: 'Add document' }).click();
    expect(await textWhen(newDocument.locator('.outcome'), /Added|\(|could not|Started/)).toBe(
      'Added Price list 2026.',
    );
    const [document] = (await suite.api.get(agentPath('/documents'))).body.data;
    expect(document).toMatchObject({ title: 'Price list 2026' });
    expect(document.chunkCount).toBeGreaterThan(0);
    expect(await page.locator(`tr[data-id="${document.id}"]`).innerText()).toContain('Price list 2026');
    await screenshot(page, 'console-agent-knowledge-documents-desktop');

    // Character: saved, then the persona cleared.
    await tab(page, 'Character');
    const character = page.locator('#character-form');
    await character.getByLabel(/^Persona/).fill('A calm bookkeeper who writes short emails.');
    await character.getByLabel(/^Instructions/).fill('Never promise a discount.');
    await character.getByRole('button', { name: 'Save character' }).click();
    expect(await textWhen(character.locator('.outcome'), /Saved|\(/)).toBe('Saved.');
    expect((await suite.api.get(agentPath('/character'))).body).toMatchObject({
      persona: 'A calm bookkeeper who writes short emails.',
      instructions: 'Never promise a discount.',
    });
    await screenshot(page, 'console-agent-knowledge-character-desktop');
    await page.reload();
    expect(await page.getByRole('tab', { name: 'Character' }).getAttribute('aria-selected')).toBe('true');
    expect(
      await page
        .locator('#character-form')
        .getByLabel(/^Persona/)
        .inputValue(),
    ).toBe('A calm bookkeeper who writes short emails.');
    await page
      .locator('#character-form')
      .getByLabel(/^Persona/)
      .fill('');
    await page.locator('#character-form').getByRole('button', { name: 'Save character' }).click();
    await textWhen(page.locator('#character-form .outcome'), /Saved|\(/);
    expect((await suite.api.get(agentPath('/character'))).body).toMatchObject({
      persona: null,
      instructions: 'Never promise a discount.',
    });
  });

  it('shows the mailbox: received mail, and one message read whole', async () => {
    const sender = `ada-${Date.now()}@example.com`;
    const contact = await suite.api.post('/contacts', { name: 'Ada Lovelace', email: sender });
    await nodemailer.createTransport({ host: '127.0.0.1', port: inbox.port, secure: false, ignoreTLS: true }).sendMail({
      from: `"Ada Lovelace" <${sender}>`,
      to: `${suite.team.agentId}@${suite.server.ctx.config.INBOX_DOMAIN}`,
      subject: 'Re: the proposal',
      text: 'Thanks, the proposal reads well.\nLet us talk on Monday.',
      inReplyTo: '<offer-1@acme.example>',
      attachments: [{ filename: 'notes.txt', content: 'a note' }],
    });
    let listed: any[] = [];
    for (let i = 0; i < 100 && !listed.length; i++) {
      listed = (await suite.api.get(agentPath('/inbox'))).body.data;
      if (!listed.length) await sleep(100);
    }
    expect(listed).toHaveLength(1);

    const { page, complaints } = await browser.signedIn(`/app/agents/${suite.team.agentId}`, PHONE);
    await tab(page, 'Mailbox');
    const row = page.locator(`#inbox-list li[data-id="${listed[0].id}"]`);
    expect(await textWhen(row, /proposal/)).toContain('Thanks, the proposal reads well.');
    await row.getByRole('button', { name: /^Read/ }).click();
    const message = page.locator('#inbox-message');
    await textWhen(message, /Monday/);
    expect(await message.getAttribute('data-id')).toBe(listed[0].id);
    const text = await message.innerText();
    expect(text).toContain('Re: the proposal');
    expect(text).toContain(`Ada Lovelace <${sender}>`);
    expect(text).toContain('notes.txt (text/plain');
    expect(text).toContain('<offer-1@acme.example>');
    expect(await page.locator('#inbox-message-text').innerText()).toBe(
      'Thanks, the proposal reads well.\nLet us talk on Monday.',
    );
    expect(await message.getByRole('link', { name: 'the sender' }).getAttribute('href')).toBe(
      `/app/contacts/${contact.body.id}`,
    );
    expect(await scrollsSideways(page)).toBe(false);
    await expectPageIsClean(page, complaints, 'console-agent-knowledge-phone');

    // The memories tab on a phone, with a memory in it.
    await suite.api.post(agentPath('/memories'), { content: 'Ada answers within a day', tags: ['ada'] });
    await tab(page, 'Memories');
    await textWhen(page.locator('#memory-list'), /within a day/);
    expect(await scrollsSideways(page)).toBe(false);
    await expectPageIsClean(page, complaints, 'console-agent-knowledge-memories-phone');
  });

  it("another team's agent is not found, and its knowledge and mail are 404 through the console", async () => {
    const other = await newTeam(suite.db, 'console-knowledge-other');
    const otherApi = apiClient(suite.server.baseUrl, other);
    const theirs = (await otherApi.post(`/agents/${other.agentId}/memories`, { content: 'their secret' })).body;

    const { page, complaints } = await browser.signedIn(`/app/agents/${other.agentId}`, DESKTOP);
    expect(await textWhen(page.getByRole('alert'), /not found/)).toBe('Agent not found.');
    const base = `/agents/${other.agentId}`;
    expect((await consoleFetch(page, 'GET', `${base}/memories`)).status).toBe(404);
    expect((await consoleFetch(page, 'DELETE', `${base}/memories/${theirs.id}`)).status).toBe(404);
    expect((await consoleFetch(page, 'PUT', `${base}/character`, { persona: 'mine now' })).status).toBe(404);
    expect((await consoleFetch(page, 'GET', `${base}/inbox`)).status).toBe(404);
    expect((await otherApi.get(`${base}/memories`)).body.data.map((m: any) => m.content)).toEqual(['their secret']);
    expect((await otherApi.get(`${base}/character`)).body.persona).toBeNull();
    await expectPageIsClean(page, complaints, 'console-agent-not-found');
  });
});
