import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** The official MCP SDK client over Streamable HTTP, connected (initialize) with a bearer credential. */
export async function mcpClient(url: string, token: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'tap-tests', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}`, ...headers } },
    }),
  );
  return client;
}

export interface ToolAnswer<T = any> {
  isError: boolean;
  data: T;
}

/** A tool call as a model makes it: the structured answer, or the error in the HTTP API's envelope. */
export async function callTool<T = any>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolAnswer<T>> {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as { type: string; text: string }[])[0]?.text;
  // The text content and the structured content say the same thing.
  expect(JSON.parse(text)).toEqual(result.structuredContent);
  return { isError: Boolean(result.isError), data: result.structuredContent as T };
}

/** A call that must succeed: its structured answer. */
export async function ok<T = any>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const answer = await callTool<T>(client, name, args);
  if (answer.isError) throw new Error(`${name} failed: ${JSON.stringify(answer.data)}`);
  return answer.data;
}

/** A call that must fail: its error code (and the whole error). */
export async function failing(client: Client, name: string, args: Record<string, unknown> = {}) {
  const answer = await callTool(client, name, args);
  expect(answer.isError).toBe(true);
  return answer.data.error as { code: string; message: string; details?: any };
}

/**
 * What an MCP host keeps for one server, in memory: its registration, the PKCE verifier and the
 * tokens. `openAuthorization` is what the host does with the sign-in link (a browser opens it; a
 * test that plays the browser itself only keeps it).
 */
export class InMemoryHostProvider implements OAuthClientProvider {
  authorizationUrl?: URL;
  private info?: OAuthClientInformationMixed;
  private saved?: OAuthTokens;
  private verifier?: string;

  constructor(
    private readonly redirectUri: string,
    private readonly clientName: string,
    private readonly openAuthorization: (url: URL) => Promise<void> | void = () => undefined,
  ) {}

  get redirectUrl() {
    return this.redirectUri;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.clientName,
      redirect_uris: [this.redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  async redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
    await this.openAuthorization(url);
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier!;
  }
}
