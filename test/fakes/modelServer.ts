/**
 * A fake OpenAI-compatible chat model, over real HTTP, for tests and the bench.
 *
 * It speaks the part of the OpenAI API the chat adapter uses: `POST /v1/chat/completions`,
 * streamed (SSE `data: {chunk}` … `data: [DONE]`, with a final usage chunk when the request asks
 * for `stream_options.include_usage`) or not, and `GET /v1/models`. What it answers is scripted:
 *
 * ```ts
 * const fake = await startModelServer();
 * fake.script(
 *   { toolCalls: [{ name: 'list_artifacts', arguments: { limit: 5 }, splitArguments: 3 }] },
 *   { chunks: ['Two ', 'artifacts.'], usage: { promptTokens: 40, completionTokens: 3 } },
 *   { status: 429, retryAfter: 7 },
 *   { text: 'half an answer that never ends', cutAfterChunks: 2 },
 *   (request) => ({ text: `you sent ${request.body.messages.length} messages` }),
 * );
 * const model = openAiCompatibleModel({ baseUrl: fake.url, apiKey: 'sk-test', model: 'fake-model' });
 * …
 * expect(fake.requests[0].body.model).toBe('fake-model');
 * await fake.close();
 * ```
 *
 * Each request takes the next scripted reply; with the script empty it takes `defaultReply`
 * (a reply or a function of the request, e.g. the bench's `{ text: 'ok', firstTokenDelayMs: 200 }`),
 * and with neither it echoes: `echo: <last user message>`. Every request is recorded in
 * `fake.requests`, whatever it was answered.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A tool call the fake model makes. */
export interface ScriptedToolCall {
  name: string;
  /** The arguments: an object is sent as its JSON text, a string as it is (so it can be anything). */
  arguments?: Record<string, unknown> | string;
  /** Send arguments that are not JSON (a truncated object), as a model sometimes does. */
  malformedArguments?: boolean;
  /** Streamed: the arguments arrive across this many chunks (default 1). */
  splitArguments?: number;
  /** The call's id on the wire; default `call_<n>`. */
  id?: string;
}

/** One answer of the fake model. Every field is optional: `{}` is an empty text answer. */
export interface ScriptedReply {
  /** The text of the answer (streamed as one chunk unless `chunks` is given). */
  text?: string;
  /** The text, streamed in exactly these pieces (takes precedence over `text`). */
  chunks?: string[];
  /**
   * Streamed: the model's reasoning before its answer, in these pieces, as `reasoning_content`
   * (vLLM, DeepSeek, llama.cpp; Ollama and OpenRouter call it `reasoning`): not part of the answer.
   */
  reasoning?: string[];
  /** Tool calls, in order; several make one reply with several calls. */
  toolCalls?: ScriptedToolCall[];
  /** Token usage to report; default: estimated from the request and the reply. `null`: report none. */
  usage?: { promptTokens: number; completionTokens: number } | null;
  /** Wait this long before the first byte of the answer (also before an error status). */
  firstTokenDelayMs?: number;
  /** Streamed: wait this long between chunks. */
  chunkDelayMs?: number;
  /** Answer with this HTTP status and an OpenAI-style error body instead (429, 500, 401, …). */
  status?: number;
  /** With `status`: the `Retry-After` header (seconds, or an HTTP date). */
  retryAfter?: number | string;
  /** With `status`: the error message in the body. */
  errorMessage?: string;
  /** Streamed: send this many SSE chunks, then destroy the connection (no finish, no `[DONE]`). */
  cutAfterChunks?: number;
  /** The finish reason; default `tool_calls` when the reply has tool calls, else `stop`. */
  finishReason?: string;
}

/** The body of a chat-completions request, as the fake parsed it. */
export interface ChatCompletionRequestBody {
  model: string;
  messages: WireMessage[];
  tools?: {
    type: 'function';
    function: { name: string; description?: string; parameters: Record<string, unknown> };
  }[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  [field: string]: unknown;
}

/** A message on the wire (OpenAI chat-completions format). */
export interface WireMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null | { type: string; text?: string }[];
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The parsed JSON body (`{}` for a GET). */
  body: ChatCompletionRequestBody;
  /** When the request arrived (ms since the epoch). */
  receivedAt: number;
}

