import { randomUUID } from 'node:crypto';
import diagnostics from 'node:diagnostics_channel';
import OpenAI, { APIError } from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { ChatEvent, ChatMessage, ChatModel, ChatRequest, ChatTool } from './chatModel';
import { ModelError } from './chatModel';

/** How long a model may take to start answering (a long prompt on a CPU, a reasoning model) before the call is given up. */
export const DEFAULT_MODEL_FIRST_TOKEN_MS = 300_000;
/** How long a model that has started answering may then send nothing before the call is given up as stalled. */
export const DEFAULT_MODEL_STALL_MS = 120_000;

/**
 * The real model: any server speaking the OpenAI chat-completions API (OpenAI, Ollama, vLLM,
 * llama.cpp, LM Studio, …), through the `openai` SDK. One `stream()` is one model call, one
 * step: the tools are declared, the turn runs them and calls again with the results. Retries are
 * the activity's (Temporal's), never the SDK's. A server that keeps the connection open but does
 * not start answering within `firstTokenMs`, or then goes silent for `stallMs`, fails the call
 * as retryable: the activity's heartbeat alone would keep such a call alive until its 10-minute
 * timeout. A connection cut mid-answer is a failure too, never a short answer.
 *
 * The `openai` SDK, not the `ai` SDK: that one validates the whole prompt with zod and passes
 * every chunk through several web streams, which delays the request and its first text
 * (docs/BENCHMARKS.md, run 33).
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
  const client = new OpenAI({
    baseURL: baseUrl,
    // Always given: the SDK would otherwise read OPENAI_API_KEY from the environment, and send the
    // platform's key to an agent's own server. Without a key no Authorization header is sent.
    apiKey: settings.apiKey ?? '',
    defaultHeaders: settings.apiKey ? {} : { Authorization: null },
    maxRetries: 0,
    timeout: firstTokenMs + stallMs,
  });

  return {
    label: `${settings.model}@${baseUrl}`,
    async *stream(request: ChatRequest): AsyncIterable<ChatEvent> {
      const stalled = new AbortController();
      let silence = firstTokenMs;
      let stallTimer = setTimeout(() => stalled.abort(), silence);
      const restartStallTimer = () => {
        silence = stallMs;
        clearTimeout(stallTimer);
        stallTimer = setTimeout(() => stalled.abort(), silence);
      };
      const signal = request.signal ? AbortSignal.any([request.signal, stalled.signal]) : stalled.signal;
      // Tool calls by their index in the answer: name and arguments arrive in pieces.
      const calls = new Map<number, { name: string; arguments: string }>();
      let usage = { promptTokens: 0, completionTokens: 0 };
      const requestId = randomUUID();
      const sent = request.onSent ? whenWritten(requestId, request.onSent) : undefined;
      try {
        const answer = await client.chat.completions.create(
          {
            model: settings.model,
            messages: toOpenAiMessages(request.messages),
            ...(request.tools.length > 0 ? { tools: request.tools.map(toOpenAiTool) } : {}),
            stream: true,
            // Without it OpenAI-style servers send no usage on a streamed answer, and the ledger would read 0.
            stream_options: { include_usage: true },
          },
          { signal, headers: { 'x-request-id': requestId } },
        );
        sent?.stop(); // the model has answered: the request has left, whatever the channel said
        for await (const chunk of answer) {
          const [choice] = chunk.choices ?? [];
          // The answer starts with its first words, reasoning, tool call or finish (a chunk that
          // only names the role does not start it); after that, any chunk is a sign of life.
          const delta = choice?.delta as ReasoningDelta | undefined;
          const answering = Boolean(
            delta?.content ||
            delta?.reasoning_content ||
            delta?.reasoning ||
            delta?.tool_calls ||
            choice?.finish_reason,
          );
          if (answering || silence === stallMs) restartStallTimer();
          if (chunk.usage)
            usage = {
              promptTokens: chunk.usage.prompt_tokens ?? 0,
              completionTokens: chunk.usage.completion_tokens ?? 0,
            };
          if (delta?.content) yield { type: 'text', text: delta.content };
          for (const piece of delta?.tool_calls ?? []) {
            const call = calls.get(piece.index) ?? { name: '', arguments: '' };
            calls.set(piece.index, call);
            if (piece.function?.name) call.name += piece.function.name;
            if (piece.function?.arguments) call.arguments += piece.function.arguments;
          }
        }
      } catch (err) {
        request.signal?.throwIfAborted();
        throw stalledError(stalled.signal, silence) ?? toModelError(err);
      } finally {
        clearTimeout(stallTimer);
        sent?.stop();
      }
      // The SDK ends an aborted stream quietly: whoever aborted it says why.
      request.signal?.throwIfAborted();
      const stall = stalledError(stalled.signal, silence);
      if (stall) throw stall;
      // The arguments exactly as the model wrote them: the transcript keeps the model's own text.
      for (const [, call] of [...calls].sort(([a], [b]) => a - b))
        yield { type: 'tool-call', name: call.name, arguments: call.arguments, ...parseToolArguments(call.arguments) };
      yield { type: 'finish', usage };
    },
  };
}

/**
 * Calls `onSent` once undici has written the request with this `x-request-id` (its
 * `undici:request:bodySent` diagnostics channel, which the `fetch` the SDK uses publishes). The
 * SDK resolves nothing at that moment: its promise settles with the response's headers, after
 * the model has started answering.
 */
