import { MockActivityEnvironment } from '@temporalio/testing';
import { turnToolRegistry } from '../../activities';
import { createRoomActivities } from '../../services/rooms/activities';
import { loadConfig } from '../../config';
import { createLogger } from '../../logger';
import { buildAppContext } from '../../services/platform/context';
import { FakeModelServer, startModelServer } from '../fakes/modelServer';
import { apiClient, newTeam, sleep, startTestApi, useApiSuite, waitForJob } from '../support/helpers';
import { failing, mcpClient, ok } from '../support/mcpHelpers';
import { readStream, StreamEvent } from '../support/sse';

/**
 * Talking to an agent over HTTP: rooms, turns run by the shared worker, the SSE stream, the fake
 * OpenAI-compatible model over real HTTP (the agent's own model setting points at it).
 */
describe('agents that converse: rooms, turns and streams', () => {
  const suite = useApiSuite('rooms');
  let fake: FakeModelServer;

  beforeAll(async () => {
    fake = await startModelServer();
  });
  afterAll(async () => {
    await fake?.close();
  });
  beforeEach(() => fake.reset());

  const useFakeModel = () =>
    suite.api.call('PATCH', `/agents/${suite.team.agentId}`, { model: { baseUrl: fake.url, name: 'fake-model' } });
  const useOffline = () =>
    suite.api.call('PATCH', `/agents/${suite.team.agentId}`, { model: { baseUrl: null, name: null } });
  const openRoom = async (name: string) => {
    const res = await suite.api.post('/rooms', { name });
    expect([200, 201]).toContain(res.status);
    return res.body as { room: { id: string }; key: string; streamUrl: string };
  };
  const say = (message: string, extra: Record<string, unknown> = {}) =>
    suite.api.post(`/agents/${suite.team.agentId}/messages`, { message, waitSeconds: 30, ...extra });
  const turnEvents = (events: StreamEvent[], turnId: string) =>
    events.filter((e) => e.data.turnId === turnId || e.data.messageId?.startsWith(`${turnId}:`));

  it('offline, without a model: says plainly that no model is configured, and runs an explicit /call', async () => {
    await useOffline();
    const plain = await say('Hello, who are you?');
    expect(plain.status).toBe(200);
    expect(plain.body.status).toBe('completed');
    expect(plain.body.reply).toMatch(/No model is configured/);
    expect(plain.body.reply).toMatch(/\/call/);

    const call = await say('/call list_rooms {"limit": 5}', { roomId: plain.body.roomId });
    expect(call.status).toBe(200);
    expect(call.body.reply).toMatch(/^Tool list_rooms answered: /);
    expect(call.body.reply).toContain(plain.body.roomId);
    const transcript = await suite.api.get(`/rooms/${plain.body.roomId}/messages?limit=100`);
    expect(transcript.body.data.map((m: any) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(transcript.body.data[3].toolCalls).toEqual([
      { id: `${call.body.turnId}:1:0`, name: 'list_rooms', arguments: '{"limit": 5}' },
    ]);
  });

  it('streams a reply as deltas with gapless ids, then message.completed and turn.completed', async () => {
    await useFakeModel();
    const opened = await openRoom('streamed');
    fake.script({
      chunks: ['The ', 'answer ', 'is ', '42.'],
      chunkDelayMs: 80,
      usage: { promptTokens: 50, completionTokens: 4 },
    });
    const reading = readStream(opened.streamUrl, { until: (e) => e.type === 'turn.completed' });
    const answer = await say('What is the answer?', { roomId: opened.room.id });
    const { events, status } = await reading;
    expect(status).toBe(200);
    expect(answer.body).toMatchObject({ status: 'completed', reply: 'The answer is 42.' });
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('message.created');
    expect(types.slice(-2)).toEqual(['message.completed', 'turn.completed']);
    const deltas = events.filter((e) => e.type === 'message.delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((e) => e.data.text).join('')).toBe('The answer is 42.');
    expect(events.at(-1)!.data).toMatchObject({ promptTokens: 50, completionTokens: 4, steps: 1 });
    // The model saw the character and the message.
    const sent = fake.requests[0].body;
    expect(sent.model).toBe('fake-model');
    expect(sent.messages[0]).toMatchObject({ role: 'system' });
    expect(sent.messages.at(-1)).toMatchObject({ role: 'user', content: 'What is the answer?' });
  });

  it("the model reads the agent's skills, memories and knowledge that match the message; an agent with none, none", async () => {
    const question = 'What does the premium plan cost?';
    const systemOf = (i: number) => String(fake.requests[i].body.messages[0].content);
    // A fresh agent: nothing to recall, and the turn goes on without it.
    const bareTeam = await newTeam(suite.db, 'rooms-bare');
    const bare = apiClient(suite.server.baseUrl, bareTeam);
    const bareAgent = bareTeam.agentId;
    await bare.call('PATCH', `/agents/${bareAgent}`, { model: { baseUrl: fake.url, name: 'fake-model' } });
    fake.script({ chunks: ['No idea.'] });
    expect(
      (await bare.post(`/agents/${bareAgent}/messages`, { message: question, waitSeconds: 30 })).body,
    ).toMatchObject({ status: 'completed', reply: 'No idea.' });
    expect(systemOf(0)).not.toMatch(/Skills that may apply|What you remember|Knowledge that may help/);

    await useFakeModel();
    const agent = (path: string) => `/agents/${suite.team.agentId}${path}`;
    expect(
      (
        await suite.api.post(agent('/skills'), {
          name: 'pricing',
          description: 'Questions about what the premium plan costs',
          instructions: 'Quote prices in euros, per month.',
        })
      ).status,
    ).toBe(201);
    expect(
      (await suite.api.post(agent('/memories'), { content: 'The premium plan price went up in June' })).status,
    ).toBe(201);
    const ingest = await suite.api.post(agent('/documents'), {
      title: 'Price list',
      text: 'The premium plan costs 49 euros a month.',
    });
    expect(await waitForJob(suite.api, ingest.body.jobId)).toMatchObject({ status: 'succeeded' });
    fake.script({ chunks: ['49 euros a month.'] });
    expect((await say(question)).body).toMatchObject({ status: 'completed', reply: '49 euros a month.' });
    const system = systemOf(1);
    expect(system).toContain('Skills that may apply:\n### pricing\nQuote prices in euros, per month.');
    expect(system).toContain('What you remember:\n- The premium plan price went up in June');
    expect(system).toContain('Knowledge that may help:\n[Price list] The premium plan costs 49 euros a month.');
  });

  it('streams an event too large for a notification (a long reply) in its place, read from the table', async () => {
    await useFakeModel();
    const opened = await openRoom('long reply');
    // Postgres refuses a NOTIFY payload over 8000 bytes: message.completed carries the whole reply.
    const reply = 'A long answer. '.repeat(1_000);
    fake.script({ chunks: [reply.slice(0, 7_000), reply.slice(7_000)] });
    const reading = readStream(opened.streamUrl, { until: (e) => e.type === 'turn.completed' });
    const answer = await say('Tell me everything', { roomId: opened.room.id });
    expect(answer.body).toMatchObject({ status: 'completed', reply });
    const { events } = await reading;
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    const completed = events.filter((e) => e.type === 'message.completed');
    expect(completed).toHaveLength(1);
    expect(completed[0].data.content).toBe(reply);
    expect(events.at(-1)!.data).toMatchObject({ reply });
  });

  it('a model step run again after its record was written (its worker died after the commit) answers from the record', async () => {
    await useFakeModel();
    const opened = await openRoom('recorded');
    fake.script({ text: 'Said once.', usage: { promptTokens: 30, completionTokens: 3 } });
    const answer = await say('Say it once', { roomId: opened.room.id });
    expect(answer.body).toMatchObject({ status: 'completed', reply: 'Said once.' });
    const { turnId } = answer.body;
    const written = async () => ({
      messages: await suite.db('room_messages').where({ turn_id: turnId }).select('id', 'content'),
      modelCalls: await suite.db('model_calls').where({ turn_id: turnId }).select('step', 'status'),
      events: await suite.db('room_events').where({ room_id: opened.room.id }).count({ n: '*' }),
    });
    const before = await written();

    // The same activity, attempt 2, as Temporal would retry it: no model call, no second record.
    const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
    const { modelStep } = createRoomActivities({
      appContext: buildAppContext(config, suite.db, createLogger('silent', 'worker')),
      tools: turnToolRegistry,
    });
    const again = await new MockActivityEnvironment({ attempt: 2 }).run(modelStep, turnId, 1, true);
    expect(again).toEqual({ toolCalls: [], promptTokens: 30, completionTokens: 3 });
    expect(fake.requests).toHaveLength(1);
    expect(await written()).toEqual(before);
  });

  it('runs a tool call whose arguments arrive in pieces, then answers with its result', async () => {
    await useFakeModel();
    const opened = await openRoom('tools');
    fake.script(
      { toolCalls: [{ name: 'list_rooms', arguments: { agentId: suite.team.agentId, limit: 3 }, splitArguments: 4 }] },
      (request) => ({ text: `Seen ${request.body.messages.filter((m) => m.role === 'tool').length} result` }),
    );
    const answer = await say('Which rooms do I have?', { roomId: opened.room.id });
    expect(answer.body).toMatchObject({ status: 'completed', reply: 'Seen 1 result' });
    const { events } = await readStream(opened.streamUrl, { until: (e) => e.type === 'turn.completed' });
    const call = events.find((e) => e.type === 'tool.call')!;
    expect(call.data).toMatchObject({
      name: 'list_rooms',
      arguments: { agentId: suite.team.agentId, limit: 3 },
      toolCallId: `${answer.body.turnId}:1:0`,
    });
    const result = events.find((e) => e.type === 'tool.result')!;
    expect(result.data.status).toBe('succeeded');
    expect(JSON.parse(result.data.result).data.map((r: any) => r.id)).toContain(opened.room.id);
    // The second model call carried the call and its result, under the same id.
    const second: any[] = fake.requests[1].body.messages;
    const assistant = second.find((m: any) => m.role === 'assistant' && m.tool_calls);
    const tool = second.find((m: any) => m.role === 'tool');
    expect(assistant.tool_calls[0].id).toBe(tool.tool_call_id);
    expect(JSON.parse(tool.content).data.map((r: any) => r.id)).toContain(opened.room.id);
    const ledger = await suite.db('tool_calls').where({ turn_id: answer.body.turnId });
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({ status: 'succeeded', name: 'list_rooms' });
    // The platform's events (what outbound webhooks carry): the message, the action, the answer.
    const outbox = await suite
      .db('platform_events')
      .where({ team_id: suite.team.teamId })
      .whereRaw("data->>'turnId' = ?", [answer.body.turnId])
      .orderBy('created_at');
    expect(outbox.map((e) => [e.type, e.data.tool ?? e.data.content])).toEqual([
      ['user.message', 'Which rooms do I have?'],
      ['agent.action', 'list_rooms'],
      ['agent.message', 'Seen 1 result'],
    ]);
  });

  it('tells the model when its tool arguments are not JSON, and goes on', async () => {
    await useFakeModel();
    fake.script({ toolCalls: [{ name: 'list_rooms', malformedArguments: true }] }, { text: 'Sorry, let me retry.' });
    const answer = await say('List rooms, please');
    expect(answer.body).toMatchObject({ status: 'completed', reply: 'Sorry, let me retry.' });
    const tool = (fake.requests[1].body.messages as any[]).at(-1);
    expect(tool.role).toBe('tool');
    expect(JSON.parse(tool.content).error).toMatchObject({ code: 'validation_error' });
    expect(JSON.parse(tool.content).error.message).toMatch(/not a JSON object/);
  });

  it('retries a model call that answered 429, telling clients to drop the partial text', async () => {
    await useFakeModel();
    const opened = await openRoom('retry');
    fake.script({ status: 429, retryAfter: 1 }, { chunks: ['After ', 'the wait.'] });
    const answer = await say('Busy?', { roomId: opened.room.id });
    expect(answer.body).toMatchObject({ status: 'completed', reply: 'After the wait.' });
    expect(fake.requests).toHaveLength(2);
    const calls = await suite.db('model_calls').where({ turn_id: answer.body.turnId }).orderBy('attempt');
    expect(calls.map((c) => [c.attempt, c.status])).toEqual([
      [1, 'failed'],
      [2, 'succeeded'],
    ]);
    expect(new Date(calls[1].started_at).getTime() - new Date(calls[0].finished_at).getTime()).toBeGreaterThanOrEqual(
      900,
    );
    const { events } = await readStream(opened.streamUrl, { until: (e) => e.type === 'turn.completed' });
    expect(turnEvents(events, answer.body.turnId).map((e) => e.type)).toContain('message.reset');
  });

  it('fails the turn with the model error when the model refuses the request (no retry, no re-bill)', async () => {
    await useFakeModel();
    fake.script({ status: 401, errorMessage: 'Incorrect API key provided' });
    const answer = await say('Hello?');
    expect(answer.body.status).toBe('failed');
    expect(answer.body.turn.error.error).toMatchObject({ code: 'model_error' });
    expect(answer.body.turn.error.error.message).toMatch(/Incorrect API key/);
    expect(fake.requests).toHaveLength(1);
  });

  it('runs two messages posted at once one turn after the other, the second seeing the first reply', async () => {
    await useFakeModel();
    const opened = await openRoom('queue');
    fake.script({ text: 'first reply', firstTokenDelayMs: 300 }, { text: 'second reply' });
    const [a, b] = await Promise.all([
      say('one', { roomId: opened.room.id, waitSeconds: 0 }),
      say('two', { roomId: opened.room.id, waitSeconds: 0 }),
    ]);
    expect([a.status, b.status]).toEqual([202, 202]);
    const turnUrl = (res: typeof a) => new URL(res.headers.get('location')!).pathname.replace(/^\/v1/, '');
    const done = async (res: typeof a) => {
      for (;;) {
        const turn = await suite.api.get(turnUrl(res));
        if (turn.body.status === 'completed' || turn.body.status === 'failed') return turn.body;
        await sleep(100);
      }
    };
    const [first, second] = [await done(a), await done(b)].sort((x, y) => x.completedAt.localeCompare(y.completedAt));
    expect([first.reply.content, second.reply.content]).toEqual(['first reply', 'second reply']);
    const calls = await suite.db('model_calls').whereIn('turn_id', [first.id, second.id]).orderBy('started_at');
    expect(calls.map((c) => c.turn_id)).toEqual([first.id, second.id]);
    expect(new Date(calls[1].started_at).getTime()).toBeGreaterThanOrEqual(new Date(first.completedAt).getTime());
    const secondRequest = fake.requests[1].body.messages.map((m: any) => m.content);
    // Whichever message the room got first is answered first; the second turn sees that exchange.
    const [firstSaid, secondSaid] = first.id === a.body.turnId ? ['one', 'two'] : ['two', 'one'];
    expect(secondRequest.slice(-3)).toEqual([firstSaid, 'first reply', secondSaid]);
  });

  it('a stream served by another API process carries what this one posted (events are rows, NOTIFY wakes every replica)', async () => {
    await useFakeModel();
    const replica = await startTestApi(suite.db);
    try {
      const opened = await openRoom('replicas');
      const onReplica = opened.streamUrl.replace(new URL(suite.server.baseUrl).origin, new URL(replica.baseUrl).origin);
      fake.script({ chunks: ['served ', 'by ', 'the ', 'other'], chunkDelayMs: 60 });
      const reading = readStream(onReplica, { until: (e) => e.type === 'turn.completed' });
      await sleep(200);
      const answer = await say('Which process?', { roomId: opened.room.id });
      const { events } = await reading;
      expect(answer.body.reply).toBe('served by the other');
      expect(events.filter((e) => e.type === 'message.delta').length).toBeGreaterThan(1);
      expect(events.at(-1)!.data.turnId).toBe(answer.body.turnId);
      expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    } finally {
      await replica.close();
    }
  });

  it('manual mode: a sensitive tool call asks for approval on the stream, a person approves over the API, the turn goes on', async () => {
    await useFakeModel();
    await suite.api.call('PUT', `/agents/${suite.team.agentId}/secrets/OLD_KEY`, { value: 'sk-old' });
    await suite.api.call('PATCH', `/agents/${suite.team.agentId}`, { mode: 'manual' });
    try {
      const opened = await openRoom('approvals');
      fake.script({ toolCalls: [{ name: 'secret_clear', arguments: { key: 'OLD_KEY' } }] }, (request) => ({
        text: `Result: ${(request.body.messages.at(-1)!.content as string).slice(0, 60)}`,
      }));
      const waiting = await say('Forget OLD_KEY', { roomId: opened.room.id, waitSeconds: 3 });
      expect(waiting.status).toBe(202);
      expect(waiting.body.status).toBe('waiting_approval');
      const [pending] = waiting.body.turn.pendingApprovals;
      expect(pending).toMatchObject({ tool: 'secret_clear', toolCallId: `${waiting.body.turnId}:1:0` });
      const asked = await readStream(opened.streamUrl, { until: (e) => e.type === 'approval.requested' });
      expect(asked.events.at(-1)!.data).toMatchObject({
        executionId: pending.executionId,
        warp: 'secret-clear',
        tool: 'secret_clear',
        arguments: { key: 'OLD_KEY' },
      });
      expect((await suite.api.get(`/agents/${suite.team.agentId}/secrets`)).body.data.map((k: any) => k.key)).toContain(
        'OLD_KEY',
      );
      const approved = await suite.api.post(`/warp-executions/${pending.executionId}/approve`, {});
      expect(approved.status).toBe(200);
      const { events } = await readStream(opened.streamUrl, {
        until: (e) => e.type === 'turn.completed' && e.data.turnId === waiting.body.turnId,
      });
      const types = turnEvents(events, waiting.body.turnId).map((e) => e.type);
      expect(types.indexOf('approval.requested')).toBeLessThan(types.indexOf('approval.decided'));
      expect(types.indexOf('approval.decided')).toBeLessThan(types.indexOf('tool.result'));
      expect(events.find((e) => e.type === 'approval.decided')!.data.status).toBe('succeeded');
      expect(events.find((e) => e.type === 'tool.result')!.data.status).toBe('succeeded');
      expect(events.at(-1)!.data.reply).toMatch(/^Result: .*"set":false/);
      expect(
        (await suite.api.get(`/agents/${suite.team.agentId}/secrets`)).body.data.map((k: any) => k.key),
      ).not.toContain('OLD_KEY');
    } finally {
      await suite.api.call('PATCH', `/agents/${suite.team.agentId}`, { mode: 'auto' });
    }
  });

  it('keeps credentials and self-prompting out of turns: a tool not offered is refused, never run', async () => {
    await useFakeModel();
    // Other suites make tokens in the same database meanwhile: what is counted is this user's, and the name asked for.
    const tokensOfUser = () => suite.db('api_tokens').where({ user_id: suite.team.userId }).count({ n: '*' }).first();
    const before = await tokensOfUser();
    const leaked = () => suite.db('api_tokens').where({ name: 'leak' }).count({ n: '*' }).first();
    fake.script({ toolCalls: [{ name: 'create_api_token', arguments: { name: 'leak' } }] }, { text: 'ok' });
    const answer = await say('Make me a token');
    expect(answer.body.status).toBe('completed');
    const ledger = await suite.db('tool_calls').where({ turn_id: answer.body.turnId }).first();
    expect(ledger).toMatchObject({ name: 'create_api_token', status: 'failed' });
    expect(ledger.result.error.code).toBe('unknown_tool');
    expect(await tokensOfUser()).toEqual(before);
    expect(await leaked()).toEqual({ n: 0 });
    const offered = fake.requests[0].body.tools!.map((t) => t.function.name);
    expect(offered).not.toEqual(expect.arrayContaining(['create_api_token']));
    expect(offered).not.toContain('prompt_agent');
    expect(offered).toContain('create_memory');
  });

  it('a room key opens only its room: wrong or missing key → 401, another team → 404', async () => {
    const a = await openRoom('isolation-a');
    const b = await openRoom('isolation-b');
    const other = await newTeam(suite.db, 'rooms-other');
    const otherApi = apiClient(suite.server.baseUrl, other);
    const bUrl = new URL(b.streamUrl);
    bUrl.searchParams.set('key', a.key);
    const wrongKey = await readStream(bUrl.toString());
    expect(wrongKey.status).toBe(401);
    expect(JSON.parse(wrongKey.raw).error.code).toBe('unauthorized');
    bUrl.searchParams.delete('key');
    expect((await readStream(bUrl.toString())).status).toBe(401);
    expect((await otherApi.get(`/rooms/${a.room.id}/messages`)).status).toBe(404);
    expect((await otherApi.post(`/agents/${suite.team.agentId}/messages`, { message: 'hi' })).status).toBe(404);
    expect((await otherApi.post('/rooms', { roomId: a.room.id })).status).toBe(404);
    const listed = await otherApi.get('/rooms');
    expect(listed.body.data).toEqual([]);

    // Another team's real key, of a room of its own, opens nothing of ours; each key opens its own room.
    const theirs = await otherApi.post('/rooms', { name: 'their-room' });
    expect(theirs.status).toBe(201);
    const aUrl = new URL(a.streamUrl);
    aUrl.searchParams.set('key', theirs.body.key);
    const foreign = await readStream(aUrl.toString(), { maxEvents: 1 });
    expect(foreign.status).toBe(401);
    expect(foreign.raw).not.toContain(a.room.id);
    const own = await readStream(theirs.body.streamUrl, { maxBytes: 1, timeoutMs: 5000 });
    expect(own.status).toBe(200);
  });

  it('rejects bad input with the envelope, never a 500', async () => {
    const empty = await say('   ');
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('validation_error');
    expect((await say('hi', { waitSeconds: 999 })).status).toBe(400);
    expect((await suite.api.post('/rooms', { name: 'a:b' })).status).toBe(400);
    const opened = await openRoom('bad-resume');
    const res = await readStream(opened.streamUrl, { lastEventId: -1 as unknown as number });
    expect(res.status).toBe(400);
  });

  it('over MCP (the SDK client): prompt_agent answers the reply, list_rooms and get_room_messages read it back', async () => {
    await useFakeModel();
    fake.script({ chunks: ['Hello ', 'over MCP.'] });
    const mcpUrl = `${new URL(suite.server.baseUrl).origin}/mcp/agents/${suite.team.agentId}`;
    const client = await mcpClient(mcpUrl, suite.team.token, { 'x-team-slug': suite.team.slug });
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['prompt_agent', 'list_rooms', 'get_room_messages']));
    const answer = await ok(client, 'prompt_agent', { message: 'Hi there' });
    expect(answer).toMatchObject({ status: 'completed', reply: 'Hello over MCP.', streamUrl: null });
    const rooms = await ok(client, 'list_rooms', { agentId: suite.team.agentId, limit: 100 });
    expect(rooms.data.map((r: any) => r.id)).toContain(answer.roomId);
    const newest = await ok(client, 'get_room_messages', { roomId: answer.roomId, order: 'desc', limit: 1 });
    expect(newest.data.map((m: any) => [m.role, m.content])).toEqual([['assistant', 'Hello over MCP.']]);
    const before = await ok(client, 'get_room_messages', {
      roomId: answer.roomId,
      order: 'desc',
      limit: 1,
      cursor: newest.pagination.nextCursor,
    });
    expect(before.data.map((m: any) => [m.role, m.content])).toEqual([['user', 'Hi there']]);

    // Not ready within waitSeconds: the turn so far, with a stream URL whose key works.
    fake.script({ text: 'Slow answer', firstTokenDelayMs: 1500 });
    const pending = await ok(client, 'prompt_agent', {
      message: 'Take your time',
      roomId: answer.roomId,
      waitSeconds: 0,
    });
    expect(pending.status).toMatch(/queued|running/);
    const { events } = await readStream(pending.streamUrl, {
      until: (e) => e.type === 'turn.completed' && e.data.turnId === pending.turnId,
    });
    expect(events.at(-1)!.data).toMatchObject({ turnId: pending.turnId, reply: 'Slow answer' });

    expect((await failing(client, 'get_room_messages', { roomId: 'rm_nope' })).code).toBe('not_found');
    expect((await failing(client, 'prompt_agent', { message: '' })).code).toBe('validation_error');
    await client.close();
  });
});
