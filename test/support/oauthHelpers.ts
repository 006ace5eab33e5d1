import * as client from 'openid-client';
import type { Db } from '../../db/knex';
import { setUserPassword } from '../../services/identity/passwords';
import type { TestTeam } from './helpers';

export const PASSWORD = 'correct horse battery staple';
export const REDIRECT_URI = 'http://127.0.0.1:8976/callback';

/** A new team whose owner can sign in but has no agent yet (the consent page offers to name one). */
export async function ownerWithoutAgent(db: Db, slugPrefix: string, teamName: string) {
  const stamp = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
  const [team] = await db('teams')
    .insert({ slug: `${slugPrefix}-${stamp}`, name: teamName })
    .returning('*');
  const [user] = await db('users')
    .insert({ email: `${slugPrefix}-${stamp}@example.test`, name: 'New' })
    .returning('*');
  await db('memberships').insert({ team_id: team.id, user_id: user.id, role: 'owner' });
  return withPassword(db, { slug: team.slug, teamId: team.id, userId: user.id, agentId: '', token: '' });
}

/** The team's owner can sign in at the authorization page. */
export async function withPassword(db: Db, team: TestTeam): Promise<TestTeam & { email: string; password: string }> {
  await setUserPassword(db, team.userId, PASSWORD);
  const user = await db('users').where({ id: team.userId }).first('email');
  return { ...team, email: user.email, password: PASSWORD };
}

/** openid-client options for a local http issuer. */
export const insecure = { algorithm: 'oauth2' as const, execute: [client.allowInsecureRequests] };

/** Registers a client the way an RFC 7591 client does, through openid-client. */
export async function registerClient(
  issuer: string,
  metadata: Partial<client.ClientMetadata>,
  auth?: (secret: string) => client.ClientAuth,
  /** The client address the registration comes from (X-Forwarded-For, which the API trusts from loopback). */
  from?: string,
): Promise<client.Configuration> {
  const options = from
    ? {
        ...insecure,
        [client.customFetch]: (url: string, init: client.CustomFetchOptions) =>
          fetch(url, { ...init, headers: { ...init.headers, 'x-forwarded-for': from } } as RequestInit),
      }
    : insecure;
  const config = await client.dynamicClientRegistration(new URL(issuer), metadata, undefined, options);
  const secret = config.clientMetadata().client_secret as string | undefined;
  if (!auth || !secret) return config;
  // Re-made with the chosen authentication method (the registration answer carried the secret).
  return client.discovery(
    new URL(issuer),
    config.clientMetadata().client_id,
    config.clientMetadata(),
    auth(secret),
    insecure,
  );
}

/** A cookie jar of one (the authorization page sets one cookie). */
class Browser {
  private cookies = new Map<string, string>();

  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      this.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    return res;
  }

  forget(): void {
    this.cookies.clear();
  }
}

export function hiddenField(html: string, name: string): string | undefined {
  return new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
}

const checkedAgent = (html: string) => /<input type="radio" name="agent" value="([^"]+)" checked>/.exec(html)?.[1];

export interface BrowserRun {
  browser: Browser;
  /** Every page and redirect seen, for assertions. */
  loginPage: Response & { html: string };
  consentPage?: Response & { html: string };
  /** Where the browser was sent back to the client (the callback URL with code, state, iss). */
  callback?: URL;
}

async function page(res: Response): Promise<Response & { html: string }> {
  return Object.assign(res, { html: await res.text() });
}

const formBody = (fields: Record<string, string | undefined>) =>
  new URLSearchParams(Object.entries(fields).filter(([, v]) => v !== undefined) as [string, string][]);

/**
 * Drives the authorization page as a browser would: open the link, sign in, then allow (or
 * deny) on the consent page, and follow the redirect back to the client.
 */
export async function authorizeInBrowser(
  authorizationUrl: URL,
  user: { email: string; password: string },
  consent: { decision?: 'approve' | 'deny'; agent?: string; newAgentName?: string; newAgentTeam?: string } = {},
): Promise<BrowserRun> {
  const browser = new Browser();
  const loginPage = await page(await browser.request(authorizationUrl.toString()));
  if (loginPage.status !== 200) return { browser, loginPage };
  const origin = authorizationUrl.origin;
  const login = await browser.request(`${origin}/oauth/authorize/login`, {
    method: 'POST',
    body: formBody({
      request_id: hiddenField(loginPage.html, 'request_id'),
      csrf_token: hiddenField(loginPage.html, 'csrf_token'),
      email: user.email,
      password: user.password,
    }),
  });
  if (login.status !== 303) throw new Error(`login answered ${login.status}: ${await login.text()}`);
  const consentPage = await page(await browser.request(new URL(login.headers.get('location')!, origin).toString()));
  if (consentPage.status !== 200) return { browser, loginPage, consentPage };
  const approve = await browser.request(`${origin}/oauth/authorize/consent`, {
    method: 'POST',
    body: formBody({
      request_id: hiddenField(consentPage.html, 'request_id'),
      csrf_token: hiddenField(consentPage.html, 'csrf_token'),
      decision: consent.decision ?? 'approve',
      agent: consent.agent ?? (consent.newAgentName ? 'new' : (checkedAgent(consentPage.html) ?? 'new')),
      new_agent_name: consent.newAgentName,
      new_agent_team: consent.newAgentTeam ?? hiddenSelectFirst(consentPage.html),
    }),
  });
  if (approve.status !== 303) throw new Error(`consent answered ${approve.status}: ${await approve.text()}`);
  return { browser, loginPage, consentPage, callback: new URL(approve.headers.get('location')!) };
}

const hiddenSelectFirst = (html: string) =>
  /<select id="new_agent_team" name="new_agent_team"><option value="([^"]+)"/.exec(html)?.[1];

/** Starts an authorization-code + PKCE flow with openid-client and runs it through the browser. */
export async function codeFlow(
  config: client.Configuration,
  user: { email: string; password: string },
  params: Record<string, string> = {},
  consent: Parameters<typeof authorizeInBrowser>[2] = {},
) {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope: 'mcp:use',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    ...params,
  });
  const run = await authorizeInBrowser(url, user, consent);
  return { ...run, verifier, state, url };
}

/** A team's backend: a confidential client_credentials client registered by a member, and its mcp:use token. */
export async function teamClientCredentials(
  serverUrl: string,
  team: Pick<TestTeam, 'slug' | 'token'>,
  clientName = `${team.slug} backend`,
): Promise<{ token: string; client: { id: string; secret: string } }> {
  const registered = (await (
    await fetch(`${serverUrl}/oauth/register`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${team.token}`,
        'x-team-slug': team.slug,
      },
      body: JSON.stringify({ client_name: clientName, grant_types: ['client_credentials'] }),
    })
  ).json()) as any;
  // A refused registration (a quota, a bad token) must fail here, with its reason, not later as an unknown bearer.
  if (!registered.client_id) throw new Error(`client registration refused: ${JSON.stringify(registered)}`);
  const basic = `Basic ${Buffer.from(`${registered.client_id}:${registered.client_secret}`).toString('base64')}`;
  const token = (await (
    await fetch(`${serverUrl}/oauth/token`, {
      method: 'POST',
      headers: { authorization: basic },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'mcp:use' }),
    })
  ).json()) as any;
  if (!token.access_token) throw new Error(`client_credentials refused: ${JSON.stringify(token)}`);
  return {
    token: token.access_token as string,
    client: { id: registered.client_id as string, secret: registered.client_secret as string },
  };
}
