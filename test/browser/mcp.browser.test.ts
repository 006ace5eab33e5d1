import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser } from 'playwright-core';
import type { Db } from '../../db/knex';
import type { RunningServer } from '../../server';
import { newTeam, startTestApi, startTestApiOnFourHosts, testDb } from '../support/helpers';
import { InMemoryHostProvider, ok } from '../support/mcpHelpers';
import { withPassword } from '../support/oauthHelpers';
import { collectBrowserComplaints, launchChromium, screenshot } from './chromium';
import { CallbackServer, cspViolations, signIn, startCallbackServer } from './oauthBrowser';

describe.each([
  ['one host', startTestApi],
  ['four hosts ({base_url}, {mcp_url}, {auth_url}, {site_url} on distinct origins)', startTestApiOnFourHosts],
])('MCP sign-in driven in Chromium, from the MCP URL alone, %s', (_hosts, start) => {
  let db: Db;
  let server: RunningServer & { baseUrl: string };
  let chromium: Browser;
  let callback: CallbackServer;

  beforeAll(async () => {
    db = testDb();
    server = await start(db);
    chromium = await launchChromium();
    callback = await startCallbackServer();
  });
  afterAll(async () => {
    await chromium?.close();
    await callback?.close();
    await server?.close();
    await db?.destroy();
  });

  it('401 → discovery → registration → sign-in → consent → callback → finishAuth → tools/list and svc_agent_info on the token', async () => {
    const owner = await withPassword(db, await newTeam(db, 'mcp-browser'));
    const mcpUrl = new URL(server.ctx.config.mcpEndpoint);
    const context = await chromium.newContext({ viewport: { width: 1000, height: 800 } });
    const page = await context.newPage();
    const complaints = collectBrowserComplaints(page);
    const host = new InMemoryHostProvider(callback.redirectUri, 'Browser MCP host', async (url) => {
      // As the MCP Inspector and `npm run mcp:connect` do: open the sign-in link in a browser.
      await page.goto(url.href);
    });

    const firstTry = new Client({ name: 'browser-host', version: '1.0.0' });
    await expect(
      firstTry.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: host })),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    // The SDK found the authorization server from the 401, registered itself, and opened our page.
    expect(host.clientInformation()?.client_id).toMatch(/^cli_/);
    expect(host.authorizationUrl!.searchParams.get('resource')).toBe(mcpUrl.href);
    expect(host.authorizationUrl!.origin).toBe(server.ctx.config.authUrl);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Sign in to continue to Browser MCP host');
    await screenshot(page, 'mcp-01-sign-in');

    await signIn(page, owner.email, owner.password);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Allow Browser MCP host to connect?');
    await screenshot(page, 'mcp-02-consent');
    await page.getByRole('button', { name: 'Allow' }).click();

    const arrived = await callback.nextCallback();
    await page.waitForURL((url) => url.href.startsWith(callback.redirectUri));
    await screenshot(page, 'mcp-03-callback');
    expect(cspViolations(complaints)).toEqual([]);
    // The authorization server's issuer named the code; the MCP host and the API are other origins.
    expect(arrived.searchParams.get('iss')).toBe(server.ctx.config.authUrl);
    const code = arrived.searchParams.get('code')!;
    expect(code).toMatch(/^oac_/);

    await new StreamableHTTPClientTransport(mcpUrl, { authProvider: host }).finishAuth(code);
    expect(host.tokens()).toMatchObject({ access_token: expect.stringMatching(/^oat_/), scope: 'mcp:use' });

    const signedIn = new Client({ name: 'browser-host', version: '1.0.0' });
    await signedIn.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: host }));
    const { tools } = await signedIn.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['svc_agent_info', 'svc_list_agents']));
    const info = await ok(signedIn, 'svc_agent_info');
    expect(info.agent.uuid).toBe(owner.agentId);
    expect(info.team).toMatchObject({ slug: owner.slug });
    await signedIn.close();
    await context.close();
  });
});
