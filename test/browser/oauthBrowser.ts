import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';

/**
 * What a native app or an MCP host runs to receive the authorization response (RFC 8252
 * loopback redirect): a real HTTP server on 127.0.0.1 with a random port.
 */
export interface CallbackServer {
  /** The redirect URI to register: `http://127.0.0.1:<port>/callback` (or `http://[::1]:<port>/callback`). */
  redirectUri: string;
  /** Every callback the browser delivered, in order. */
  received: URL[];
  /** Resolves with the next callback the browser delivers (or the first one, if it already came). */
  nextCallback(timeoutMs?: number): Promise<URL>;
  close(): Promise<void>;
}

export async function startCallbackServer(host: '127.0.0.1' | '::1' = '127.0.0.1'): Promise<CallbackServer> {
  const received: URL[] = [];
  const waiting: ((url: URL) => void)[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    if (url.pathname !== '/callback') return void res.writeHead(204).end();
    received.push(url);
    waiting.splice(0).forEach((resolve) => resolve(url));
    const outcome = url.searchParams.has('code')
      ? 'Signed in; you can close this tab.'
      : `Not signed in: ${url.searchParams.get('error')}`;
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(`<!doctype html><title>Callback</title><h1>${outcome}</h1>`);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  let delivered = 0;
  return {
    redirectUri: `http://${host.includes(':') ? `[${host}]` : host}:${port}/callback`,
    received,
    nextCallback(timeoutMs = 10_000) {
      if (received.length > delivered) return Promise.resolve(received[delivered++]);
      return new Promise<URL>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`the browser never reached the callback on port ${port}`)),
          timeoutMs,
        );
        waiting.push((url) => {
          clearTimeout(timer);
          delivered++;
          resolve(url);
        });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Fills the sign-in form and submits it, as a person does. */
export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Sign in' }).click()]);
}

/** The CSP violations among what the browser complained about (the old bug shows up here). */
export const cspViolations = (complaints: string[]) =>
  complaints.filter((c) => /Content Security Policy|Refused to/i.test(c));

/** True when the page is wider than the screen (a phone would have to scroll sideways). */
export const scrollsSideways = (page: Page) =>
  page.evaluate<boolean>('document.documentElement.scrollWidth > window.innerWidth');
