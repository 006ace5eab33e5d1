import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

/** Debian's Chromium: `npx playwright install` cannot download a browser here, so the suite uses the distribution's. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Installs Debian's `chromium` when it is missing, so `npm test` on a fresh machine runs the
 * browser tests instead of skipping them. Needs root (CI and the developer machines run as root).
 */
export function ensureChromium(log: (line: string) => void): string {
  if (fs.existsSync(chromiumPath)) return chromiumPath;
  if (process.getuid?.() !== 0) {
    throw new Error(
      `Chromium is missing at ${chromiumPath}: install it (apt-get install -y chromium) or set CHROMIUM_PATH`,
    );
  }
  log('installing Debian chromium for the browser tests (once)...');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update'], { stdio: 'ignore', env });
  execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { stdio: 'ignore', env });
  if (!fs.existsSync(chromiumPath)) throw new Error(`apt-get installed chromium, yet ${chromiumPath} is missing`);
  return chromiumPath;
}
