import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { FakeModelServer, startModelServer } from '../fakes/modelServer';
import { newTeam, useApiSuite } from '../support/helpers';
import { failing, mcpClient, ok } from '../support/mcpHelpers';
import { TOOLS } from '../../services/catalog/features';
import type { ToolCall } from '../../services/catalog/tool';

/**
 * The Studio (issue 16 § 6, docs/STUDIO.md) through the MCP SDK client: a brief, a production run
 * by the workflow studio-produce-<sessionId>:<n> on the shared worker, a long-poll, an export as
 * team media and an artifact. The agent's model is the fake OpenAI-compatible server over HTTP.
 */
describe('Studio', () => {
  const suite = useApiSuite('studio');
  let mcp: Client;
  let fake: FakeModelServer;

  beforeAll(async () => {
    fake = await startModelServer();
    mcp = await mcpClient(suite.server.ctx.config.mcpEndpoint, suite.team.token, {
      'x-team-slug': suite.team.slug,
    });
    await suite.api.call('PUT', '/apps/artifacts');
  });
  afterAll(async () => {
    await mcp?.close();
    await fake?.close();
  });
  beforeEach(() => fake.reset());

  const setModel = (baseUrl: string | null) =>
    suite.api.call('PATCH', `/agents/${suite.team.agentId}`, {
      model: { baseUrl, name: baseUrl ? 'fake-model' : null },
    });
  const waitDone = async (sessionId: string, n?: number) => {
    const answer = await ok(mcp, 'studio_wait', { sessionId, ...(n ? { n } : {}), timeoutSeconds: 25 });
    expect(answer.done).toBe(true);
    return answer.production;
  };

  it('offline: an honest placeholder that says no model is configured, exported once as media and an artifact', async () => {
    await setModel(null);
    const sent = await ok(mcp, 'studio_send', {
      message: 'A one-page proposal for Harbour Bakery: a new website, launch in March, budget 8k.',
      title: 'Harbour Bakery proposal',
    });
    expect(sent).toMatchObject({
      created: true,
      session: { id: expect.stringMatching(/^ss_/), agentId: suite.team.agentId, title: 'Harbour Bakery proposal' },
      message: { seq: 1 },
    });
    const sessionId = sent.session.id;
    const produced = await ok(mcp, 'studio_produce', { sessionId });
    expect(produced).toMatchObject({
      id: `${sessionId}:1`,
      n: 1,
      status: 'queued',
      started: true,
      workflowId: `studio-produce-${sessionId}:1`,
    });
    const done = await waitDone(sessionId);
    expect(done).toMatchObject({ status: 'succeeded', generated: false, model: 'offline' });
    expect(done.result).toContain('Placeholder: nothing was generated');
    expect(done.result).toContain('No model is configured');
    expect(done.result).toContain('> A one-page proposal for Harbour Bakery');
    // Nothing new: asking again answers the same production.
    expect(await ok(mcp, 'studio_produce', { sessionId })).toMatchObject({ n: 1, started: false });

    const exported = await ok(mcp, 'studio_export', { sessionId, type: 'offer' });
    expect(exported).toMatchObject({
      exported: true,
      artifact: { title: 'Harbour Bakery proposal', type: 'offer', status: 'draft' },
      media: { filename: 'harbour-bakery-proposal.md', contentType: 'text/markdown' },
      production: { n: 1 },
    });
    expect(exported.artifact.media.map((m: any) => m.id)).toEqual([exported.media.id]);
    const file = await fetch(`${suite.server.baseUrl}/media/${exported.media.id}/content`, {
      headers: { authorization: `Bearer ${suite.team.token}`, 'x-team-slug': suite.team.slug },
    });
    expect(await file.text()).toBe(done.result);
    const again = await ok(mcp, 'studio_export', { sessionId });
    expect(again).toMatchObject({ exported: false, artifact: { id: exported.artifact.id } });
    expect((await suite.api.get(`/artifacts?ids=${exported.artifact.id}`)).body.data).toHaveLength(1);
  });

  it("with the agent's model: the brief goes to the model, a grown brief revises the earlier draft", async () => {
    await setModel(fake.url);
    const sent = await ok(mcp, 'studio_send', { message: 'Concept for a spring campaign for Harbour Bakery.' });
    const sessionId = sent.session.id;
    // The same message resent (a lost answer) is added once.
    expect((await ok(mcp, 'studio_send', { sessionId, message: sent.message.content })).message.seq).toBe(1);
    fake.script({
      chunks: ['# Spring ', 'at the Harbour\n\n', 'Fresh bread, fresh start.'],
      usage: { promptTokens: 120, completionTokens: 9 },
    });
    await ok(mcp, 'studio_produce', { sessionId });
    const first = await waitDone(sessionId);
    expect(first).toMatchObject({
      status: 'succeeded',
      generated: true,
      model: `fake-model@${fake.url}`,
      result: '# Spring at the Harbour\n\nFresh bread, fresh start.',
      promptTokens: 120,
      completionTokens: 9,
    });
    const request = fake.requests[0].body;
    expect(request.model).toBe('fake-model');
    expect(request.tools ?? []).toEqual([]);
    expect(request.messages[0].role).toBe('system');
    expect(request.messages.slice(1).map((m) => [m.role, m.content])).toEqual([
      ['user', 'Concept for a spring campaign for Harbour Bakery.'],
      ['user', 'Write the deliverable now.'],
    ]);

    await ok(mcp, 'studio_send', { sessionId, message: 'Mention the sourdough workshop on 12 April.' });
    fake.script({ text: '# Spring at the Harbour\n\nSourdough workshop, 12 April.' });
    expect(await ok(mcp, 'studio_produce', { sessionId, instructions: 'Keep it under 50 words.' })).toMatchObject({
      n: 2,
      throughSeq: 2,
    });
    expect(await waitDone(sessionId, 2)).toMatchObject({ status: 'succeeded', n: 2, generated: true });
    expect(fake.requests[1].body.messages.slice(1).map((m) => [m.role, m.content])).toEqual([
      ['user', 'Concept for a spring campaign for Harbour Bakery.'],
      ['assistant', first.result],
      ['user', 'Mention the sourdough workshop on 12 April.'],
      ['user', 'Keep it under 50 words.'],
    ]);
  });

  it('a model that refuses fails the production with its error; a failed one cannot be exported, a new produce retries', async () => {
    await setModel(fake.url);
    const sessionId = (await ok(mcp, 'studio_send', { message: 'An update for the client.' })).session.id;
    fake.script({ status: 401, errorMessage: 'bad key' });
    await ok(mcp, 'studio_produce', { sessionId });
    const failed = await waitDone(sessionId);
    expect(failed).toMatchObject({ status: 'failed', error: { error: { code: 'model_error' } } });
    expect(await failing(mcp, 'studio_export', { sessionId })).toMatchObject({ code: 'invalid_state' });
    fake.script({ text: 'The update.' });
    expect(await ok(mcp, 'studio_produce', { sessionId })).toMatchObject({ n: 2, started: true });
    expect(await waitDone(sessionId)).toMatchObject({ n: 2, status: 'succeeded', result: 'The update.' });
  });

  it('bad input is the error envelope; another team sees nothing of a session', async () => {
    expect(await failing(mcp, 'studio_send', { message: '   ' })).toMatchObject({ code: 'validation_error' });
    expect(await failing(mcp, 'studio_wait', { sessionId: 'ss_nope', timeoutSeconds: 99 })).toMatchObject({
      code: 'validation_error',
    });
    expect(await failing(mcp, 'studio_produce', { sessionId: 'ss_nope' })).toMatchObject({ code: 'not_found' });
    const sessionId = (await ok(mcp, 'studio_send', { message: 'Ours only.' })).session.id;
    expect(await failing(mcp, 'studio_wait', { sessionId })).toMatchObject({ code: 'not_found' });

    const other = await newTeam(suite.db, 'studio-other');
    const theirs = await mcpClient(suite.server.ctx.config.mcpEndpoint, other.token, {
      'x-team-slug': other.slug,
    });
    for (const name of ['studio_produce', 'studio_wait', 'studio_export'])
      expect(await failing(theirs, name, { sessionId })).toMatchObject({ code: 'not_found' });
    expect(await failing(theirs, 'studio_send', { sessionId, message: 'Theirs?' })).toMatchObject({
      code: 'not_found',
    });
    await theirs.close();
  });

  it("an agent's turn sees only its own agent's sessions: another agent's is 404", async () => {
    const sessionId = (await ok(mcp, 'studio_send', { message: 'For the first agent only.' })).session.id;
    await setModel(null);
    await ok(mcp, 'studio_produce', { sessionId });
    expect((await waitDone(sessionId)).status).toBe('succeeded');
    const [other] = await suite
      .db('agents')
      .insert({ team_id: suite.team.teamId, name: 'Other', slug: `other-${Date.now()}` })
      .returning('id');
    const team = await suite.db('teams').where({ id: suite.team.teamId }).first('id', 'slug', 'plan');
    const asAgent = (agentId: string) =>
      ({
        ctx: suite.server.ctx,
        team,
        agentId,
        principal: { kind: 'agent', userId: suite.team.userId, credentialId: 'turn', agentId, scopes: ['mcp:use'] },
        installed: new Set(['core']),
      }) as unknown as ToolCall;
    const run = async (call: ToolCall, name: string, args: Record<string, unknown>) => {
      const t = TOOLS.find((x) => x.name === name)!;
      return t.run(call, t.input.parse(args));
    };
    for (const name of ['studio_produce', 'studio_wait', 'studio_export'])
      await expect(run(asAgent(other.id), name, { sessionId })).rejects.toMatchObject({
        status: 404,
      });
    await expect(run(asAgent(other.id), 'studio_send', { sessionId, message: 'Mine now?' })).rejects.toMatchObject({
      status: 404,
    });
    // The session's own agent goes on with it.
    const sent = (await run(asAgent(suite.team.agentId), 'studio_send', { sessionId, message: 'More.' })) as any;
    expect(sent.session.messages).toHaveLength(2);
  });
});
