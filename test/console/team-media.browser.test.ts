import fs from 'node:fs';
import type { Db } from '../../db/knex';
import { billingCycle } from '../../services/platform/credits';
import { apiClient, ApiClient, newTeam, startTestApi, testDb, TestTeam } from '../support/helpers';
import { withPassword } from '../support/oauthHelpers';
import {
  consoleFetch,
  DESKTOP,
  expectPageIsClean,
  PHONE,
  scrollsSideways,
  textWhen,
  unexpectedComplaints,
  useConsoleSuite,
} from './consoleBrowser';

/** A 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
const MAX_BYTES = 4096;

/**
 * The team's page (profile, place, settings, the MCP credits of the cycle) and the media library
 * (upload with the limits shown, list, download, delete), on an API whose MEDIA_MAX_BYTES is 4 KB.
 */
describe('console: team settings and the media library', () => {
  const suite = {} as { db: Db; server: Awaited<ReturnType<typeof startTestApi>>; team: TestTeam; api: ApiClient };
  beforeAll(async () => {
    suite.db = testDb();
    suite.server = await startTestApi(suite.db, { MEDIA_MAX_BYTES: String(MAX_BYTES) });
    suite.team = await newTeam(suite.db, 'console-team');
    suite.api = apiClient(suite.server.baseUrl, suite.team);
  });
  const browser = useConsoleSuite(suite);
  afterAll(async () => {
    await suite.server?.close();
    await suite.db?.destroy();
  });

  it('place, settings and name changed on the page are the API’s; the credits are GET /credits’', async () => {
    // Credits this cycle, as MCP tool calls would have charged them (row 0: a metered team's counter).
    await suite.db('credit_usage').insert({
      team_id: suite.team.teamId,
      cycle_start: billingCycle().start.toISOString().slice(0, 10),
      shard: 0,
      used: 7,
      calls: 4,
      refused: 1,
    });
    const logo = (
      await fetch(`${suite.server.baseUrl}/media`, {
        method: 'POST',
        headers: { authorization: `Bearer ${suite.team.token}`, 'x-team-slug': suite.team.slug },
        body: (() => {
          const form = new FormData();
          form.append('file', new Blob([PNG], { type: 'image/png' }), 'logo.png');
          return form;
        })(),
      }).then((r) => r.json() as Promise<any>)
    ).id as string;

    const { page, complaints } = await browser.signedIn('/app/team', PHONE);
    const summary = page.locator('#team-summary');
    await textWhen(summary, /Plan/);

    // The credits match the API's.
    const credits = (await suite.api.get('/credits')).body;
    expect(credits).toMatchObject({ used: 7, calls: 4, refused: 1 });
    const creditsText = await textWhen(page.locator('#credits'), /Tool calls/);
    expect(creditsText).toContain(`Plan\n${credits.plan}`);
    expect(creditsText).toContain(
      credits.allowance === null ? 'Used\n7 (not metered)' : `Used\n7 of ${credits.allowance}`,
    );
    expect(creditsText).toMatch(/Tool calls\n4/);
    expect(creditsText).toMatch(/Refused for want of credits\n1/);

    // The place.
    await page.getByLabel('Address line 1').fill('Keizersgracht 1');
    await page.getByLabel('City').fill('Amsterdam');
    await page.getByLabel('Postal code').fill('1015 CJ');
    await page.getByLabel('Country (ISO code, e.g. NL)').fill('NL');
    await page.getByLabel('Locale (e.g. en-GB)').fill('nl-nl');
    await page.getByLabel('Time zone (e.g. Europe/Amsterdam)').fill('Europe/Amsterdam');
    await page.getByRole('button', { name: 'Save place' }).click();
    expect(await textWhen(page.locator('form:has(#place-line1) .outcome'), /Saved|\(/)).toBe('Saved.');
    expect((await suite.api.get('/team')).body.place).toEqual({
      address: { line1: 'Keizersgracht 1', city: 'Amsterdam', postalCode: '1015 CJ', country: 'NL' },
      locale: 'nl-NL',
      timezone: 'Europe/Amsterdam',
    });
    expect(await textWhen(summary, /Amsterdam/)).toContain(
      'Keizersgracht 1, 1015 CJ Amsterdam, NL · nl-NL · Europe/Amsterdam',
    );

    // A wrong time zone is the API's refusal, and nothing changes.
    await page.getByLabel('Time zone (e.g. Europe/Amsterdam)').fill('Mars/Olympus');
    await page.getByRole('button', { name: 'Save place' }).click();
    expect(await textWhen(page.locator('form:has(#place-line1) .outcome'), /validation_error/)).toMatch(
      /IANA time zone.*\(validation_error\)/,
    );
    expect((await suite.api.get('/team')).body.place.timezone).toBe('Europe/Amsterdam');
    await page.getByLabel('Time zone (e.g. Europe/Amsterdam)').fill('Europe/Amsterdam');
    await page.getByRole('button', { name: 'Save place' }).click();
    expect(await textWhen(page.locator('form:has(#place-line1) .outcome'), /Saved/)).toBe('Saved.');

    // The settings: brand colour, the logo from the media library, what studio_export creates, room events.
    await page.getByLabel('Brand colour (#rrggbb)').fill('#1d4ed8');
    await page.getByLabel('Logo (an image of the media library)').selectOption({ label: 'logo.png' });
    await page.getByLabel('Type of the artifacts studio_export creates').selectOption('offer');
    await page.getByLabel('Their status').selectOption('ready');
    await page.getByLabel(/^Keep room events for/).fill('48');
    await page.getByRole('button', { name: 'Save settings' }).click();
    expect(await textWhen(page.locator('form:has(#settings-color) .outcome'), /Saved|\(/)).toBe('Saved.');
    expect((await suite.api.get('/team')).body.settings).toEqual({
      brand: { color: '#1d4ed8', logoMediaId: logo },
      studio: { artifactType: 'offer', artifactStatus: 'ready' },
      rooms: { eventRetentionHours: 48 },
    });
    expect(await textWhen(summary, /offer/)).toContain('brand colour #1d4ed8, logo logo.png, studio exports offer');

    // Name and public listing.
    await page.getByLabel('Name', { exact: true }).fill('Acme Studio');
    await page.getByLabel('Description').fill('Design and delivery.');
    await page.getByLabel('List the team publicly (list_public_teams)').check();
    await page.getByRole('button', { name: 'Save name and listing' }).click();
    expect(await textWhen(page.locator('form:has(#profile-name) .outcome'), /Saved|\(/)).toBe('Saved.');
    expect((await suite.api.get('/team')).body).toMatchObject({
      name: 'Acme Studio',
      description: 'Design and delivery.',
      public: true,
    });
    expect(await textWhen(summary, /Acme Studio/)).toContain('Listed publicly\nyes');
    expect(await scrollsSideways(page)).toBe(false);
    await expectPageIsClean(page, complaints, 'console-team-phone');

    // A reload starts the forms from the API's team; emptying the colour removes it.
    await page.setViewportSize(DESKTOP);
    await page.reload();
    await textWhen(page.locator('#credits'), /Tool calls/);
    expect(await page.getByLabel('Brand colour (#rrggbb)').inputValue()).toBe('#1d4ed8');
    expect(await page.getByLabel('City').inputValue()).toBe('Amsterdam');
    await expectPageIsClean(page, complaints, 'console-team-desktop');
    await page.getByLabel('Brand colour (#rrggbb)').fill('');
    await page.getByRole('button', { name: 'Save settings' }).click();
    expect(await textWhen(page.locator('form:has(#settings-color) .outcome'), /Saved|\(/)).toBe('Saved.');
    expect((await suite.api.get('/team')).body.settings.brand).toEqual({ logoMediaId: logo });
  });

  it('a member who is not an admin reads the team and is refused a change, in the API’s words', async () => {
    const member = await newTeam(suite.db, 'console-team-member');
    const owner = await withPassword(suite.db, member);
    await suite.db('memberships').where({ team_id: member.teamId, user_id: member.userId }).update({ role: 'member' });
    const { page, complaints } = await browser.signedIn('/app/team', DESKTOP, owner);
    await textWhen(page.locator('#credits'), /Tool calls/);
    await page.getByLabel('City').fill('Utrecht');
    await page.getByRole('button', { name: 'Save place' }).click();
    expect(await textWhen(page.locator('form:has(#place-line1) .outcome'), /\(/)).toBe(
      "Changing the team needs a team admin (the team's owner or an admin) (forbidden)",
    );
    expect((await apiClient(suite.server.baseUrl, member).get('/team')).body.place).toEqual({});
    expect(unexpectedComplaints(complaints)).toEqual([]);
  });

  it('media: uploaded in the page with the limits shown, listed by the API, refused clearly, downloaded, deleted', async () => {
    const { page, complaints } = await browser.signedIn('/app/media', DESKTOP);
    const limits = await textWhen(page.locator('#media-limits'), /Types/);
    expect(limits).toContain('Up to 4 KB a file.');
    expect(await page.locator('#media-types li').allInnerTexts()).toEqual(
      expect.arrayContaining(['image/png', 'text/plain', 'application/pdf']),
    );
    const before = (await suite.api.get('/media')).body.data.length;
    const outcome = page.locator('form .outcome');
    const upload = async (file: { name: string; mimeType: string; buffer: Buffer }, pattern: RegExp) => {
      await page.getByLabel('File', { exact: true }).setInputFiles(file);
      await page.getByRole('button', { name: 'Upload' }).click();
      return textWhen(outcome, pattern);
    };

    expect(await upload({ name: 'dot.png', mimeType: 'image/png', buffer: PNG }, /dot\.png/)).toBe(
      `Uploaded dot.png (image/png, ${PNG.length} bytes).`,
    );
    const notes = Buffer.from('Notes for the proposal.\n');
    expect(await upload({ name: 'notes.txt', mimeType: 'text/plain', buffer: notes }, /notes\.txt/)).toBe(
      `Uploaded notes.txt (text/plain, ${notes.length} bytes).`,
    );
    const listed = (await suite.api.get('/media')).body.data;
    expect(listed.length).toBe(before + 2);
    const byName = (name: string) => listed.find((m: any) => m.filename === name);
    expect([byName('dot.png').contentType, byName('dot.png').size]).toEqual(['image/png', PNG.length]);
    expect([byName('notes.txt').contentType, byName('notes.txt').size]).toEqual(['text/plain', notes.length]);
    expect(await textWhen(page.locator(`li[data-id="${byName('dot.png').id}"]`), /dot/)).toMatch(
      new RegExp(`^dot\\.png\\s+image/png · ${PNG.length} bytes · uploaded`),
    );

    // Too large, and a type the API does not take: the API's refusal, in words, and nothing stored.
    expect(
      await upload({ name: 'big.txt', mimeType: 'text/plain', buffer: Buffer.alloc(MAX_BYTES + 1, 'a') }, /limited to/),
    ).toBe(`Not uploaded: Files are limited to ${MAX_BYTES} bytes (payload_too_large)`);
    expect(
      await upload(
        { name: 'tool.exe', mimeType: 'application/x-msdownload', buffer: Buffer.from('MZ') },
        /x-msdownload/,
      ),
    ).toBe('Not uploaded: Files of type application/x-msdownload are not accepted (unsupported_media_type)');
    expect((await suite.api.get('/media')).body.data.length).toBe(before + 2);
    // The browser logs the two refusals' statuses: the answers asserted above, and no others.
    const refusals = complaints.filter((c) => /status of (413|415)\b/.test(c));
    expect(refusals.map((c) => c.replace(/.*status of (\d+).*/, '$1'))).toEqual(['413', '415']);
    complaints.splice(0, complaints.length, ...complaints.filter((c) => !refusals.includes(c)));

    // Download: the file's own bytes.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download notes.txt' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('notes.txt');
    expect(fs.readFileSync(await download.path())).toEqual(notes);
    await expectPageIsClean(page, complaints, 'console-media-desktop');

    // Delete: gone from the API.
    await page.getByRole('button', { name: 'Delete dot.png' }).click();
    expect(await textWhen(page.locator('#media-outcome'), /Deleted|\(/)).toBe('Deleted dot.png.');
    const left = (await suite.api.get('/media')).body.data.map((m: any) => m.filename);
    expect(left).toContain('notes.txt');
    expect(left).not.toContain('dot.png');
    await page.locator(`li[data-id="${byName('dot.png').id}"]`).waitFor({ state: 'detached' });

    // A file an artifact uses is kept, and the page says why.
    const notesId = byName('notes.txt').id;
    expect((await suite.api.post('/artifacts', { title: 'Notes', type: 'file', media: [notesId] })).status).toBe(201);
    await page.getByRole('button', { name: 'Delete notes.txt' }).click();
    expect(await textWhen(page.locator('#media-outcome'), /attached|\(/)).toMatch(
      /attached to artifacts; detach it first \(invalid_state\)$/,
    );
    expect((await suite.api.get('/media')).body.data.map((m: any) => m.id)).toContain(notesId);

    // Another team's file is not found through the console, and stays.
    const other = await newTeam(suite.db, 'console-media-other');
    const theirs = await fetch(`${suite.server.baseUrl}/media`, {
      method: 'POST',
      headers: { authorization: `Bearer ${other.token}`, 'x-team-slug': other.slug },
      body: (() => {
        const form = new FormData();
        form.append('file', new Blob(['theirs'], { type: 'text/plain' }), 'theirs.txt');
        return form;
      })(),
    }).then((r) => r.json() as Promise<any>);
    for (const [method, path] of [
      ['DELETE', `/media/${theirs.id}`],
      ['GET', `/media/${theirs.id}/content`],
    ] as const) {
      const res = await consoleFetch(page, method, path);
      expect([path, res.status, res.body?.error?.code]).toEqual([path, 404, 'not_found']);
    }
    expect((await apiClient(suite.server.baseUrl, other).get('/media')).body.data.map((m: any) => m.id)).toEqual([
      theirs.id,
    ]);

    const phone = await browser.signedIn('/app/media', PHONE);
    await textWhen(phone.page.locator('#media-list li'), /notes\.txt/);
    expect(await scrollsSideways(phone.page)).toBe(false);
    await expectPageIsClean(phone.page, phone.complaints, 'console-media-phone');
  });
});
