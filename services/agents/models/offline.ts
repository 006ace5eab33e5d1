import type { ChatEvent, ChatMessage, ChatModel, ChatRequest, ChatTool } from './chatModel';

/**
 * The model an agent has when none is configured (DESIGN › Agents): it never pretends to think.
 * It answers plainly that no model is configured and how to configure one, runs only explicit
 * tool commands (`/call <tool> {json}`), and reports a tool's answer word for word.
 *
 * A `/call` it cannot run (bad syntax, arguments that are not a JSON object, a tool it was not
 * given, or no tools allowed at this step) is answered in text saying why, not turned into a
 * failing tool call: the person typing it reads the reason at once, and nothing reaches the ledger.
 */
export function offlineModel(): ChatModel {
  return {
    label: 'offline',
    async *stream(request: ChatRequest): AsyncIterable<ChatEvent> {
      request.signal?.throwIfAborted();
      const answer = offlineAnswer(request);
      if (answer.type === 'tool-call') {
        yield answer;
      } else {
        for (const piece of inPieces(answer.text)) {
          request.signal?.throwIfAborted();
          yield { type: 'text', text: piece };
        }
      }
      yield { type: 'finish', usage: { promptTokens: 0, completionTokens: 0 } };
    },
  };
}

/** How much of a tool's answer the reply quotes. */
const TOOL_RESULT_QUOTE_LIMIT = 2000;

const CALL_SYNTAX = '/call <tool_name> {"argument": "value"}';

type OfflineAnswer =
  | { type: 'text'; text: string }
  | { type: 'tool-call'; name: string; arguments: string; input: Record<string, unknown> };

function offlineAnswer(request: ChatRequest): OfflineAnswer {
  const last = request.messages[request.messages.length - 1];
  if (last?.role === 'tool') return { type: 'text', text: toolResultsSummary(request.messages) };
  if (last?.role === 'user') {
    const command = /^\/call(?:\s+|$)/.exec(last.content.trim());
    if (command) return callCommand(last.content.trim().slice(command[0].length), request.tools);
  }
  return { type: 'text', text: noModelNotice(request.tools) };
}

/** `<tool_name> <json object>` (the JSON optional, `{}` by default) → the call, or why not. */
function callCommand(rest: string, tools: ChatTool[]): OfflineAnswer {
  if (tools.length === 0) {
    return { type: 'text', text: 'Tool calls are not available at this step, so this command was not run.' };
  }
  const match = /^(\S+)\s*([\s\S]*)$/.exec(rest);
  if (!match) {
    return { type: 'text', text: `A tool command names a tool: ${CALL_SYNTAX}. ${toolList(tools)}` };
  }
  const [, name, argumentText] = match;
  if (!tools.some((chatTool) => chatTool.name === name)) {
    return { type: 'text', text: `There is no tool named ${name} here. ${toolList(tools)}` };
  }
  const text = argumentText.trim() || '{}';
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch {
    input = undefined;
  }
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return {
      type: 'text',
      text: `The arguments of ${name} must be one JSON object, e.g. ${CALL_SYNTAX.replace('<tool_name>', name)}; this command was not run.`,
    };
  }
  return { type: 'tool-call', name, arguments: text, input: input as Record<string, unknown> };
}

/** The trailing tool messages (one per call of the last step), each named after its call. */
function toolResultsSummary(messages: ChatMessage[]): string {
  const toolNameById = new Map<string, string>();
  for (const message of messages) {
    if (message.role === 'assistant') for (const call of message.toolCalls ?? []) toolNameById.set(call.id, call.name);
  }
  const results: string[] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message.role !== 'tool') break;
    const name = toolNameById.get(message.toolCallId) ?? 'the tool';
    const quote =
      message.content.length > TOOL_RESULT_QUOTE_LIMIT
        ? `${message.content.slice(0, TOOL_RESULT_QUOTE_LIMIT)}… (${message.content.length - TOOL_RESULT_QUOTE_LIMIT} more characters)`
        : message.content;
    results.unshift(`Tool ${name} answered: ${quote}`);
  }
  return results.join('\n\n');
}

function noModelNotice(tools: ChatTool[]): string {
  return [
    'No model is configured for this agent, so this is a fixed reply: nothing here was generated or understood.',
    'To give it a model, set an OpenAI-compatible server on the agent, or for the whole platform with the',
    'AI_BASE_URL, AI_MODEL and AI_API_KEY environment variables (OpenAI, Ollama, vLLM, llama.cpp and LM Studio all work).',
    `Until then, explicit tool commands work: ${CALL_SYNTAX}. ${toolList(tools)}`,
  ].join(' ');
}

function toolList(tools: ChatTool[]): string {
  return tools.length > 0
    ? `Tools: ${tools.map((chatTool) => chatTool.name).join(', ')}.`
    : 'No tools are available at this step.';
}

/** A reply streamed as a real one is: a few pieces, cut after a space. */
function inPieces(text: string, count = 4): string[] {
  const pieces: string[] = [];
  let start = 0;
  for (let i = 1; i < count; i++) {
    const target = Math.floor((text.length * i) / count);
    const cut = text.indexOf(' ', target);
    if (cut === -1 || cut < start) continue;
    pieces.push(text.slice(start, cut + 1));
    start = cut + 1;
  }
  pieces.push(text.slice(start));
  return pieces.filter((piece) => piece.length > 0);
}
