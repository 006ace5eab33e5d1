import { apiClient, newTeam, useProviderSuite } from '../support/helpers';
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
 * Editing an automation's steps in the console, with the step builder of the New automation form:
 * saving writes version 2 (PUT …/steps), and the enrollments list shows the version each contact is on.
 */
describe('console: editing an automation', () => {
  const suite = useProviderSuite('console-automation-edit');
  const browser = useConsoleSuite(suite);

  it('edits the steps in the page: the API holds version 2 with exactly those steps; an earlier enrollment stays on 1', async () => {
    const automation = (
      await suite.api.post('/automations', {
        name: 'Onboarding',
        trigger: { kind: 'inbound', source: 'signup' },
        steps: [
          { type: 'wait', duration: '1h' },
          { type: 'send', channel: 'email', subject: 'Welcome', content: 'Hello {{name}}!' },
          { type: 'exit' },
        ],
      })
    ).body;
    const before = await suite.api.post(`/automations/${automation.id}/enrollments`, { email: 'early@example.test' });
    expect(before.status).toBe(200);

    const { page, complaints } = await browser.signedIn(`/app/automations/${automation.id}`, DESKTOP);
    const early = page.locator(`tr[data-id="${before.body.enrollmentId}"]`);
    expect(await textWhen(early.locator('td.version'), /v1/)).toBe('v1');

    // The editor opens with the steps as they are.
    await page.getByText('Edit the steps (version 1)').click();
    const steps = page.locator('#steps-edit-form fieldset.step');
    expect(await steps.count()).toBe(3);
    expect(
      await steps
        .nth(0)
        .getByLabel(/^Duration/)
        .inputValue(),
    ).toBe('1h');
    expect(
      await steps
        .nth(1)
        .getByLabel(/^Subject/)
        .inputValue(),
    ).toBe('Welcome');
    expect(
      await steps
        .nth(1)
        .getByLabel(/^Message/)
        .inputValue(),
    ).toBe('Hello {{name}}!');

    // A person changes the wait and the subject, removes the exit, and adds a labelled one.
    await steps
      .nth(0)
      .getByLabel(/^Duration/)
      .fill('2h');
    await steps
      .nth(1)
      .getByLabel(/^Subject/)
      .fill('Welcome aboard');
    await steps.nth(2).getByRole('button', { name: 'Remove step' }).click();
    await page.getByLabel('Next step').selectOption('exit');
    await page.getByRole('button', { name: 'Add step' }).click();
    await steps
      .nth(2)
      .getByLabel(/^Label/)
      .fill('done');
    expect(await steps.nth(2).locator('legend').innerText()).toBe('Step 3: exit');
    await page.getByRole('button', { name: 'Save as a new version' }).click();
    await textWhen(page.locator('#automation-edit .outcome'), /version 2/);

    const saved = (await suite.api.get(`/automations/${automation.id}`)).body;
    expect(saved.version).toBe(2);
    expect(saved.steps).toEqual([
      { type: 'wait', duration: '2h' },
      // The API's defaults of a send step.
      {
        type: 'send',
        channel: 'email',
        subject: 'Welcome aboard',
        content: 'Hello {{name}}!',
        templateParams: {},
        aiParams: {},
      },
      { type: 'exit', label: 'done' },
    ]);
    expect(await page.locator('#automation-head').innerText()).toContain('version 2');
    await textWhen(page.locator('#automation-steps li[data-step="1"]'), /Welcome aboard/);

    // A contact enrolled now starts on version 2; the earlier one keeps version 1.
    const after = await suite.api.post(`/automations/${automation.id}/enrollments`, { email: 'late@example.test' });
    expect(after.status).toBe(200);
    const late = page.locator(`tr[data-id="${after.body.enrollmentId}"]`);
    expect(await textWhen(late.locator('td.version'), /v2/)).toBe('v2');
    expect(await early.locator('td.version').innerText()).toBe('v1');
    const enrollments = (await suite.api.get(`/automations/${automation.id}/enrollments`)).body.data;
    expect(Object.fromEntries(enrollments.map((e: { id: string; version: number }) => [e.id, e.version]))).toEqual({
      [before.body.enrollmentId]: 1,
      [after.body.enrollmentId]: 2,
    });
    await textWhen(late.locator('td.contact'), /late@example/);
    await expectPageIsClean(page, complaints, 'console-automation-edit-desktop');
    // A step the API refuses is its own answer, shown as it is; nothing is saved.
    await steps
      .nth(0)
      .getByLabel(/^Duration/)
      .fill('soon');
    await page.getByRole('button', { name: 'Save as a new version' }).click();
    await textWhen(page.locator('#automation-edit .outcome'), /\(/);
    expect((await suite.api.get(`/automations/${automation.id}`)).body.version).toBe(2);
    await steps
      .nth(0)
      .getByLabel(/^Duration/)
      .fill('2h');

    // Another team's automation: its steps are not found.
    const other = await newTeam(suite.db, 'console-automation-edit-other');
    const theirs = (
      await apiClient(suite.server.baseUrl, other).post('/automations', {
        name: 'Theirs',
        trigger: { kind: 'inbound', source: 'x' },
        steps: [{ type: 'exit' }],
      })
    ).body;
    const put = await consoleFetch(page, 'PUT', `/automations/${theirs.id}/steps`, { steps: [{ type: 'exit' }] });
    expect(put).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    expect((await apiClient(suite.server.baseUrl, other).get(`/automations/${theirs.id}`)).body.version).toBe(1);
  });

  it('fits a phone with the editor open', async () => {
    const automation = (
      await suite.api.post('/automations', {
        name: 'Phone journey',
        trigger: { kind: 'inbound', source: 'phone' },
        steps: [{ type: 'wait', duration: '1d' }, { type: 'exit' }],
      })
    ).body;
    await suite.api.post(`/automations/${automation.id}/enrollments`, { email: 'phone.one@example.test' });
    const put = await suite.api.call('PUT', `/automations/${automation.id}/steps`, {
      steps: [
        { type: 'wait', duration: '2d' },
        {
          type: 'send',
          channel: 'email',
          subject: 'A note',
          content: 'Hi {{name}}, from {{team}}',
          templateParams: { name: 'contact.firstName', team: 'The Tea Room' },
        },
        { type: 'exit' },
      ],
    });
    expect(put.status).toBe(200);
    await suite.api.post(`/automations/${automation.id}/enrollments`, { email: 'phone.two@example.test' });
    const { page, complaints } = await browser.signedIn(`/app/automations/${automation.id}`, PHONE);
    await textWhen(page.locator('td.contact'), /phone\.two@/);
    await textWhen(page.locator('td.version'), /v2/);
    await page.getByText('Edit the steps (version 2)').click();
    expect(
      await page
        .locator('#steps-edit-form fieldset.step')
        .first()
        .getByLabel(/^Duration/)
        .inputValue(),
    ).toBe('2d');
    const send = page.locator('#steps-edit-form fieldset.step').nth(1);
    expect(await send.getByLabel(/^Placeholders/).inputValue()).toBe('name=contact.firstName\nteam=The Tea Room');
    expect(await send.getByLabel(/^AI placeholders/).inputValue()).toBe('');
    expect(await page.locator('tr td.version').allInnerTexts()).toEqual(expect.arrayContaining(['v1', 'v2']));
    expect(await scrollsSideways(page)).toBe(false);
    await expectPageIsClean(page, complaints, 'console-automation-edit-phone');
  });
});
