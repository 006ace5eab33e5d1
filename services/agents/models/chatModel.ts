/**
 * The one interface every model sits behind (DESIGN › Agents): a streamed answer with its tool
 * calls and its token usage. A turn's activity drives it; nothing else talks to a model.
 */

export interface ChatToolCall {
  /** The id the transcript keys the call by (ours, `<turnId>:<step>:<i>`, once recorded). */
  id: string;
  name: string;
  /** The arguments as the model wrote them (JSON text). */
  arguments: string;
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ChatToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

export interface ChatTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments (an object schema). */
  inputSchema: Record<string, unknown>;
}

export interface ChatRequest {
  messages: ChatMessage[];
  /** Empty: the model must answer in text. */
  tools: ChatTool[];
  signal?: AbortSignal;
  /**
   * Called once the request has left for the model (written to the connection), so that work
   * which may wait until then does not hold the request back. A model may not call it: the
   * caller then goes on when the first event settles.
   */
  onSent?: () => void;
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

export type ChatEvent =
  | { type: 'text'; text: string }
  /**
   * A complete tool call: arguments assembled from every chunk they arrived in. `input` is the
   * parsed object, or undefined when the text is not a JSON object (`inputError` says why): the
   * turn answers the model with that error rather than guessing.
   */
  | { type: 'tool-call'; name: string; arguments: string; input?: Record<string, unknown>; inputError?: string }
  | { type: 'finish'; usage: TokenUsage };

export interface ChatModel {
  /** What the model_calls ledger records, e.g. `gpt-4o-mini@http://localhost:11434/v1` or `offline`. */
  readonly label: string;
  stream(request: ChatRequest): AsyncIterable<ChatEvent>;
}

/**
 * A model call that failed. `retryable` (429, 5xx, a cut stream, a refused connection): the
 * activity fails and Temporal retries it; otherwise (400, 401, 404) the turn fails with this
 * message, since a retry would only bill again.
 */
export class ModelError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    /** Seconds the provider asked us to wait (429 `Retry-After`). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'ModelError';
  }
}
