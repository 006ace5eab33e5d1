import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, jsonSchema, RetryError, streamText, tool, type ModelMessage, type ToolSet } from 'ai';
import type { ChatEvent, ChatMessage, ChatModel, ChatRequest, ChatTool } from './chatModel';
import { ModelError } from './chatModel';

/** How long a model may take to start answering (a long prompt on a CPU, a reasoning model) before the call is given up. */
export const DEFAULT_MODEL_FIRST_TOKEN_MS = 300_000;
/** How long a model that has started answering may then send nothing before the call is given up as stalled. */
export const DEFAULT_MODEL_STALL_MS = 120_000;

/** Parts that carry the model's own answer (the SDK's start and step markers do not). */
const ANSWER_PARTS = new Set([
  'text-delta',
  'reasoning-delta',
  'tool-input-start',
  'tool-input-delta',
  'tool-call',
  'finish',
]);

/**
 * The real model: any server speaking the OpenAI chat-completions API (OpenAI, Ollama, vLLM,
 * llama.cpp, LM Studio, …), through the `ai` SDK. One `stream()` is one model call, one step:
 * tools are declared without `execute`, so the SDK never runs them; the turn runs them and calls
 * again with the results. Retries are the activity's (Temporal's), never the SDK's. A server
 * that keeps the connection open but does not start answering within `firstTokenMs`, or then
 * goes silent for `stallMs`, fails the call as retryable: the activity's heartbeat alone would
 * keep such a call alive until its 10-minute timeout.
 */
export function openAiCompatibleModel(settings: {
  baseUrl: string;
  apiKey?: string | null;
  model: string;
  firstTokenMs?: number;
  stallMs?: number;
}): ChatModel {
  const firstTokenMs = settings.firstTokenMs ?? DEFAULT_MODEL_FIRST_TOKEN_MS;
  const stallMs = settings.stallMs ?? DEFAULT_MODEL_STALL_MS;
  const baseUrl = settings.baseUrl.replace(/\/+$/, '');
  const provider = createOpenAICompatible({
    name: 'openai-compatible',
    baseURL: baseUrl,
    apiKey: settings.apiKey ?? undefined,
    // Without it OpenAI-style servers send no usage on a streamed answer, and the ledger would read 0.
    includeUsage: true,
  });
  const languageModel = provider.chatModel(settings.model);

  return {
    label: `${settings.model}@${baseUrl}`,
    async *stream(request: ChatRequest): AsyncIterable<ChatEvent> {
      const stalled = new AbortController();
      let silence = firstTokenMs;
      let stallTimer = setTimeout(() => stalled.abort(), silence);
      const result = streamText({
        model: languageModel,
        messages: toModelMessages(request.messages),
        tools: request.tools.length > 0 ? toToolSet(request.tools) : undefined,
        // Our system messages (persona, instructions, memories) are ours, not a user's text.
        allowSystemInMessages: true,
        // Every chunk the server sends, as a `raw` part: once the answer has started, any chunk is a sign of life.
        includeRawChunks: true,
        maxRetries: 0,
        abortSignal: request.signal ? AbortSignal.any([request.signal, stalled.signal]) : stalled.signal,
        // Errors arrive as `error` parts below; the default handler would only log them a second time.
        onError: () => undefined,
      });

      // The arguments exactly as the model wrote them, assembled from the tool-input deltas, so
      // the transcript keeps the model's own text (the SDK's tool-call part carries the parsed value).
      const argumentsById = new Map<string, string>();
      try {
        for await (const part of result.fullStream) {
          if (ANSWER_PARTS.has(part.type) || (part.type === 'raw' && silence === stallMs)) {
            silence = stallMs;
            clearTimeout(stallTimer);
            stallTimer = setTimeout(() => stalled.abort(), silence);
          }
          switch (part.type) {
            case 'text-delta':
              if (part.text) yield { type: 'text', text: part.text };
              break;
            case 'tool-input-start':
              argumentsById.set(part.id, '');
              break;
            case 'tool-input-delta':
              argumentsById.set(part.id, (argumentsById.get(part.id) ?? '') + part.delta);
              break;
            case 'tool-call': {
              // A call the SDK could not parse comes as a tool-call part with `invalid: true` (its
              // `input` then the raw text), followed by a `tool-error` part we ignore: whether the
              // input is usable is decided here, from the text, the same way for every call.
              const rawInput: unknown = part.input;
              const text =
                argumentsById.get(part.toolCallId) ??
                (typeof rawInput === 'string' ? rawInput : JSON.stringify(rawInput ?? {}));
              yield { type: 'tool-call', name: part.toolName, arguments: text, ...parseToolArguments(text) };
              break;
            }
            case 'error':
              throw toModelError(part.error);
            case 'abort':
              request.signal?.throwIfAborted();
              throw stalledError(stalled.signal, silence) ?? new ModelError('the model call was aborted', true);
            case 'finish':
              yield {
                type: 'finish',
                usage: {
                  promptTokens: part.totalUsage.inputTokens ?? 0,
                  completionTokens: part.totalUsage.outputTokens ?? 0,
                },
              };
              break;
            default:
              // start, start-step, finish-step, text-start/end, reasoning, tool-error (see tool-call), …
              break;
          }
        }
      } catch (err) {
        // A stream cut mid-answer is not an `error` part: the SDK's read of the body throws out of
        // the iteration (an APICallError "Failed to process successful response", status 200).
        if (request.signal?.aborted) throw err;
        throw stalledError(stalled.signal, silence) ?? toModelError(err);
      } finally {
        clearTimeout(stallTimer);
      }
    },
  };
}

