/**
 * `npm run mcp:connect -- [mcpUrl]`: an MCP host in a terminal, on the official SDK client. Given
 * only the MCP URL it discovers the authorization server from the 401, registers itself, prints
 * the sign-in link (PKCE), receives the code on http://127.0.0.1:8976/callback, then lists the
 * tools and calls svc_agent_info. Tokens and the registration are kept in .data/mcp-connect.json,
 * so a second run goes straight in (refreshing when needed).
 *
 * With MCP_TOKEN=<API token> it skips OAuth and uses the token (X-Team-Slug from MCP_TEAM).
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { OAuthClientProvider, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';

const CALLBACK = 'http://127.0.0.1:8976/callback';
const STORE = path.resolve(process.env.DATA_DIR ?? '.data', 'mcp-connect.json');

interface Stored {
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  verifier?: string;
}

class TerminalHost implements OAuthClientProvider {
  private stored: Stored = fs.existsSync(STORE) ? JSON.parse(fs.readFileSync(STORE, 'utf8')) : {};

  private save(patch: Partial<Stored>) {
    this.stored = { ...this.stored, ...patch };
    fs.mkdirSync(path.dirname(STORE), { recursive: true });
    fs.writeFileSync(STORE, JSON.stringify(this.stored, null, 2), { mode: 0o600 });
  }

  get redirectUrl() {
    return CALLBACK;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'mcp-connect (terminal)',
      redirect_uris: [CALLBACK],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.stored.client;
  }
  saveClientInformation(client: OAuthClientInformationMixed) {
    this.save({ client });
  }
  tokens() {
    return this.stored.tokens;
  }
  saveTokens(tokens: OAuthTokens) {
    this.save({ tokens });
  }
  redirectToAuthorization(url: URL) {
    process.stdout.write(`\nOpen this link, sign in and allow:\n\n  ${url.href}\n\n`);
  }
  saveCodeVerifier(verifier: string) {
    this.save({ verifier });
  }
  codeVerifier() {
    return this.stored.verifier!;
  }
}

/** Waits for the browser to come back with `code` (or `error`). */
function receiveCode(): Promise<string> {
  return new Promise((resolve, reject) => {
    const server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', CALLBACK);
      if (url.pathname !== '/callback') return void res.writeHead(404).end();
      const code = url.searchParams.get('code');
      res
        .writeHead(200, { 'content-type': 'text/plain' })
        .end(code ? 'Signed in; you can close this tab.' : `Not signed in: ${url.searchParams.get('error')}`);
      server.close();
      if (code) resolve(code);
      else
        reject(
          new Error(
            `authorization failed: ${url.searchParams.get('error')} ${url.searchParams.get('error_description') ?? ''}`,
          ),
        );
    });
    server.listen(8976, '127.0.0.1');
  });
}

async function connect(url: URL): Promise<Client> {
  const client = new Client({ name: 'mcp-connect', version: '1.0.0' });
  if (process.env.MCP_TOKEN) {
    const headers: Record<string, string> = { authorization: `Bearer ${process.env.MCP_TOKEN}` };
    if (process.env.MCP_TEAM) headers['x-team-slug'] = process.env.MCP_TEAM;
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
    return client;
  }
  const host = new TerminalHost();
  try {
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: host }));
    return client;
  } catch (err) {
    if (!(err instanceof UnauthorizedError)) throw err;
  }
  const code = await receiveCode();
  const transport = new StreamableHTTPClientTransport(url, { authProvider: host });
  await transport.finishAuth(code);
  const signedIn = new Client({ name: 'mcp-connect', version: '1.0.0' });
  await signedIn.connect(new StreamableHTTPClientTransport(url, { authProvider: host }));
  return signedIn;
}

async function main(): Promise<void> {
  const url = new URL(process.argv[2] ?? 'http://localhost:3000/mcp');
  const client = await connect(url);
  const { tools } = await client.listTools();
  process.stdout.write(`Connected to ${client.getServerVersion()?.name}; ${tools.length} tools:\n`);
  for (const tool of tools) process.stdout.write(`  ${tool.name.padEnd(26)} ${tool.title ?? ''}\n`);
  const info = await client.callTool({ name: 'svc_agent_info', arguments: {} });
  process.stdout.write(`\nsvc_agent_info → ${JSON.stringify(info.structuredContent)}\n`);
  await client.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
