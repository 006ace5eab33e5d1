import fs from 'node:fs';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import type { Db } from '../../db/knex';
import { collectBrowserComplaints, launchChromium, screenshot } from '../browser/chromium';
import { cspViolations } from '../browser/oauthBrowser';
import type { TestTeam } from '../support/helpers';
import { withPassword } from '../support/oauthHelpers';

export { launchChromium, screenshot, cspViolations };

export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 900 };

/** A browser context of its own (its own cookies), its page and what the browser complained about. */
export async function openConsole(
  chromium: Browser,
  viewport = DESKTOP,
): Promise<{ context: BrowserContext; page: Page; complaints: string[] }> {
  const context = await chromium.newContext({ viewport });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return { context, page, complaints: collectBrowserComplaints(page) };
}

/** Opens `path` of the console; being signed out, the browser lands on the sign-in page and signs in there. */
export async function signInTo(page: Page, origin: string, path: string, who: { email: string; password: string }) {
  await page.goto(`${origin}${path}`);
  await page.waitForURL((url) => url.pathname === '/app/login');
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await Promise.all([
    page.waitForURL((url) => url.pathname === path),
    page.getByRole('button', { name: 'Sign in' }).click(),
  ]);
}

/** A call of the console's own API, from the page, with the page's CSRF token (as console/assets/lib/api.js makes it). */
export function consoleFetch(page: Page, method: string, path: string, body?: unknown, withCsrf = true) {
  // A string, evaluated in the page: the test's tsconfig has no DOM types.
  return page.evaluate(`(async () => {
    const csrf = document.querySelector('meta[name="csrf-token"]').getAttribute('content');
    const res = await fetch(${JSON.stringify(`/app/api${path}`)}, {
      method: ${JSON.stringify(method)},
      headers: { ...(${withCsrf} ? { 'X-CSRF-Token': csrf } : {}), 'Content-Type': 'application/json' },
      body: ${body === undefined ? 'undefined' : JSON.stringify(JSON.stringify(body))},
    });
    return { status: res.status, body: await res.json().catch(() => null) };
  })()`) as Promise<{ status: number; body: any }>;
}

const axeSource = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core on the page as it is now (evaluated through the debugging protocol, which the page's
 * CSP does not govern: the page itself still runs no inline script). Returns the serious and
 * critical violations, each as "rule: target".
 */
export async function seriousAxeViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const violations = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((r) =>
    r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`)) as string[];
  return violations;
}

/** True when the page is wider than the screen. */
export const scrollsSideways = (page: Page) =>
  page.evaluate<boolean>('document.documentElement.scrollWidth > window.innerWidth');

/**
 * Where the text of the elements `selector` matches wraps inside a word: each as "before|after",
 * with what is on either side of the break. A break at a space, after "@" or before a dot is a
 * word's edge. Read from the laid-out text, a character at a time, as a person sees it.
 */
export const breaksInsideWords = (page: Page, selector: string) =>
  page.evaluate<string[]>(`(() => {
    const bad = [];
    for (const el of document.querySelectorAll(${JSON.stringify(selector)})) {
      const chars = [];
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent;
        for (let i = 0; i < text.length; i++) {
          const range = document.createRange();
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          const rect = range.getClientRects()[0];
          if (rect) chars.push({ ch: text[i], top: rect.top });
        }
      }
      const text = chars.map((c) => c.ch).join('');
      for (let i = 1; i < chars.length; i++) {
        if (chars[i].top <= chars[i - 1].top + 1) continue;
        if (/\\s|@|—/.test(chars[i - 1].ch) || /\\s|\\./.test(chars[i].ch)) continue;
        bad.push(text.slice(Math.max(0, i - 12), i) + '|' + text.slice(i, i + 12));
      }
    }
    return bad;
  })()`);

/**
 * What the browser complained about, less the console lines it writes for an HTTP error status
 * (a refused sign-in is a 401, another team's id a 404: answers the test asserts itself).
 */
export const unexpectedComplaints = (complaints: string[]) =>
  complaints.filter(
    (c) => !/^Failed to load resource: the server responded with a status of (401|403|404|409|422|400)\b/.test(c),
  );

export async function expectPageIsClean(page: Page, complaints: string[], name: string) {
  expect(cspViolations(complaints)).toEqual([]);
  expect(unexpectedComplaints(complaints)).toEqual([]);
  // What a template slip prints instead of the value.
  expect(await page.locator('body').innerText()).not.toMatch(/undefined|\[object /);
  expect(await seriousAxeViolations(page)).toEqual([]);
  await screenshot(page, name);
}

/** Waits (the locator's timeout) until the element's text matches, then returns that text. */
export async function textWhen(locator: Locator, pattern: RegExp): Promise<string> {
  await locator.filter({ hasText: pattern }).first().waitFor();
  return locator.first().innerText();
}

/** What a console suite signs in to: the database, the team whose owner signs in, the API it serves. */
export interface ConsoleSuiteTarget {
  db: Db;
  team: TestTeam;
  server: { url: string };
}

export type ConsoleOwner = TestTeam & { email: string; password: string };

type Viewport = { width: number; height: number };
type OpenedConsole = { context: BrowserContext; page: Page; complaints: string[] };

export interface ConsoleBrowser {
  chromium: Browser;
  /** The team's owner, with the password the sign-in form takes. */
  owner: ConsoleOwner;
  /** A browser context of its own (own cookies) at `viewport`, signed out; closed after the test. */
  open(viewport?: Viewport): Promise<OpenedConsole>;
  /** A new context where `who` (the owner unless named) opened `path` and signed in on the way. */
  signedIn(path: string, viewport?: Viewport, who?: { email: string; password: string }): Promise<OpenedConsole>;
}

/**
 * The setup every console browser suite shares: Chromium for the suite, a password for the team's
 * owner, and browser contexts closed after each test, before the suite stops its API (a page that
 * keeps polling would hold the server's close open). `target` is the suite of `useApiSuite` /
 * `useProviderSuite` (its fields are read in beforeAll, once that suite set them), or a function
 * answering one for a suite that builds its own servers.
 */
export function useConsoleSuite(target: ConsoleSuiteTarget | (() => ConsoleSuiteTarget)) {
  const of = () => (typeof target === 'function' ? target() : target);
  const contexts: BrowserContext[] = [];
  const browser: ConsoleBrowser = {
    chromium: undefined as unknown as Browser,
    owner: undefined as unknown as ConsoleOwner,
    async open(viewport = DESKTOP) {
      const opened = await openConsole(browser.chromium, viewport);
      contexts.push(opened.context);
      return opened;
    },
    async signedIn(path, viewport = DESKTOP, who = browser.owner) {
      const opened = await browser.open(viewport);
      await signInTo(opened.page, of().server.url, path, who);
      return opened;
    },
  };
  beforeAll(async () => {
    browser.chromium = await launchChromium();
    browser.owner = await withPassword(of().db, of().team);
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });
  afterAll(async () => {
    await browser.chromium?.close();
  });
  return browser;
}