const stalledError = (signal: AbortSignal, stallMs: number) =>
  signal.aborted ? new ModelError(`the model sent nothing for ${stallMs / 1000} s`, true) : null;

/**
 * The arguments as an object, or why not. Empty arguments are `{}`: several servers (Ollama,
 * llama.cpp) send an empty string for a call without parameters.
 */
export function parseToolArguments(text: string): { input: Record<string, unknown> } | { inputError: string } {
  if (text.trim() === '') return { input: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { inputError: `the arguments are not valid JSON (${(err as Error).message})` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { inputError: 'the arguments must be a JSON object' };
  }
  return { input: value as Record<string, unknown> };
}

function toToolSet(tools: ChatTool[]): ToolSet {
  return Object.fromEntries(
    tools.map((chatTool) => [
      chatTool.name,
      // No `execute`: the caller runs the tool, inside its ledger.
      tool({ description: chatTool.description, inputSchema: jsonSchema(chatTool.inputSchema) }),
    ]),
  );
}

/** Our transcript in the SDK's message format; a tool result is named after the call it answers. */
export function toModelMessages(messages: ChatMessage[]): ModelMessage[] {
  const toolNameById = new Map<string, string>();
  for (const message of messages) {
    if (message.role === 'assistant') for (const call of message.toolCalls ?? []) toolNameById.set(call.id, call.name);
  }
  return messages.map((message): ModelMessage => {
    switch (message.role) {
      case 'system':
      case 'user':
        return { role: message.role, content: message.content };
      case 'assistant': {
        if (!message.toolCalls?.length) return { role: 'assistant', content: message.content };
        return {
          role: 'assistant',
          content: [
            ...(message.content ? [{ type: 'text' as const, text: message.content }] : []),
            ...message.toolCalls.map((call) => {
              const parsed = parseToolArguments(call.arguments);
              return {
                type: 'tool-call' as const,
                toolCallId: call.id,
                toolName: call.name,
                // The provider writes `JSON.stringify(input)` on the wire. Arguments that were not an
                // object go back as `{}` (the tool result carries the error): servers such as Ollama
                // refuse a transcript whose call arguments are not an object, and would refuse every turn after.
                input: 'input' in parsed ? parsed.input : {},
              };
            }),
          ],
        };
      }
      case 'tool':
        return {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: message.toolCallId,
              toolName: toolNameById.get(message.toolCallId) ?? 'unknown_tool',
              output: { type: 'text', value: message.content },
            },
          ],
        };
    }
  });
}

/** Seconds from a `Retry-After` header: a number of seconds or an HTTP date. */
function retryAfterSeconds(header: string | undefined): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/**
 * What went wrong, and whether another attempt may succeed. An HTTP answer decides by its status
 * (408, 409, 429 and 5xx: yes; any other 4xx: no, a retry would fail the same way and bill again).
 * Anything without a status failed on the way (refused connection, a stream cut before its finish,
 * a garbled chunk): retryable.
 */
export function toModelError(error: unknown): ModelError {
  if (error instanceof ModelError) return error;
  const cause = RetryError.isInstance(error) ? error.lastError : error;
  // A 200 whose body broke off reports status 200: that is a failure on the way, not an answer.
  if (APICallError.isInstance(cause) && cause.statusCode !== undefined && cause.statusCode >= 400) {
    const status = cause.statusCode;
    const retryable = status === 408 || status === 409 || status === 429 || status >= 500;
    const detail = typeof cause.responseBody === 'string' ? providerMessage(cause.responseBody) : undefined;
    return new ModelError(
      `the model answered HTTP ${status}: ${detail ?? cause.message}`,
      retryable,
      status,
      retryAfterSeconds(cause.responseHeaders?.['retry-after']),
    );
  }
  const messages: string[] = [];
  // The SDK's own message ("Failed to process successful response") says little; its causes say what broke.
  for (let link: unknown = cause; link !== undefined && messages.length < 4; link = (link as Error).cause) {
    messages.push(link instanceof Error ? link.message : String(link));
    if (!(link instanceof Error)) break;
  }
  return new ModelError(`the model call failed: ${messages.join(': ')}`, true);
}

/** The `error.message` of an OpenAI-style error body, when it is one. */
function providerMessage(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } };
    return typeof parsed.error?.message === 'string' ? parsed.error.message : undefined;
  } catch {
    return undefined;
  }
}
