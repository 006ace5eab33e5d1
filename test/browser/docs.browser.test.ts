import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { useApiSuite } from '../support/helpers';
import { collectBrowserComplaints, launchChromium, screenshotDir } from './chromium';

/** The API reference a person opens at /docs: rendered from /v1/openapi.json by the bundled Redoc, offline. */
describe('the API reference page in a real browser', () => {
  const suite = useApiSuite('docs');
  let chromium: Browser;

  beforeAll(async () => {
    chromium = await launchChromium();
  });
  afterAll(async () => {
    await chromium?.close();
  });

  it('renders the operations from this server alone, under its CSP', async () => {
    const origin = new URL(suite.server.baseUrl).origin;
    const context = await chromium.newContext({ viewport: { width: 1400, height: 900 } });
    try {
      const page = await context.newPage();
      const complaints = collectBrowserComplaints(page);
      const requested: string[] = [];
      page.on('request', (request) => requested.push(request.url()));

      const res = await page.goto(`${origin}/docs`);
      expect(res?.status()).toBe(200);
      expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");

      // Redoc renders each operation as a heading with its summary, and its method and path.
      await page.locator('h2', { hasText: 'Start a job (types:' }).waitFor({ timeout: 30_000 });
      await page
        .locator('h2', { hasText: 'Recipients with status, skipReason and retryable (status filter, perPage)' })
        .waitFor();
      await page.locator('h2', { hasText: "List the team's contacts" }).waitFor();
      const text = await page.locator('body').innerText();
      expect(text).toContain('Team Agent Platform API');
      expect(text).toMatch(/post\s*\/jobs/i);
      expect(text).toMatch(/get\s*\/campaigns\/\{campaignId\}\/recipients/i);

      const offHost = requested.filter(
        (url) => !url.startsWith(`${origin}/`) && !url.startsWith('blob:') && !url.startsWith('data:'),
      );
      expect(offHost).toEqual([]);
      expect(requested).toContain(`${suite.server.baseUrl}/openapi.json`);
      expect(complaints).toEqual([]);
      // The reference is one very long page: the picture is the window around one operation.
      await page
        .locator('h2', { hasText: 'Start a job (types:' })
        .evaluate((el) => el.scrollIntoView({ block: 'start' }));
      fs.mkdirSync(screenshotDir, { recursive: true });
      await page.screenshot({ path: path.join(screenshotDir, 'docs-reference.png') });
    } finally {
      await context.close();
    }
  });
});
