import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ModelError,
  type ChatEvent,
  type ChatModel,
  type ChatRequest,
  type ChatTool,
} from '../../services/agents/models/chatModel';
import { offlineModel } from '../../services/agents/models/offline';
import { openAiCompatibleModel } from '../../services/agents/models/openaiCompatible';
import { modelFor } from '../../services/agents/models/resolveModel';
import { startModelServer, type FakeModelServer } from '../fakes/modelServer';

const listArtifacts: ChatTool = {
  name: 'list_artifacts',
  description: 'Lists the artifacts of the room.',
  inputSchema: {
    type: 'object',
    properties: { limit: { type: 'integer', minimum: 1 } },
    additionalProperties: false,
  },
};
const readNote: ChatTool = {
  name: 'read_note',
  description: 'Reads a note by path.',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

const ask = (content: string, tools: ChatTool[] = [listArtifacts, readNote]): ChatRequest => ({
  messages: [{ role: 'user', content }],
  tools,
});

/** Every event of one model call; the call's error, if it failed, next to the events before it. */
async function run(model: ChatModel, request: ChatRequest): Promise<{ events: ChatEvent[]; error?: unknown }> {
  const events: ChatEvent[] = [];
  try {
    for await (const event of model.stream(request)) events.push(event);
    return { events };
  } catch (error) {
    return { events, error };
  }
}

const textOf = (events: ChatEvent[]) => events.map((event) => (event.type === 'text' ? event.text : '')).join('');

/** A port nothing listens on: bound once, then released. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the OpenAI-compatible model, against a fake server over HTTP', () => {
  let fake: FakeModelServer;
  let model: ChatModel;

  beforeAll(async () => {
    fake = await startModelServer({ requireApiKey: 'sk-test' });
    model = openAiCompatibleModel({ baseUrl: fake.url, apiKey: 'sk-test', model: 'fake-model' });
  });
  afterEach(() => fake.reset());
  afterAll(() => fake.close());

  /** The same model, with first-token and stall windows short enough for a test. */
  const impatientModel = (windows: { firstTokenMs: number; stallMs: number }) =>
    openAiCompatibleModel({ baseUrl: fake.url, apiKey: 'sk-test', model: 'fake-model', ...windows });

  it('streams an answer as text events in order, then a finish with the usage the server reported', async () => {
    fake.script({ chunks: ['Two ', 'artifacts ', 'are ', 'here.'], usage: { promptTokens: 42, completionTokens: 5 } });
    const { events, error } = await run(model, ask('What is in the room?'));
    expect(error).toBeUndefined();
    expect(events).toEqual([
      { type: 'text', text: 'Two ' },
      { type: 'text', text: 'artifacts ' },
      { type: 'text', text: 'are ' },
      { type: 'text', text: 'here.' },
      { type: 'finish', usage: { promptTokens: 42, completionTokens: 5 } },
    ]);
    expect(model.label).toBe(`fake-model@${fake.url}`);
    // Usage on a streamed answer is only sent when asked for.
    expect(fake.requests[0].body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('reports zero usage when the server sends none', async () => {
    fake.script({ text: 'fine', usage: null });
    const { events } = await run(model, ask('hi'));
    expect(events.at(-1)).toEqual({ type: 'finish', usage: { promptTokens: 0, completionTokens: 0 } });
  });

  it('assembles a tool call whose arguments arrive in three pieces into one call with its parsed input', async () => {
    fake.script({ toolCalls: [{ name: 'read_note', arguments: { path: 'notes/2026-11-23.md' }, splitArguments: 3 }] });
    const { events, error } = await run(model, ask('Read today’s note'));
    expect(error).toBeUndefined();
    const calls = events.filter((event) => event.type === 'tool-call');
    expect(calls).toEqual([
      {
        type: 'tool-call',
        name: 'read_note',
        arguments: '{"path":"notes/2026-11-23.md"}',
        input: { path: 'notes/2026-11-23.md' },
      },
    ]);
    expect(events.at(-1)?.type).toBe('finish');
  });

  it('yields both tool calls of one reply, in order, after the text that came first', async () => {
    fake.script({
      text: 'Looking.',
      toolCalls: [
        { name: 'list_artifacts', arguments: { limit: 5 }, splitArguments: 2 },
        { name: 'read_note', arguments: { path: 'a.md' }, splitArguments: 2 },
      ],
    });
    const { events } = await run(model, ask('Both please'));
    expect(events.map((event) => event.type)).toEqual(['text', 'tool-call', 'tool-call', 'finish']);
    expect(events[1]).toMatchObject({ name: 'list_artifacts', input: { limit: 5 } });
    expect(events[2]).toMatchObject({ name: 'read_note', input: { path: 'a.md' } });
  });

  it('turns arguments that are not JSON into a tool call with an input error, without throwing', async () => {
    fake.script({ toolCalls: [{ name: 'read_note', malformedArguments: true, splitArguments: 2 }] });
    const { events, error } = await run(model, ask('Read it'));
    expect(error).toBeUndefined();
    const [call] = events.filter((event) => event.type === 'tool-call');
    expect(call).toMatchObject({ name: 'read_note', arguments: '{"path": "notes/today.md", "limit": ' });
    expect(call).not.toHaveProperty('input');
    expect(call).toHaveProperty('inputError', expect.stringMatching(/not valid JSON/));
  });

  it('refuses arguments that are JSON but not an object', async () => {
    fake.script({ toolCalls: [{ name: 'read_note', arguments: '["a.md"]' }] });
    const { events } = await run(model, ask('Read it'));
    expect(events[0]).toMatchObject({ type: 'tool-call', inputError: 'the arguments must be a JSON object' });
  });

  it('fails a 429 as retryable, with the seconds Retry-After asked for', async () => {
    fake.script({ status: 429, retryAfter: 7, errorMessage: 'Rate limit reached for requests' });
    const { events, error } = await run(model, ask('hi'));
    expect(events).toEqual([]);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ retryable: true, status: 429, retryAfterSeconds: 7 });
    expect((error as Error).message).toMatch(/Rate limit reached/);
  });

  it('fails a 500 as retryable', async () => {
    fake.script({ status: 500 });
    const { error } = await run(model, ask('hi'));
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ retryable: true, status: 500 });
  });

  it('fails a stream cut mid-answer as retryable, never as a short answer', async () => {
    fake.script({ chunks: ['The ', 'answer ', 'is ', 'long.'], cutAfterChunks: 2 });
    const { events, error } = await run(model, ask('hi'));
    expect(textOf(events)).toBe('The answer ');
    expect(events.some((event) => event.type === 'finish')).toBe(false);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ retryable: true });
  });

  it('gives up a model that does not start answering, or goes silent mid-answer, as a retryable stall; a slow but steady one finishes', async () => {
    const impatient = impatientModel({ firstTokenMs: 600, stallMs: 300 });
    fake.script(
      { text: 'too late', firstTokenDelayMs: 1_200 },
      { text: 'thought long, then answered', firstTokenDelayMs: 450 },
      { chunks: ['one ', 'two ', 'three'], chunkDelayMs: 1_200 },
      { chunks: ['one ', 'two ', 'three'], chunkDelayMs: 150 },
    );
    const neverStarted = await run(impatient, ask('hi'));
    expect(neverStarted.events).toEqual([]);
    expect(neverStarted.error).toBeInstanceOf(ModelError);
    expect(neverStarted.error).toMatchObject({ retryable: true, message: 'the model sent nothing for 0.6 s' });
    // A first token later than the stall window but within the first-token window is fine.
    const slowStart = await run(impatient, ask('hi'));
    expect(slowStart.error).toBeUndefined();
    expect(textOf(slowStart.events)).toBe('thought long, then answered');
    const silentMidway = await run(impatient, ask('hi'));
    expect(textOf(silentMidway.events)).toBe('one ');
    expect(silentMidway.error).toMatchObject({ retryable: true, message: 'the model sent nothing for 0.3 s' });
    const steady = await run(impatient, ask('hi'));
    expect(steady.error).toBeUndefined();
    expect(textOf(steady.events)).toBe('one two three');
  });

  it('counts a reasoning model’s thinking as answering: it may think past the first-token window, but not fall silent', async () => {
    const impatient = impatientModel({ firstTokenMs: 400, stallMs: 300 });
    fake.script(
      { reasoning: ['Let ', 'me ', 'think ', 'this ', 'through.'], chunks: ['Done.'], chunkDelayMs: 150 },
      { reasoning: ['Let ', 'me ', 'think.'], chunks: ['Too late.'], chunkDelayMs: 500 },
    );
    // Six chunks 150 ms apart: 750 ms, past the 400 ms first-token window, never 300 ms silent.
    const thoughtLong = await run(impatient, ask('hi'));
    expect(thoughtLong.error).toBeUndefined();
    expect(thoughtLong.events).toEqual([
      { type: 'text', text: 'Done.' },
      { type: 'finish', usage: expect.any(Object) },
    ]);
    const fellSilent = await run(impatient, ask('hi'));
    expect(fellSilent.events).toEqual([]);
    expect(fellSilent.error).toMatchObject({ retryable: true, message: 'the model sent nothing for 0.3 s' });
  });

  it('stops at the caller’s abort with an AbortError, not a model error to retry', async () => {
    fake.script({ chunks: ['one ', 'two ', 'three'], chunkDelayMs: 300 });
    const abort = new AbortController();
    const events: ChatEvent[] = [];
    let error: unknown;
    try {
      for await (const event of model.stream({ ...ask('hi'), signal: abort.signal })) {
        events.push(event);
        abort.abort();
      }
    } catch (err) {
      error = err;
    }
    expect(textOf(events)).toBe('one ');
    expect(error).not.toBeInstanceOf(ModelError);
    expect(error).toHaveProperty('name', 'AbortError');
  });

  it('fails a refused connection as retryable', async () => {
    const nowhere = openAiCompatibleModel({
      baseUrl: `http://127.0.0.1:${await closedPort()}/v1`,
      model: 'fake-model',
    });
    const { error } = await run(nowhere, ask('hi'));
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ retryable: true, status: undefined });
  });

  it('says the request has left before the model answers, so the turn can write its bookkeeping meanwhile', async () => {
    // A model that answers only once the caller has heard the request left: were `onSent` called
    // with the answer (or not at all), this call would never end.
    let heard = 0;
    let release = () => {};
    const told = new Promise<void>((resolve) => (release = resolve));
    const chunk = (delta: object, finish: string | null) =>
      `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const holding = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        void told.then(() => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.end(chunk({ content: 'answered after' }, null) + chunk({}, 'stop') + 'data: [DONE]\n\n');
        });
      });
    });
    await new Promise<void>((resolve) => holding.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = holding.address() as AddressInfo;
      const waiting = openAiCompatibleModel({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm' });
      const called = run(waiting, {
        ...ask('hi'),
        onSent: () => {
          heard++;
          release();
        },
      });
      let timer: NodeJS.Timeout | undefined;
      const stuck = new Promise<'stuck'>((resolve) => (timer = setTimeout(() => resolve('stuck'), 3_000)));
      const outcome = await Promise.race([called, stuck]).finally(() => clearTimeout(timer));
      if (outcome === 'stuck') throw new Error('the call waited for an answer that waits for onSent');
      expect(outcome.error).toBeUndefined();
      expect(textOf(outcome.events)).toBe('answered after');
      expect(heard).toBe(1);
    } finally {
      holding.closeAllConnections();
      await new Promise((resolve) => holding.close(resolve));
    }
  });

  it('says so once even when the request never leaves (a refused connection): its caller is never left waiting', async () => {
    let heard = 0;
    const nowhere = openAiCompatibleModel({ baseUrl: `http://127.0.0.1:${await closedPort()}/v1`, model: 'm' });
    const { error } = await run(nowhere, { ...ask('hi'), onSent: () => heard++ });
    expect(error).toBeInstanceOf(ModelError);
    expect(heard).toBe(1);
  });

  it('fails a 401 (a wrong key) as not retryable', async () => {
    const wrongKey = openAiCompatibleModel({ baseUrl: fake.url, apiKey: 'sk-wrong', model: 'fake-model' });
    const { error } = await run(wrongKey, ask('hi'));
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ retryable: false, status: 401 });
    expect((error as Error).message).toMatch(/Incorrect API key/);
  });

  it('sends the model name, the tools as JSON schema functions, the whole transcript and the bearer key', async () => {
    fake.script({ text: 'There are none.' });
    const toolCallId = 'room-1:3:0:0';
    await run(model, {
      messages: [
        { role: 'system', content: 'You are Ada, the team’s archivist.' },
        { role: 'user', content: 'What artifacts do we have?' },
        {
          role: 'assistant',
          content: 'Let me look.',
          toolCalls: [{ id: toolCallId, name: 'list_artifacts', arguments: '{"limit":5}' }],
        },
        { role: 'tool', toolCallId, content: '{"items":[]}' },
      ],
      tools: [listArtifacts, readNote],
    });

    const [request] = fake.requests;
    expect(request.path).toBe('/v1/chat/completions');
    expect(request.headers.authorization).toBe('Bearer sk-test');
    expect(request.body.model).toBe('fake-model');
    expect(request.body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'list_artifacts',
          description: listArtifacts.description,
          parameters: listArtifacts.inputSchema,
        },
      },
      {
        type: 'function',
        function: { name: 'read_note', description: readNote.description, parameters: readNote.inputSchema },
      },
    ]);
    expect(request.body.messages).toEqual([
      { role: 'system', content: 'You are Ada, the team’s archivist.' },
      { role: 'user', content: 'What artifacts do we have?' },
      {
        role: 'assistant',
        content: 'Let me look.',
        tool_calls: [
          { id: toolCallId, type: 'function', function: { name: 'list_artifacts', arguments: '{"limit":5}' } },
        ],
      },
      { role: 'tool', tool_call_id: toolCallId, content: '{"items":[]}' },
    ]);
  });

  it('declares no tools at all when the step forbids them', async () => {
    fake.script({ text: 'Final answer.' });
    await run(model, ask('Wrap up', []));
    expect(fake.requests[0].body).not.toHaveProperty('tools');
  });

  it('answers unscripted requests with an echo of the last user message', async () => {
    const { events } = await run(model, ask('ping'));
    expect(textOf(events)).toBe('echo: ping');
  });
});

