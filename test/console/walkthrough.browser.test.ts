import { sleep, useApiSuite } from '../support/helpers';
import { expectPageIsClean, PHONE, scrollsSideways, textWhen, useConsoleSuite } from './consoleBrowser';

/**
 * The README's delivery walk-through, done in the console instead of curl, on a phone: email
 * through the sandbox, manual mode, a contact who agreed to marketing, an artifact made ready and
 * delivered with a file attached, the delivery approved (with an edited subject) in the inbox, the
 * artifact sent.
 */
describe('console: the delivery walk-through in the browser', () => {
  const suite = useApiSuite('console-walk');
  const browser = useConsoleSuite(suite);

  it('agents → contacts → artifacts → approvals → sent', async () => {
    const { page, complaints } = await browser.signedIn('/app/agents', PHONE);

    // Agents: email through the sandbox, and manual mode.
    const agent = page.locator(`article[data-id="${suite.team.agentId}"]`);
    await textWhen(agent, /Channels/);
    await agent.getByRole('button', { name: 'Email through the sandbox' }).click();
    await textWhen(agent, /Email via sandbox/);
    await agent.getByRole('button', { name: 'Switch to manual' }).click();
    await textWhen(agent, /manual: sensitive writes wait for approval/);
    expect((await suite.api.get('/agents')).body.data[0].mode).toBe('manual');
    expect(await scrollsSideways(page)).toBe(false);
    await expectPageIsClean(page, complaints, 'console-40-agents-phone');

    // Contacts: Grace, who agreed to marketing.
    await page.getByRole('link', { name: 'Contacts' }).click();
    await page.getByLabel('Name').fill('Grace Hopper');
    await page.getByLabel('Email').fill('grace@example.com');
    await page.getByLabel('Tags (comma separated)').fill('newsletter, clients');
    await page.getByLabel('Agreed to marketing messages').check();
    await page.getByRole('button', { name: 'Add contact' }).click();
    expect(await textWhen(page.locator('form .outcome'), /Added/)).toBe('Added Grace Hopper.');
    const graceRow = await textWhen(page.locator('#contact-list tbody tr'), /Grace Hopper/);
    expect(graceRow).toMatch(/grace@example\.com\s+newsletter, clients\s+granted/);
    await expectPageIsClean(page, complaints, 'console-41-contacts-phone');

    // Artifacts: a proposal for Grace, made ready, delivered; manual mode holds it for approval.
    await page.getByRole('link', { name: 'Artifacts' }).click();
    await page.getByLabel('Title').fill('Proposal');
    await page.getByLabel('Type').selectOption('offer');
    await page.getByLabel('Link').fill('https://example.com/proposal');
    // The file the README's walk-through uploads (POST /v1/media), attached in the same form.
    await page.getByLabel('Attach a file (optional)').setInputFiles({
      name: 'proposal.md',
      mimeType: 'text/markdown',
      buffer: Buffer.from('# Proposal\n\nWhat we discussed.\n'),
    });
    await page.getByLabel('For contact').selectOption({ label: 'Grace Hopper' });
    await page.getByRole('button', { name: 'Create draft' }).click();
    expect(await textWhen(page.locator('#artifact-list tbody tr'), /Proposal/)).toContain('proposal.md');
    const [artifact] = (await suite.api.get('/artifacts')).body.data;
    expect(artifact.media.map((m: any) => [m.filename, m.contentType, m.size])).toEqual([
      ['proposal.md', 'text/markdown', 31],
    ]);
    await page.getByRole('button', { name: 'Mark Proposal ready' }).click();
    await page.getByRole('button', { name: 'Deliver Proposal' }).click();
    await page.getByLabel('Channel').selectOption('email');
    await page.getByLabel('Subject').fill('The proposal');
    await page.getByLabel('Message').fill('Here is the proposal we discussed.');
    await page.getByRole('button', { name: 'Deliver', exact: true }).click();
    expect(await textWhen(page.locator('#deliver-panel .outcome'), /approval|Sent|\(/)).toBe(
      'Waiting for approval: see Approvals.',
    );
    await expectPageIsClean(page, complaints, 'console-42-artifacts-phone');

    // Approvals: the delivery to Grace, its subject edited, approved.
    await page.getByRole('link', { name: 'Approvals' }).click();
    const card = page.locator('article[data-warp="artifact-deliver"]');
    expect(await textWhen(card, /grace@example\.com/)).toContain('Grace Hopper — grace@example.com');
    await card.getByLabel('Subject').waitFor();
    await card.getByLabel('Subject').fill('Your proposal');
    await card.getByRole('button', { name: 'Approve and send' }).click();
    await textWhen(card.getByRole('status'), /Approved/);

    // Back on Artifacts: sent; the sandbox outbox has exactly what was approved.
    let status = '';
    for (let i = 0; i < 60 && status !== 'sent'; i++) {
      status = (await suite.api.get('/artifacts')).body.data[0].status;
      if (status !== 'sent') await sleep(250);
    }
    expect(status).toBe('sent');
    await page.getByRole('link', { name: 'Artifacts' }).click();
    expect(await textWhen(page.locator('#artifact-list tbody tr'), /sent/)).toContain('Grace Hopper');
    const outbox = (await suite.api.get('/outbox')).body.data;
    expect(outbox.map((m: any) => [m.to, m.subject])).toEqual([['grace@example.com', 'Your proposal']]);
    expect(outbox[0].body).toContain('Here is the proposal we discussed.');
    expect(outbox[0].body).toContain('https://example.com/proposal');
    expect(await scrollsSideways(page)).toBe(false);
    await expectPageIsClean(page, complaints, 'console-43-artifact-sent-phone');
  });
});
