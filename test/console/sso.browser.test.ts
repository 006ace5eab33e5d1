import { useApiSuite } from '../support/helpers';
import { CallbackServer, startCallbackServer } from '../browser/oauthBrowser';
import { DESKTOP, textWhen, useConsoleSuite } from './consoleBrowser';

/**
 * One sign-in for a person: signed in to the console, an app's OAuth request goes straight to the
 * consent page (no second password); without the console session the sign-in page asks as before.
 */
describe('console: the OAuth sign-in knows a person signed in to the console', () => {
  const suite = useApiSuite('console-sso');
  const browser = useConsoleSuite(suite);
  let callback: CallbackServer;
  let clientId: string;

  beforeAll(async () => {
    callback = await startCallbackServer();
    const registered = await fetch(`${suite.server.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Desk Notes',
        redirect_uris: [callback.redirectUri],
        token_endpoint_auth_method: 'none',
      }),
    });
    expect(registered.status).toBe(201);
    clientId = ((await registered.json()) as { client_id: string }).client_id;
  });
  afterAll(async () => {
    await callback?.close();
  });

  const authorizeUrl = () =>
    `${suite.server.url}/oauth/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: callback.redirectUri,
      scope: 'mcp:read',
      state: 'st-1',
      // The S256 challenge of the verifier "a".repeat(43); the exchange is not this test's subject.
      code_challenge: 'qjrzSW9gMiUgpUvqgEPE4_-8swvyCtfOVvg55o5S_es',
      code_challenge_method: 'S256',
    })}`;

  it('signed in to the console: Allow without a password; signed out: the sign-in page as before', async () => {
    const signedIn = await browser.signedIn('/app/approvals', DESKTOP);
    await signedIn.page.goto(authorizeUrl());
    expect(new URL(signedIn.page.url()).pathname).toBe('/oauth/authorize/consent');
    expect(await textWhen(signedIn.page.getByRole('heading', { level: 1 }), /Allow/)).toBe(
      'Allow Desk Notes to connect?',
    );
    expect(await signedIn.page.getByLabel('Password').count()).toBe(0);
    await signedIn.page.getByRole('button', { name: 'Allow' }).click();
    const arrived = await callback.nextCallback();
    expect(arrived.searchParams.get('code')).toMatch(/^oac_/);
    expect(arrived.searchParams.get('state')).toBe('st-1');

    // After signing out of the console, the same browser is asked for its password again.
    await signedIn.page.goto(`${suite.server.url}/app/approvals`);
    await Promise.all([
      signedIn.page.waitForURL((url) => url.pathname === '/app/login'),
      signedIn.page.getByRole('button', { name: 'Sign out' }).click(),
    ]);
    await signedIn.page.goto(authorizeUrl());
    expect(new URL(signedIn.page.url()).pathname).toBe('/oauth/authorize');
    await signedIn.page.getByLabel('Password').waitFor();

    // A browser that never signed in to the console: the sign-in page, unchanged.
    const fresh = await browser.open(DESKTOP);
    await fresh.page.goto(authorizeUrl());
    expect(new URL(fresh.page.url()).pathname).toBe('/oauth/authorize');
    expect(await fresh.page.getByRole('heading', { level: 1 }).innerText()).toBe('Sign in to continue to Desk Notes');
  });
});