export type Responder = ScriptedReply | ((request: RecordedRequest) => ScriptedReply);

export interface ModelServerOptions {
  /** What to answer when the script is empty (instead of the echo). */
  defaultReply?: Responder;
  /** Answer 401 to a request whose bearer key is not this one. */
  requireApiKey?: string;
  /** The model ids `GET /v1/models` lists. */
  models?: string[];
  /** The port to listen on (default: a free one). */
  port?: number;
}

export interface FakeModelServer {
  /** The base URL the adapter is given, ending in `/v1`. */
  readonly url: string;
  /** Every request received, oldest first. */
  readonly requests: RecordedRequest[];
  /** Queue replies for the next requests, in order. */
  script(...replies: Responder[]): void;
  /** How many scripted replies are still queued. */
  readonly pending: number;
  /** Forget the queued replies and the recorded requests. */
  reset(): void;
  close(): Promise<void>;
}

/** The last user message's text, for the echo answer. */
function lastUserText(body: ChatCompletionRequestBody): string {
  const lastUser = [...(body.messages ?? [])].reverse().find((message) => message.role === 'user');
  if (!lastUser) return '';
  if (typeof lastUser.content === 'string') return lastUser.content;
  return (lastUser.content ?? []).map((part) => part.text ?? '').join('');
}

/** Cuts a text into `pieces` parts of about the same length (the last may be shorter). */
function splitInto(text: string, pieces: number): string[] {
  const count = Math.max(1, Math.min(pieces, text.length || 1));
  const size = Math.ceil(text.length / count);
  const parts: string[] = [];
  for (let i = 0; i < count; i++) parts.push(text.slice(i * size, (i + 1) * size));
  return parts;
}

function argumentsText(call: ScriptedToolCall): string {
  if (call.malformedArguments) return '{"path": "notes/today.md", "limit": ';
  if (call.arguments === undefined) return '{}';
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
}

/** A rough, deterministic token count: one token per four characters, at least one. */
function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

// Unref'd: a reply still waiting when the fake closes (a stuck model) does not hold the test process open.
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

