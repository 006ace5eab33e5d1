import fs from 'node:fs';
import path from 'node:path';
import { Browser, chromium, Page } from 'playwright-core';
import { chromiumPath } from '../setup/chromium';

/** Git-ignored: every browser test leaves a picture of what a person would see, to be looked at. */
export const screenshotDir = path.resolve(__dirname, '../../.data/screenshots');

/** Headless Debian Chromium with the flags this machine needs (no network beyond loopback). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
      '--no-first-run',
    ],
  });
}

/** Saves a full-page PNG as `.data/screenshots/<name>.png` and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(screenshotDir, { recursive: true });
  const file = path.join(screenshotDir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/**
 * Collects what the browser itself refused (CSP violations, blocked navigations, page errors):
 * a browser test fails on these, which curl and openid-client never report.
 */
export function collectBrowserComplaints(page: Page): string[] {
  const complaints: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') complaints.push(msg.text());
  });
  page.on('pageerror', (err) => complaints.push(err.message));
  return complaints;
}
