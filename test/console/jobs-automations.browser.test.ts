import { apiClient, newTeam, sleep, useProviderSuite } from '../support/helpers';
import { DESKTOP, expectPageIsClean, PHONE, scrollsSideways, textWhen, useConsoleSuite } from './consoleBrowser';

/**
 * Jobs with their progress bars and automations with their enrollments per step, in Chromium.
 * The import runs in batches of 20 rows, so a person watching sees the bar move.
 */
describe('console: jobs and automations', () => {
  const suite = useProviderSuite('console-jobs', { IMPORT_BATCH_SIZE: '20' });
  const browser = useConsoleSuite(suite);

  it('starts an import from the console and shows its progress bar moving, then the result', async () => {
    const { page, complaints } = await browser.signedIn('/app/jobs', DESKTOP);
    await textWhen(page.getByRole('status').first(), /jobs/);

    const rows = Array.from({ length: 1200 }, (_, i) => `Person ${i},person.${i}.${Date.now()}@example.test`);
    await page.getByLabel(/^CSV/).fill(['name,email', ...rows].join('\n'), { timeout: 60_000 });
    await page.getByRole('button', { name: 'Start import' }).click();
    const started = await textWhen(page.locator('form .outcome'), /Started/);
    const jobId = started.replace('Started ', '');
    expect(jobId).toMatch(/^job_/);

    // While it runs, the bar shows how far it is: rows done out of 1200, never going back.
    const row = page.locator(`tr[data-id="${jobId}"]`);
    const seen: number[] = [];
    for (let i = 0; i < 600; i++) {
      // The row's words and its bar read in one go: the page re-draws the table every 2 s.
      const snapshot = (await row.count())
        ? await row.evaluate((el: any) => ({
            text: el.innerText as string,
            max: el.querySelector('progress')?.getAttribute('max') as string | undefined,
            value: el.querySelector('progress')?.getAttribute('value') as string | undefined,
          }))
        : { text: '', max: undefined, value: undefined };
      if (/succeeded/.test(snapshot.text)) break;
      const match = /importing (\d+) \/ 1200/.exec(snapshot.text);
      if (match) {
        seen.push(Number(match[1]));
        expect(snapshot.max).toBe('1200');
        expect(Number(snapshot.value)).toBe(Number(match[1]));
      }
      await sleep(100);
    }
    expect(seen.some((n) => n > 0 && n < 1200)).toBe(true);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    const done = await textWhen(row, /succeeded/);
    expect(done).toContain('1200 imported, 0 duplicates, 0 failed');
    expect(await row.locator('progress').getAttribute('value')).toBe('1');
    expect(await row.locator('progress').getAttribute('max')).toBe('1');
    const job = (await suite.api.get(`/jobs/${jobId}`)).body;
    expect(job).toMatchObject({ status: 'succeeded', result: { imported: 1200 } });
    // A failed job says why, in the API's own words (the read model is the jobs row).
    await suite.db('jobs').insert({
      id: 'job_consolefailed',
      team_id: suite.team.teamId,
      type: 'contacts.export',
      status: 'failed',
      error: JSON.stringify({ error: { code: 'job_terminated', message: 'The job was terminated by an operator' } }),
      workflow_id: 'job-job_consolefailed',
      finished_at: new Date(),
    });
    expect(await textWhen(page.locator('tr[data-id="job_consolefailed"]'), /failed/)).toContain(
      'The job was terminated by an operator (job_terminated)',
    );
    await expectPageIsClean(page, complaints, 'console-30-jobs');

    // Bad input is the API's own answer, shown as it is.
    await page.getByLabel(/^CSV/).fill('no-header-only');
    await page.getByRole('button', { name: 'Start import' }).click();
    expect(await textWhen(page.locator('form .outcome'), /\(/)).toBe(
      'Invalid input: the csv has no data rows (validation_error)',
    );
  });

  it('shows each automation with how many enrollments are at each step, live', async () => {
    const automation = (
      await suite.api.post('/automations', {
        name: 'Welcome journey',
        trigger: { kind: 'inbound', source: 'signup' },
        steps: [
          { type: 'wait', duration: '1h' },
          { type: 'send', channel: 'email', subject: 'Welcome', content: 'Hello!' },
          { type: 'exit' },
        ],
      })
    ).body;
    expect(automation.id).toMatch(/^au_/);
    const quick = (
      await suite.api.post('/automations', {
        name: 'Straight through',
        trigger: { kind: 'inbound', source: 'quick' },
        steps: [{ type: 'exit' }],
      })
    ).body;
    const enroll = async (id: string, email: string) => {
      const res = await suite.api.post(`/automations/${id}/enrollments`, { email });
      expect(res.status).toBe(200);
      return { id: res.body.enrollmentId as string };
    };
    const first = await enroll(automation.id, 'one@example.test');
    await enroll(automation.id, 'two@example.test');
    await enroll(automation.id, 'three@example.test');
    await enroll(quick.id, 'four@example.test');

    const { page, complaints } = await browser.signedIn('/app/automations', PHONE);
    const card = page.locator(`article[data-id="${automation.id}"]`);
    await textWhen(card.locator('li[data-step="0"]'), /3 here/);
    expect(await card.locator('li[data-step="0"]').innerText()).toBe('Wait 1h — 3 here');
    expect(await card.locator('li[data-step="1"]').innerText()).toBe('Send Email: Welcome — 0 here');
    expect(await card.locator('.enrollment-totals').innerText()).toBe(
      'Enrollments: 3 active, 0 completed, 0 exited, 0 failed',
    );
    const quickCard = page.locator(`article[data-id="${quick.id}"]`);
    await textWhen(quickCard.locator('.enrollment-totals'), /1 (completed|exited)/);

    // One contact leaves the journey: the page follows without a reload.
    expect((await suite.api.post(`/automations/${automation.id}/enrollments/${first.id}/exit`)).status).toBe(200);
    await textWhen(card.locator('li[data-step="0"]'), /2 here, 1 exited here/);
    expect(await card.locator('.enrollment-totals').innerText()).toBe(
      'Enrollments: 2 active, 0 completed, 1 exited, 0 failed',
    );
    expect(await scrollsSideways(page)).toBe(false);
    await expectPageIsClean(page, complaints, 'console-31-automations-phone');

    // Disable from the console: the API's own switch.
    await card.getByRole('button', { name: 'Disable' }).click();
    await textWhen(card.getByRole('button').first(), /Enable/);
    expect((await suite.api.get(`/automations/${automation.id}`)).body.enabled).toBe(false);

    // Another team's automation is not in the list, and its counts are not found.
    const other = await newTeam(suite.db, 'console-jobs-other');
    const theirs = (
      await apiClient(suite.server.baseUrl, other).post('/automations', {
        name: 'Theirs',
        trigger: { kind: 'inbound', source: 'x' },
        steps: [{ type: 'exit' }],
      })
    ).body;
    const counts = await page.evaluate(`(async () => {
      const csrf = document.querySelector('meta[name="csrf-token"]').getAttribute('content');
      const res = await fetch('/app/api/automations/${theirs.id}/step-counts', { headers: { 'X-CSRF-Token': csrf } });
      return { status: res.status, body: await res.json() };
    })()`);
    expect(counts).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    await sleep(4500);
    expect(await page.locator(`article[data-id="${theirs.id}"]`).count()).toBe(0);
  });
});