export async function startModelServer(options: ModelServerOptions = {}): Promise<FakeModelServer> {
  const requests: RecordedRequest[] = [];
  let queue: Responder[] = [];
  let completionCounter = 0;

  function replyFor(request: RecordedRequest): ScriptedReply {
    const responder = queue.shift() ?? options.defaultReply ?? { text: `echo: ${lastUserText(request.body)}` };
    return typeof responder === 'function' ? responder(request) : responder;
  }

  async function answer(req: http.IncomingMessage, res: http.ServerResponse, request: RecordedRequest) {
    if (options.requireApiKey && req.headers.authorization !== `Bearer ${options.requireApiKey}`) {
      return sendError(res, { status: 401, errorMessage: 'Incorrect API key provided.' });
    }
    const reply = replyFor(request);
    if (reply.firstTokenDelayMs) await sleep(reply.firstTokenDelayMs);
    if (res.destroyed) return;
    if (reply.status && reply.status >= 400) return sendError(res, reply);

    const id = `chatcmpl-fake-${++completionCounter}`;
    const created = Math.floor(Date.now() / 1000);
    const model = request.body.model;
    const textPieces = reply.chunks ?? (reply.text ? [reply.text] : []);
    const text = textPieces.join('');
    const toolCalls = (reply.toolCalls ?? []).map((call, index) => ({
      index,
      id: call.id ?? `call_${completionCounter}_${index}`,
      name: call.name,
      arguments: argumentsText(call),
      splitArguments: call.splitArguments ?? 1,
    }));
    const finishReason = reply.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop');
    const promptText = request.body.messages.map((message) => JSON.stringify(message.content ?? '')).join('\n');
    const usage =
      reply.usage === null
        ? null
        : {
            prompt_tokens: reply.usage?.promptTokens ?? estimateTokens(promptText),
            completion_tokens:
              reply.usage?.completionTokens ??
              estimateTokens(text + toolCalls.map((call) => call.name + call.arguments).join('')),
          };
    const usageField = usage
      ? { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } }
      : {};

    if (!request.body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id,
          object: 'chat.completion',
          created,
          model,
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: toolCalls.length > 0 && !text ? null : text,
                ...(toolCalls.length > 0
                  ? {
                      tool_calls: toolCalls.map((call) => ({
                        id: call.id,
                        type: 'function',
                        function: { name: call.name, arguments: call.arguments },
                      })),
                    }
                  : {}),
              },
              finish_reason: finishReason,
            },
          ],
          ...usageField,
        }),
      );
      return;
    }

    // The chunks of a streamed answer, in the order OpenAI sends them.
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    const events: unknown[] = [];
    reply.reasoning?.forEach((piece, i) =>
      events.push(chunk(i === 0 ? { role: 'assistant', reasoning_content: piece } : { reasoning_content: piece })),
    );
    textPieces.forEach((piece, i) =>
      events.push(chunk(i === 0 ? { role: 'assistant', content: piece } : { content: piece })),
    );
    for (const call of toolCalls) {
      const argumentPieces = splitInto(call.arguments, call.splitArguments);
      argumentPieces.forEach((piece, i) =>
        events.push(
          chunk({
            ...(events.length === 0 ? { role: 'assistant', content: null } : {}),
            tool_calls: [
              i === 0
                ? { index: call.index, id: call.id, type: 'function', function: { name: call.name, arguments: piece } }
                : { index: call.index, function: { arguments: piece } },
            ],
          }),
        ),
      );
    }
    events.push(chunk({}, finishReason));
    if (usage && request.body.stream_options?.include_usage) {
      events.push({ id, object: 'chat.completion.chunk', created, model, choices: [], ...usageField });
    }

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    let sent = 0;
    for (const event of events) {
      if (reply.cutAfterChunks !== undefined && sent >= reply.cutAfterChunks) break;
      if (sent > 0 && reply.chunkDelayMs) await sleep(reply.chunkDelayMs);
      if (res.destroyed) return;
      await new Promise<void>((resolve) => res.write(`data: ${JSON.stringify(event)}\n\n`, () => resolve()));
      sent++;
    }
    if (reply.cutAfterChunks !== undefined) {
      // The connection dies mid-answer: no finish chunk, no [DONE], no end of the chunked body.
      res.socket?.destroy();
      return;
    }
    res.end('data: [DONE]\n\n');
  }

  function sendError(res: http.ServerResponse, reply: ScriptedReply) {
    const status = reply.status ?? 500;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (reply.retryAfter !== undefined) headers['retry-after'] = String(reply.retryAfter);
    res.writeHead(status, headers);
    res.end(
      JSON.stringify({
        error: {
          message: reply.errorMessage ?? `fake model server answered ${status}`,
          type: status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error',
          code: status === 401 ? 'invalid_api_key' : null,
        },
      }),
    );
  }

  const server = http.createServer((req, res) => {
    const raw: Buffer[] = [];
    req.on('data', (piece: Buffer) => raw.push(piece));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0];
      let body: ChatCompletionRequestBody = { model: '', messages: [] };
      if (raw.length > 0) {
        try {
          body = JSON.parse(Buffer.concat(raw).toString('utf8')) as ChatCompletionRequestBody;
        } catch {
          res.writeHead(400, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { message: 'the body is not JSON', type: 'invalid_request_error' } }));
          return;
        }
      }
      const request: RecordedRequest = {
        method: req.method ?? 'GET',
        path,
        headers: req.headers,
        body,
        receivedAt: Date.now(),
      };
      requests.push(request);

      if (req.method === 'GET' && path === '/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            object: 'list',
            data: (options.models ?? ['fake-model']).map((id) => ({
              id,
              object: 'model',
              created: 0,
              owned_by: 'fake',
            })),
          }),
        );
        return;
      }
      if (req.method === 'POST' && path === '/v1/chat/completions') {
        answer(req, res, request).catch((err: unknown) => {
          if (!res.headersSent) sendError(res, { status: 500, errorMessage: String(err) });
          else res.destroy();
        });
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${path}`, type: 'invalid_request_error' } }));
    });
  });

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    script(...replies) {
      queue.push(...replies);
    },
    get pending() {
      return queue.length;
    },
    reset() {
      queue = [];
      requests.length = 0;
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}
