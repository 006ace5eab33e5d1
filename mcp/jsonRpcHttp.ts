import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { MAX_BATCH_SIZE } from '@modelcontextprotocol/sdk/server/requestBody.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isInitializeRequest,
  JSONRPCMessage,
  JSONRPCMessageSchema,
  JSONRPCRequest,
  JSONRPCResponse,
  RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import type { Request, Response } from 'express';

/**
 * Stateless Streamable HTTP with JSON responses, on Node's own request and response: the SDK's
 * `StreamableHTTPServerTransport` does the same exchange through web `Request`/`Response` objects
 * that `@hono/node-server` converts from and back to Node's, a cost on every call. What a client
 * sees is the SDK transport's, check for check
 * and in the same order (test/mcp/mcp.protocol.test.ts): 406 without `Accept` of both JSON and
 * SSE, 415 for a body that is not JSON, 400 for an unsupported `Mcp-Protocol-Version`, for a
 * message that is not JSON-RPC, for a batch over 100 or with a second `initialize`; notifications
 * and responses alone are 202; requests are answered together, one object or the batch's array
 * in request order. There is no session and no stream: server-to-client messages other than
 * responses are dropped, as the SDK transport drops them in this mode.
 */
class JsonResponseTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  /** The requests of this exchange, in order, and their responses once sent. */
  private readonly responses = new Map<RequestId, JSONRPCMessage | undefined>();
  private waiting = 0;
  private closed = false;

  constructor(private readonly answer: (body: JSONRPCMessage | JSONRPCMessage[]) => void) {}

  async start(): Promise<void> {}

  expect(id: RequestId): void {
    if (this.responses.has(id)) return;
    this.responses.set(id, undefined);
    this.waiting++;
  }

  get done(): boolean {
    return this.waiting === 0;
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!isResponse(message)) return;
    const id = message.id;
    if (id === undefined || !this.responses.has(id) || this.closed)
      throw new Error(`No connection established for request ID: ${String(id)}`);
    if (this.responses.get(id) === undefined) this.waiting--;
    this.responses.set(id, message);
    if (this.waiting > 0) return;
    const all = [...this.responses.values()] as JSONRPCMessage[];
    this.answer(all.length === 1 ? all[0] : all);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}

/*
 * What a message is, read off its keys: each one was parsed by `JSONRPCMessageSchema` (a
 * client's) or built by the SDK (a response). The SDK's guards (`isJSONRPCRequest` and the like)
 * parse it with zod again on every test, result included, and a failed test builds a ZodError:
 * four or five parses an exchange.
 */
const isRequest = (m: JSONRPCMessage): m is JSONRPCRequest => 'method' in m && 'id' in m;
const isResponse = (m: JSONRPCMessage): m is JSONRPCResponse => 'id' in m && ('result' in m || 'error' in m);
/**
 * As the SDK transport tells an `initialize`: by its schema, which a malformed one fails and which
 * a notification of that method passes (the schema does not look at `id`).
 */
const isInitialize = (m: JSONRPCMessage) => 'method' in m && m.method === 'initialize' && isInitializeRequest(m);

/** Written as the SDK transport writes it: `Content-Type: application/json`, no ETag. */
function writeJson(res: Response, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify(body));
}

const jsonRpcError = (res: Response, status: number, code: number, message: string, data?: unknown) =>
  writeJson(res, status, {
    jsonrpc: '2.0',
    error: data === undefined ? { code, message } : { code, message, data },
    id: null,
  });

/**
 * Answers one POST (its JSON body already parsed into `req.body`) through `server`, which is
 * connected here and closed only if the client leaves before every answer is written.
 */
export async function answerJsonRpcPost(server: Server, req: Request, res: Response): Promise<void> {
  const accept = req.headers.accept;
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
    return jsonRpcError(
      res,
      406,
      -32000,
      'Not Acceptable: Client must accept both application/json and text/event-stream',
    );
  }
  if (!isJsonContentType(req.headers['content-type'] ?? null)) {
    return jsonRpcError(res, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
  }
  const raw: unknown = req.body;
  // No body: the SDK transport reads an empty one, which is not JSON.
  if (raw === undefined) return jsonRpcError(res, 400, -32700, 'Parse error: Invalid JSON');
  if (Array.isArray(raw) && raw.length > MAX_BATCH_SIZE) {
    return jsonRpcError(res, 400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`);
  }
  let messages: JSONRPCMessage[];
  try {
    messages = (Array.isArray(raw) ? raw : [raw]).map((m) => JSONRPCMessageSchema.parse(m));
  } catch {
    return jsonRpcError(res, 400, -32700, 'Parse error: Invalid JSON-RPC message');
  }
  if (messages.some(isInitialize)) {
    if (messages.length > 1) {
      return jsonRpcError(res, 400, -32600, 'Invalid Request: Only one initialization request is allowed');
    }
  } else {
    const version = req.headers['mcp-protocol-version'];
    if (typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      return jsonRpcError(
        res,
        400,
        -32000,
        `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
      );
    }
  }

  const transport = new JsonResponseTransport((body) => {
    if (!res.headersSent) writeJson(res, 200, body);
  });
  await server.connect(transport);
  const extra = { requestInfo: { headers: req.headers } };
  if (!messages.some(isRequest)) {
    for (const message of messages) transport.onmessage?.(message, extra);
    res.statusCode = 202;
    res.end();
    return;
  }
  for (const message of messages) if (isRequest(message)) transport.expect(message.id);
  // A client that leaves early: abort its handlers, as closing the SDK transport does.
  res.on('close', () => {
    if (!transport.done) void server.close();
  });
  try {
    for (const message of messages) transport.onmessage?.(message, extra);
  } catch (error) {
    if (!res.headersSent) jsonRpcError(res, 400, -32700, 'Parse error', String(error));
  }
}