function whenWritten(requestId: string, onSent: () => void): { stop(): void } {
  const channel = diagnostics.channel('undici:request:bodySent');
  const listener = (message: unknown) => {
    const headers = (message as { request?: { headers?: unknown } }).request?.headers;
    const ours = Array.isArray(headers) ? headers.includes(requestId) : String(headers).includes(requestId);
    if (ours) stop();
  };
  let called = false;
  const stop = () => {
    channel.unsubscribe(listener);
    if (!called) {
      called = true;
      onSent();
    }
  };
  channel.subscribe(listener);
  return { stop };
}

/** What reasoning models send ahead of their answer, outside the OpenAI API's own fields. */
type ReasoningDelta = ChatCompletionChunk.Choice.Delta & {
  reasoning_content?: string | null;
  reasoning?: string | null;
};

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

function toOpenAiTool(tool: ChatTool): ChatCompletionTool {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  };
}

/** Our transcript in the chat-completions format; a tool result names the call it answers. */
export function toOpenAiMessages(messages: ChatMessage[]): ChatCompletionMessageParam[] {
  return messages.map((message): ChatCompletionMessageParam => {
    switch (message.role) {
      case 'system':
      case 'user':
        return { role: message.role, content: message.content };
      case 'assistant':
        if (!message.toolCalls?.length) return { role: 'assistant', content: message.content };
        return {
          role: 'assistant',
          content: message.content,
          tool_calls: message.toolCalls.map((call) => {
            const parsed = parseToolArguments(call.arguments);
            return {
              id: call.id,
              type: 'function' as const,
              // Arguments that were not an object go back as `{}` (the tool result carries the
              // error): servers such as Ollama refuse a transcript whose call arguments are not
              // an object, and would refuse every turn after.
              function: { name: call.name, arguments: JSON.stringify('input' in parsed ? parsed.input : {}) },
            };
          }),
        };
      case 'tool':
        return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    }
  });
}

/** Seconds from a `Retry-After` header: a number of seconds or an HTTP date. */
function retryAfterSeconds(header: string | null | undefined): number | undefined {
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
 * a garbled chunk, an error sent inside the stream): retryable.
 */
export function toModelError(error: unknown): ModelError {
  if (error instanceof ModelError) return error;
  if (error instanceof APIError && error.status !== undefined && error.status >= 400) {
    const status = error.status;
    const retryable = status === 408 || status === 409 || status === 429 || status >= 500;
    const detail = (error.error as { message?: unknown } | undefined)?.message;
    return new ModelError(
      `the model answered HTTP ${status}: ${typeof detail === 'string' ? detail : error.message}`,
      retryable,
      status,
      retryAfterSeconds(error.headers?.get('retry-after')),
    );
  }
  const messages: string[] = [];
  // A connection error's own message ("Connection error.") says little; its causes say what broke.
  for (let link: unknown = error; link !== undefined && messages.length < 4; link = (link as Error).cause) {
    messages.push(link instanceof Error ? link.message : String(link));
    if (!(link instanceof Error)) break;
  }
  return new ModelError(`the model call failed: ${messages.join(': ')}`, true);
}