describe('the fake model server without streaming', () => {
  it('answers a plain chat completion with its text, tool calls and usage, and lists its models', async () => {
    const fake = await startModelServer({ models: ['fake-model', 'other'] });
    try {
      fake.script({ text: 'Sure.', toolCalls: [{ name: 'list_artifacts', arguments: { limit: 1 } }] });
      const response = await fetch(`${fake.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'fake-model', messages: [{ role: 'user', content: 'hi' }] }),
      });
      const body = (await response.json()) as {
        choices: { message: { content: string; tool_calls: { function: { name: string; arguments: string } }[] } }[];
        usage: { prompt_tokens: number; completion_tokens: number };
      };
      expect(body.choices[0].message.content).toBe('Sure.');
      expect(body.choices[0].message.tool_calls[0].function).toEqual({
        name: 'list_artifacts',
        arguments: '{"limit":1}',
      });
      expect(body.usage.prompt_tokens).toBeGreaterThan(0);

      const models = (await (await fetch(`${fake.url}/models`)).json()) as { data: { id: string }[] };
      expect(models.data.map((entry) => entry.id)).toEqual(['fake-model', 'other']);
    } finally {
      await fake.close();
    }
  });

  it('waits the first-token delay of its default reply on every request', async () => {
    const fake = await startModelServer({ defaultReply: { text: 'ok', firstTokenDelayMs: 200 } });
    try {
      const model = openAiCompatibleModel({ baseUrl: fake.url, model: 'fake-model' });
      const started = Date.now();
      let firstTextAt = 0;
      for await (const event of model.stream(ask('hi')))
        if (event.type === 'text' && !firstTextAt) firstTextAt = Date.now();
      expect(firstTextAt - started).toBeGreaterThanOrEqual(190);
      const { events } = await run(model, ask('again'));
      expect(textOf(events)).toBe('ok');
    } finally {
      await fake.close();
    }
  });
});

describe('the offline model', () => {
  const offline = offlineModel();

  it('says plainly that no model is configured, how to configure one, and which tools it can call', async () => {
    const { events } = await run(offline, ask('Hello, who are you?'));
    const text = textOf(events);
    expect(offline.label).toBe('offline');
    expect(events.filter((event) => event.type === 'text').length).toBeGreaterThan(1);
    expect(events.at(-1)).toEqual({ type: 'finish', usage: { promptTokens: 0, completionTokens: 0 } });
    expect(text).toMatch(/No model is configured for this agent/);
    expect(text).toMatch(/AI_BASE_URL/);
    expect(text).toMatch(/AI_MODEL/);
    expect(text).toMatch(/AI_API_KEY/);
    expect(text).toMatch(/Ollama/);
    expect(text).toContain('/call <tool_name>');
    expect(text).toContain('list_artifacts, read_note');
    expect(text).not.toMatch(/\bI am an AI\b|\bas an AI\b|\bI'm an AI\b|language model here/i);
  });

  it('turns an explicit /call into that tool call, with {} when no arguments are given', async () => {
    expect((await run(offline, ask('/call list_artifacts {}'))).events).toEqual([
      { type: 'tool-call', name: 'list_artifacts', arguments: '{}', input: {} },
      { type: 'finish', usage: { promptTokens: 0, completionTokens: 0 } },
    ]);
    expect((await run(offline, ask('/call list_artifacts'))).events[0]).toEqual({
      type: 'tool-call',
      name: 'list_artifacts',
      arguments: '{}',
      input: {},
    });
    expect((await run(offline, ask('  /call read_note {"path": "a.md"}'))).events[0]).toMatchObject({
      name: 'read_note',
      input: { path: 'a.md' },
    });
  });

  it('answers a /call it cannot run in text, saying why', async () => {
    const badJson = await run(offline, ask('/call read_note {path: a.md}'));
    expect(badJson.events.some((event) => event.type === 'tool-call')).toBe(false);
    expect(textOf(badJson.events)).toMatch(/must be one JSON object/);

    const unknown = await run(offline, ask('/call delete_everything {}'));
    expect(textOf(unknown.events)).toMatch(/no tool named delete_everything.*list_artifacts, read_note/);

    const noTools = await run(offline, ask('/call list_artifacts {}', []));
    expect(noTools.events.some((event) => event.type === 'tool-call')).toBe(false);
    expect(textOf(noTools.events)).toMatch(/not available at this step/);
  });

  it('after a tool result, reports what the tool answered, shortened when long', async () => {
    const callId = 'room-1:1:0:0';
    const transcript = (result: string): ChatRequest => ({
      messages: [
        { role: 'user', content: '/call list_artifacts {}' },
        { role: 'assistant', content: '', toolCalls: [{ id: callId, name: 'list_artifacts', arguments: '{}' }] },
        { role: 'tool', toolCallId: callId, content: result },
      ],
      tools: [listArtifacts],
    });
    const short = await run(offline, transcript('{"items":[{"name":"brief.pdf"}]}'));
    expect(textOf(short.events)).toBe('Tool list_artifacts answered: {"items":[{"name":"brief.pdf"}]}');

    const long = textOf((await run(offline, transcript(`"${'x'.repeat(5000)}"`))).events);
    expect(long.length).toBeLessThan(2100);
    expect(long).toMatch(/3002 more characters\)$/);
  });
});

describe('which model an agent gets', () => {
  const none = { agentBaseUrl: null, agentModel: null, agentApiKey: null };

  it('is the offline model when neither the agent nor the platform has one', () => {
    expect(modelFor(none, { AI_MODEL: 'gpt-4o-mini' }).label).toBe('offline');
  });

  it('is the platform model, under the agent’s model name when it chose one', () => {
    const platform = { AI_BASE_URL: 'http://models.internal/v1', AI_API_KEY: 'sk-platform', AI_MODEL: 'gpt-4o-mini' };
    expect(modelFor(none, platform).label).toBe('gpt-4o-mini@http://models.internal/v1');
    expect(modelFor({ ...none, agentModel: 'llama3.1' }, platform).label).toBe('llama3.1@http://models.internal/v1');
  });

  it('is the agent’s own server first, which never receives the platform key', async () => {
    const agentServer = await startModelServer();
    // Nor a key from the environment, where the model client would look by default.
    process.env.OPENAI_API_KEY = 'sk-from-the-environment';
    try {
      const platform = { AI_BASE_URL: 'http://models.internal/v1', AI_API_KEY: 'sk-platform', AI_MODEL: 'gpt-4o-mini' };
      const own = modelFor({ agentBaseUrl: agentServer.url, agentModel: 'qwen2.5', agentApiKey: null }, platform);
      expect(own.label).toBe(`qwen2.5@${agentServer.url}`);
      await run(own, ask('hi'));
      expect(agentServer.requests[0].body.model).toBe('qwen2.5');
      expect(agentServer.requests[0].headers.authorization).toBeUndefined();

      const withKey = modelFor({ agentBaseUrl: agentServer.url, agentModel: null, agentApiKey: 'sk-agent' }, platform);
      await run(withKey, ask('hi'));
      expect(agentServer.requests[1].body.model).toBe('gpt-4o-mini');
      expect(agentServer.requests[1].headers.authorization).toBe('Bearer sk-agent');
    } finally {
      delete process.env.OPENAI_API_KEY;
      await agentServer.close();
    }
  });
});
