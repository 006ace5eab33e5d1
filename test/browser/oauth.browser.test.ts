import * as client from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { authorizationPagePolicy, formActionSource } from '../../auth/authorize';
import type { Db } from '../../db/knex';
import type { RunningServer } from '../../server';
import { createAgent } from '../../services/agents/agents';
import { newTeam, startTestApi, testDb } from '../support/helpers';
import { registerClient, ownerWithoutAgent, withPassword } from '../support/oauthHelpers';
import { collectBrowserComplaints, launchChromium, screenshot } from './chromium';
import { CallbackServer, cspViolations, scrollsSideways, signIn, startCallbackServer } from './oauthBrowser';

/**
 * The OAuth sign-in as a person does it, in Chromium: a browser enforces the pages' CSP (its
 * form-action covers the redirect back to the client), which curl and openid-client ignore.
 */
describe('OAuth sign-in and consent in a real browser', () => {
  let db: Db;
  let server: RunningServer & { baseUrl: string };
  let issuer: string;
  let chromium: Browser;
  let callback: CallbackServer;
  let app: client.Configuration;
  let owner: Awaited<ReturnType<typeof withPassword>>;
  let context: BrowserContext;
  let page: Page;
  let complaints: string[];

  beforeAll(async () => {
    db = testDb();
    server = await startTestApi(db);
    issuer = server.url;
    chromium = await launchChromium();
    callback = await startCallbackServer();
    app = await registerClient(
      issuer,
      { client_name: 'Desk Notes', redirect_uris: [callback.redirectUri] },
      client.ClientSecretBasic,
    );
    owner = await withPassword(db, await newTeam(db, 'browser'));
  });
  afterAll(async () => {
    await chromium?.close();
    await callback?.close();
    await server?.close();
    await db?.destroy();
  });

  async function openBrowser(viewport = { width: 1000, height: 800 }) {
    context = await chromium.newContext({ viewport });
    page = await context.newPage();
    complaints = collectBrowserComplaints(page);
  }
  afterEach(async () => {
    await context?.close();
  });

  /** An authorization request as the client builds it: PKCE S256 and a state. */
  async function authorizationRequest() {
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(app, {
      redirect_uri: callback.redirectUri,
      scope: 'mcp:use',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    return { url, verifier, state };
  }

  const heading = () => page.getByRole('heading', { level: 1 }).innerText();

  /** The browser itself must have landed on the client's callback, which a blocked redirect never does. */
  async function expectLandedOnCallback(): Promise<URL> {
    const arrived = await callback.nextCallback().catch((err: Error) => {
      throw new Error(`${err.message}; the browser reported: ${complaints.join(' | ') || 'nothing'}`);
    });
    await page.waitForURL((url) => url.href.startsWith(callback.redirectUri));
    expect(new URL(page.url()).href).toBe(arrived.href);
    return arrived;
  }

  it('sign-in page → wrong password shows an error → right password → consent → Allow reaches the client', async () => {
    await openBrowser();
    const { url } = await authorizationRequest();
    await page.goto(url.href);
    expect(await heading()).toBe('Sign in to continue to Desk Notes');
    await screenshot(page, 'oauth-01-sign-in');

    await signIn(page, owner.email, 'not the password');
    expect(await page.getByRole('alert').innerText()).toBe('Wrong email or password.');
    expect(await page.getByLabel('Email').inputValue()).toBe(owner.email);
    await screenshot(page, 'oauth-02-wrong-password');

    await signIn(page, owner.email, owner.password);
    expect(await heading()).toBe('Allow Desk Notes to connect?');
    expect(await page.getByText('act as your agent').count()).toBe(1);
    await screenshot(page, 'oauth-03-consent');
    await page.getByRole('button', { name: 'Allow' }).click();
    expect((await expectLandedOnCallback()).searchParams.get('code')).toMatch(/^oac_/);
    expect(cspViolations(complaints)).toEqual([]);
  });

  it('consent with an existing agent: choose it → Allow → the browser lands on the callback; the code buys a token for /v1/agents', async () => {
    const closer = await createAgent(db, owner.teamId, 'Closer');
    await openBrowser();
    const { url, verifier, state } = await authorizationRequest();
    await page.goto(url.href);
    await signIn(page, owner.email, owner.password);
    await page.getByLabel('Closer').check();
    await screenshot(page, 'oauth-04-consent-choose-agent');
    await page.getByRole('button', { name: 'Allow' }).click();

    const arrived = await expectLandedOnCallback();
    expect(await heading()).toBe('Signed in; you can close this tab.');
    await screenshot(page, 'oauth-05-callback-signed-in');
    expect(arrived.searchParams.get('code')).toMatch(/^oac_/);
    expect(arrived.searchParams.get('state')).toBe(state);
    expect(arrived.searchParams.get('iss')).toBe(issuer);
    expect(cspViolations(complaints)).toEqual([]);

    const tokens = await client.authorizationCodeGrant(app, arrived, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    const agents = await fetch(`${server.baseUrl}/agents`, {
      headers: { authorization: `Bearer ${tokens.access_token}`, 'x-team-slug': owner.slug },
    });
    expect(agents.status).toBe(200);
    expect(((await agents.json()) as any).data.map((a: { name: string }) => a.name)).toEqual(
      expect.arrayContaining(['Closer']),
    );
    expect(await client.tokenIntrospection(app, tokens.access_token)).toMatchObject({
      active: true,
      team: owner.slug,
      agent_id: closer.uuid,
    });
  });

  it('consent for a user with no agent, on a phone: name a new agent → Allow → it exists and the token acts as it', async () => {
    const person = await ownerWithoutAgent(db, 'browser-noagent', 'Fresh Team');

    await openBrowser({ width: 390, height: 844 });
    const { url, verifier, state } = await authorizationRequest();
    await page.goto(url.href);
    expect(await scrollsSideways(page)).toBe(false);
    await screenshot(page, 'oauth-06-phone-sign-in');
    await signIn(page, person.email, person.password);
    expect(await page.getByText('You have no agent yet. Name one to connect it.').count()).toBe(1);
    await page.getByLabel('Name').fill('Research helper');
    expect(await scrollsSideways(page)).toBe(false);
    await screenshot(page, 'oauth-07-phone-consent-new-agent');
    await page.getByRole('button', { name: 'Allow' }).click();

    const arrived = await expectLandedOnCallback();
    expect(cspViolations(complaints)).toEqual([]);
    const tokens = await client.authorizationCodeGrant(app, arrived, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    const agents = await db('agents').where({ team_id: person.teamId });
    expect(agents.map((a) => a.name)).toEqual(['Research helper']);
    expect(await client.tokenIntrospection(app, tokens.access_token)).toMatchObject({
      active: true,
      team: person.slug,
      agent_id: agents[0].id,
    });
  });

  it('Deny → the browser lands on the callback with error=access_denied, state and iss, and nothing is issued', async () => {
    await openBrowser();
    const { url, state } = await authorizationRequest();
    await page.goto(url.href);
    await signIn(page, owner.email, owner.password);
    const grantsBefore = await db('oauth_grants')
      .where({ client_id: app.clientMetadata().client_id })
      .count<{ count: string }[]>('* as count');
    await page.getByRole('button', { name: 'Deny' }).click();

    const arrived = await expectLandedOnCallback();
    expect(await heading()).toBe('Not signed in: access_denied');
    await screenshot(page, 'oauth-08-callback-denied');
    expect(arrived.searchParams.get('error')).toBe('access_denied');
    expect(arrived.searchParams.get('state')).toBe(state);
    expect(arrived.searchParams.get('iss')).toBe(issuer);
    expect(arrived.searchParams.has('code')).toBe(false);
    expect(cspViolations(complaints)).toEqual([]);
    expect(
      await db('oauth_grants')
        .where({ client_id: app.clientMetadata().client_id })
        .count<{ count: string }[]>('* as count'),
    ).toEqual(grantsBefore);
  });

  it('a second click on a request already answered says so plainly (not "expired") and issues nothing more', async () => {
    await openBrowser();
    const { url } = await authorizationRequest();
    await page.goto(url.href);
    await signIn(page, owner.email, owner.password);
    // The same consent form in a second tab of this browser, as after a double click or the back button.
    const secondTab = await context.newPage();
    const secondTabComplaints = collectBrowserComplaints(secondTab);
    await secondTab.goto(page.url());
    expect(await secondTab.getByRole('heading', { level: 1 }).innerText()).toBe('Allow Desk Notes to connect?');

    await page.getByRole('button', { name: 'Allow' }).click();
    await expectLandedOnCallback();
    const grantsAfterFirst = await db('oauth_grants')
      .where({ client_id: app.clientMetadata().client_id })
      .count<{ count: string }[]>('* as count');

    await Promise.all([secondTab.waitForLoadState('load'), secondTab.getByRole('button', { name: 'Allow' }).click()]);
    expect(await secondTab.getByRole('heading', { level: 1 }).innerText()).toBe('You already answered this request');
    expect(await secondTab.locator('main').innerText()).toContain('You can close this tab.');
    expect(await secondTab.locator('main').innerText()).not.toMatch(/expired/i);
    await screenshot(secondTab, 'oauth-09-already-answered');
    expect(callback.received.at(-1)!.searchParams.get('code')).toMatch(/^oac_/);
    expect(
      await db('oauth_grants')
        .where({ client_id: app.clientMetadata().client_id })
        .count<{ count: string }[]>('* as count'),
    ).toEqual(grantsAfterFirst);

    // Going back to the consent page after answering shows the same, not a fresh form.
    await page.goBack();
    expect(await heading()).toBe('You already answered this request');
    expect(cspViolations([...complaints, ...secondTabComplaints])).toEqual([]);
  });

  it('an IPv6 loopback redirect URI (http://[::1]:<port>) is reached too', async () => {
    const ipv6Callback = await startCallbackServer('::1');
    try {
      const ipv6App = await registerClient(
        issuer,
        { client_name: 'IPv6 Notes', redirect_uris: [ipv6Callback.redirectUri] },
        client.ClientSecretBasic,
      );
      await openBrowser();
      const url = client.buildAuthorizationUrl(ipv6App, {
        redirect_uri: ipv6Callback.redirectUri,
        scope: 'mcp:use',
        code_challenge_method: 'S256',
        code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
      });
      await page.goto(url.href);
      await signIn(page, owner.email, owner.password);
      await page.getByRole('button', { name: 'Allow' }).click();
      expect((await ipv6Callback.nextCallback()).searchParams.get('code')).toMatch(/^oac_/);
      await page.waitForURL((landed) => landed.href.startsWith(ipv6Callback.redirectUri));
      expect(complaints).toEqual([]);
    } finally {
      await ipv6Callback.close();
    }
  });

  it("names exactly the redirect URI's origin in form-action: loopback ports, https, and a native app's scheme", () => {
    expect(formActionSource('http://127.0.0.1:54321/callback')).toBe('http://127.0.0.1:54321');
    expect(formActionSource('https://vscode.dev/redirect?x=1')).toBe('https://vscode.dev');
    // A private-use scheme has an opaque origin ("null"): only the scheme can name it.
    expect(formActionSource('cursor://anysphere.cursor-retrieval/oauth/callback')).toBe('cursor:');
    expect(formActionSource('com.example.app:/oauth2redirect')).toBe('com.example.app:');
    // Chromium drops an IPv6 literal as an invalid source, so the port pins it instead.
    expect(formActionSource('http://[::1]:8976/callback')).toBe('http://*:8976');
    expect(formActionSource('not a url')).toBeNull();
    expect(authorizationPagePolicy('http://localhost:6274/oauth/callback')).toContain(
      "form-action 'self' http://localhost:6274;",
    );
    expect(authorizationPagePolicy()).toContain("form-action 'self';");
  });
});
