import type { Db } from '../../db/knex';
import type { RunningServer } from '../../server';
import { newTeam, startTestApi, testDb, TestTeam } from '../support/helpers';

/**
 * The Streamable HTTP exchange itself (stateless, JSON responses), status by status and byte by
 * byte where it matters: what any MCP client may rely on, whatever answers it underneath.
 */
describe('MCP over Streamable HTTP: the exchange', () => {
  let db: Db;
  let server: RunningServer & { baseUrl: string };
  let mcpUrl: string;
  let team: TestTeam;

  beforeAll(async () => {
    db = testDb();
    server = await startTestApi(db);
    mcpUrl = server.ctx.config.mcpEndpoint;
    team = await newTeam(db, 'mcp-protocol');
  });
  afterAll(async () => {
    await server?.close();
    await db?.destroy();
  });

  const JSON_AND_SSE = 'application/json, text/event-stream';
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${team.token}`,
        'x-team-slug': team.slug,
        'content-type': 'application/json',
        accept: JSON_AND_SSE,
        ...headers,
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const list = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'tools/list' });
  const ping = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'ping' });
  const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };

  it('answers initialize with the negotiated version, the server info and the instructions, and no session', async () => {
    const res = await post({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const body = (await res.json()) as any;
    expect(body).toMatchObject({
      jsonrpc: '2.0',
      id: 0,
      result: {
        protocolVersion: '2025-06-18',
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name: 'team-agent-platform' },
      },
    });
    expect(typeof body.result.instructions).toBe('string');
    // An unknown version is answered with the latest this server speaks.
    const other = (await (
      await post({
        jsonrpc: '2.0',
        id: 'x',
        method: 'initialize',
        params: { protocolVersion: '1999-01-01', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      })
    ).json()) as any;
    expect(other.id).toBe('x');
    expect(other.result.protocolVersion).toBe('2025-11-25');
  });

  it('notifications and responses alone are 202 with no body', async () => {
    const res = await post(initialized);
    expect(res.status).toBe(202);
    expect(await res.text()).toBe('');
    const both = await post([
      initialized,
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 9 } },
    ]);
    expect(both.status).toBe(202);
    expect(await both.text()).toBe('');
  });

  it('a batch is answered as an array in request order, notifications in it unanswered', async () => {
    const res = await post([list('b'), initialized, ping(7)]);
    expect(res.status).toBe(200);
    const body = (await res.json()) as any[];
    expect(body.map((m) => m.id)).toEqual(['b', 7]);
    expect(Array.isArray(body[0].result.tools)).toBe(true);
    expect(body[1]).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
    // A batch of one request is still one object, as the SDK's transport answers.
    const single = (await (await post([ping(3)])).json()) as any;
    expect(single).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
  });

  it('errors of a request travel in the JSON-RPC envelope with 200', async () => {
    const unknownMethod = await post({ jsonrpc: '2.0', id: 4, method: 'no/such' });
    expect(unknownMethod.status).toBe(200);
    expect(await unknownMethod.json()).toEqual({
      jsonrpc: '2.0',
      id: 4,
      error: { code: -32601, message: 'Method not found' },
    });
    const unknownTool = (await (
      await post({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'nope', arguments: {} } })
    ).json()) as any;
    expect(unknownTool.id).toBe(5);
    expect(unknownTool.error.code).toBe(-32602);
    // Params the SDK's own request schema refuses: its internal error, as the SDK answers it.
    const badParams = (await (
      await post({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { arguments: {} } })
    ).json()) as any;
    expect(badParams.id).toBe(6);
    expect(badParams.error.code).toBe(-32603);
  });

  it("refuses what is not a Streamable HTTP exchange with the SDK transport's statuses and codes", async () => {
    const expectError = async (res: Response, status: number, code: number, message: RegExp) => {
      expect(res.status).toBe(status);
      const body = (await res.json()) as any;
      expect(body).toEqual({ jsonrpc: '2.0', error: { code, message: expect.stringMatching(message) }, id: null });
    };
    await expectError(await post(list(1), { accept: 'application/json' }), 406, -32000, /^Not Acceptable/);
    await expectError(await post(list(1), { accept: 'text/event-stream' }), 406, -32000, /^Not Acceptable/);
    await expectError(
      await post(list(1), { 'mcp-protocol-version': '1999-01-01' }),
      400,
      -32000,
      /^Bad Request: Unsupported protocol version: 1999-01-01/,
    );
    expect((await post(list(1), { 'mcp-protocol-version': '2025-06-18' })).status).toBe(200);
    await expectError(await post('{"hello":1}'), 400, -32700, /^Parse error: Invalid JSON-RPC message$/);
    await expectError(await post([list(1), 'x']), 400, -32700, /^Parse error: Invalid JSON-RPC message$/);
    await expectError(
      await post(Array.from({ length: 101 }, (_, i) => ping(i))),
      400,
      -32600,
      /^Invalid Request: Batch must not exceed 100 messages$/,
    );
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    await expectError(
      await post([init, ping(2)]),
      400,
      -32600,
      /^Invalid Request: Only one initialization request is allowed$/,
    );
    // An empty body is parsed as {}, which is no JSON-RPC message.
    await expectError(await post(''), 400, -32700, /^Parse error: Invalid JSON-RPC message$/);
    // No body and no Content-Type: the transport's own 415.
    const bare = await fetch(mcpUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${team.token}`, 'x-team-slug': team.slug, accept: JSON_AND_SSE },
    });
    await expectError(bare, 415, -32000, /^Unsupported Media Type: Content-Type must be application\/json$/);
  });

  it('a body that is not JSON is refused in the API error envelope before MCP reads it', async () => {
    const wrongType = await post(list(1), { 'content-type': 'text/plain' });
    expect(wrongType.status).toBe(415);
    expect(((await wrongType.json()) as any).error.code).toBe('unsupported_media_type');
    const malformed = await post('{"jsonrpc":');
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as any).error.code).toBe('validation_error');
  });
});
