import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { characterOf } from '../../services/agents/character';
import { knowledgeChunks } from '../../services/agents/documents';
import { relevantSkills } from '../../services/agents/skills';
import { apiClient, newTeam, useApiSuite, waitForJob } from '../support/helpers';
import { failing, mcpClient, ok } from '../support/mcpHelpers';

/**
 * Skills, knowledge documents and the character of an agent, over HTTP and as MCP tools, and the
 * retrieval functions a turn calls (`relevantSkills`, `knowledgeChunks`, `characterOf`).
 */
describe("an agent's skills, documents and character", () => {
  const suite = useApiSuite('agent-knowledge');
  const agentPath = (rest: string) => `/agents/${suite.team.agentId}${rest}`;
  const expectInvalid = (res: { status: number; body: any }, field: string) => {
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.issues.map((i: { path: string }) => i.path)).toContain(field);
  };

  describe('skills', () => {
    const invoice = {
      name: 'write-invoice',
      description: 'When a client asks for an invoice or a bill',
      instructions: 'Collect the order lines, then create the invoice as an artifact of type file.',
    };
    const greeting = { name: 'greet-visitors', description: 'When someone says hello', instructions: 'Greet warmly.' };
    const ids: Record<string, string> = {};

    it('creates, lists, updates and deletes skills; a name is unique per agent (409 conflict)', async () => {
      for (const skill of [invoice, greeting]) {
        const res = await suite.api.post(agentPath('/skills'), skill);
        expect(res.status).toBe(201);
        expect(res.body).toEqual({
          id: expect.stringMatching(/^skl_/),
          agentId: suite.team.agentId,
          ...skill,
          createdAt: expect.any(String),
          updatedAt: expect.any(String),
        });
        ids[skill.name] = res.body.id;
      }
      const duplicate = await suite.api.post(agentPath('/skills'), { ...invoice, description: 'again' });
      expect(duplicate.status).toBe(409);
      expect(duplicate.body.error).toMatchObject({ code: 'conflict', details: { skillId: ids['write-invoice'] } });

      const page = await suite.api.get(agentPath('/skills?limit=1'));
      expect(page.body.data.map((s: { id: string }) => s.id)).toEqual([ids['write-invoice']]);
      const next = await suite.api.get(agentPath(`/skills?limit=1&cursor=${page.body.pagination.nextCursor}`));
      expect(next.body.data.map((s: { id: string }) => s.id)).toEqual([ids['greet-visitors']]);

      const renamed = await suite.api.call('PATCH', agentPath(`/skills/${ids['greet-visitors']}`), {
        name: 'welcome-visitors',
      });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toMatchObject({ name: 'welcome-visitors', description: greeting.description });
      const taken = await suite.api.call('PATCH', agentPath(`/skills/${ids['greet-visitors']}`), {
        name: 'write-invoice',
      });
      expect(taken.status).toBe(409);
      expect(taken.body.error.code).toBe('conflict');

      expect((await suite.api.call('DELETE', agentPath(`/skills/${ids['greet-visitors']}`))).status).toBe(204);
      expect((await suite.api.call('DELETE', agentPath(`/skills/${ids['greet-visitors']}`))).status).toBe(404);
      expect((await suite.api.get(agentPath('/skills'))).body.data.map((s: { name: string }) => s.name)).toEqual([
        'write-invoice',
      ]);
    });

    it('a turn loads the skills whose name or description match the message, typos and word forms included', async () => {
      await suite.api.post(agentPath('/skills'), greeting);
      const forInvoices = await relevantSkills(suite.db, suite.team.agentId, 'Please send the invoices to Ada', 3);
      expect(forInvoices.map((s) => s.name)).toEqual(['write-invoice']);
      expect(forInvoices[0]).toMatchObject({ instructions: invoice.instructions, score: expect.any(Number) });
      expect((await relevantSkills(suite.db, suite.team.agentId, 'hello there', 3)).map((s) => s.name)).toEqual([
        'greet-visitors',
      ]);
      expect(await relevantSkills(suite.db, suite.team.agentId, 'What is the weather like?', 3)).toEqual([]);
      expect(await relevantSkills(suite.db, suite.team.agentId, '', 3)).toEqual([]);
    });

    it('bad input is a 400 validation_error', async () => {
      expectInvalid(await suite.api.post(agentPath('/skills'), { ...invoice, name: 'Write Invoice' }), 'name');
      expectInvalid(await suite.api.post(agentPath('/skills'), { ...invoice, name: '-x' }), 'name');
      expectInvalid(await suite.api.post(agentPath('/skills'), { name: 'x', description: 'y' }), 'instructions');
      expectInvalid(await suite.api.call('PATCH', agentPath(`/skills/${ids['write-invoice']}`), {}), '');
      expectInvalid(await suite.api.get(agentPath('/skills?limit=101')), 'limit');
      expect((await suite.api.call('PATCH', agentPath('/skills/skl_nope'), { description: 'x' })).status).toBe(404);
    });
  });

  describe('knowledge documents', () => {
    const text = [
      'Acme price list 2026.',
      'The premium plan costs 49 euros a month and includes priority support.',
      'The basic plan is free for teams of up to three people.',
    ].join('\n\n');

    it('create → the ingest job runs → the document is listed with its chunks, and a turn retrieves them', async () => {
      const accepted = await suite.api.post(agentPath('/documents'), { title: 'Price list', text });
      expect(accepted.status).toBe(202);
      expect(accepted.body).toEqual({ jobId: expect.any(String), status: 'queued', statusUrl: expect.any(String) });
      expect(accepted.headers.get('location')).toBe(accepted.body.statusUrl);
      const job = await waitForJob(suite.api, accepted.body.jobId);
      expect(job).toMatchObject({ type: 'knowledge.ingest', status: 'succeeded' });

      const listed = await suite.api.get(agentPath('/documents'));
      expect(listed.status).toBe(200);
      expect(listed.body.data).toEqual([
        {
          id: expect.stringMatching(/^kd_/),
          agentId: suite.team.agentId,
          title: 'Price list',
          charCount: text.length,
          chunkCount: 1,
          jobId: accepted.body.jobId,
          createdAt: expect.any(String),
        },
      ]);
      const chunks = await knowledgeChunks(suite.db, suite.team.agentId, 'How much is the premium plan?', 3);
      expect(chunks).toEqual([
        {
          documentId: listed.body.data[0].id,
          title: 'Price list',
          position: 0,
          content: expect.stringContaining('49 euros'),
          score: expect.any(Number),
        },
      ]);
      expect(await knowledgeChunks(suite.db, suite.team.agentId, 'kubernetes', 3)).toEqual([]);
    });

    it('bad input is a 400 validation_error', async () => {
      expectInvalid(await suite.api.post(agentPath('/documents'), { title: '', text }), 'title');
      expectInvalid(await suite.api.post(agentPath('/documents'), { title: 'x' }), 'text');
      expectInvalid(await suite.api.post(agentPath('/documents'), { title: 'x', text, agentId: 'y' }), '');
    });
  });

  describe('character', () => {
    it('reads, sets, keeps what is left out, clears with null; a turn reads it with characterOf', async () => {
      const empty = await suite.api.get(agentPath('/character'));
      expect(empty.status).toBe(200);
      expect(empty.body).toEqual({
        agentId: suite.team.agentId,
        name: expect.any(String),
        persona: null,
        instructions: null,
      });
      const set = await suite.api.call('PUT', agentPath('/character'), {
        persona: 'A calm studio manager.',
        instructions: 'Answer in English. Never promise dates.',
      });
      expect(set.status).toBe(200);
      expect(set.body).toMatchObject({
        persona: 'A calm studio manager.',
        instructions: 'Answer in English. Never promise dates.',
      });
      const cleared = await suite.api.call('PUT', agentPath('/character'), { instructions: null });
      expect(cleared.body).toMatchObject({ persona: 'A calm studio manager.', instructions: null });
      expect((await suite.api.get(agentPath('/character'))).body).toEqual(cleared.body);
      expect(await characterOf(suite.db, suite.team.agentId)).toEqual({
        name: empty.body.name,
        persona: 'A calm studio manager.',
        instructions: null,
      });
    });

    it('bad input is a 400 validation_error', async () => {
      expectInvalid(await suite.api.call('PUT', agentPath('/character'), { persona: 'x'.repeat(8001) }), 'persona');
      expectInvalid(await suite.api.call('PUT', agentPath('/character'), { persona: 5 }), 'persona');
      expectInvalid(await suite.api.call('PUT', agentPath('/character'), { mood: 'happy' }), '');
    });
  });

  describe('as MCP tools', () => {
    let mcp: Client;
    beforeAll(async () => {
      mcp = await mcpClient(suite.server.ctx.config.mcpEndpoint, suite.team.token);
    });
    afterAll(async () => {
      await mcp?.close();
    });
    const credits = async () => (await suite.api.get('/credits')).body.used as number;

    it('lists all ten, and each one works for the connected agent, charged 1 per read and 2 per write', async () => {
      const names = (await mcp.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(
        expect.arrayContaining([
          'create_memory',
          'update_memory',
          'search_memories',
          'list_skills',
          'create_skill',
          'update_skill',
          'delete_skill',
          'list_documents',
          'create_document',
          'character_update',
        ]),
      );
      const before = await credits();
      const memory = await ok(mcp, 'create_memory', { content: 'Lin orders paper every March', importance: 4 });
      expect(memory).toMatchObject({ id: expect.stringMatching(/^mem_/), agentId: suite.team.agentId, tags: [] });
      expect(await ok(mcp, 'update_memory', { memoryId: memory.id, tags: ['orders'] })).toMatchObject({
        content: 'Lin orders paper every March',
        tags: ['orders'],
        importance: 4,
      });
      expect(await ok(mcp, 'search_memories', { query: 'papper' })).toEqual({
        data: [expect.objectContaining({ id: memory.id })],
        pagination: { nextCursor: null, limit: 10 },
      });
      const skill = await ok(mcp, 'create_skill', {
        name: 'order-paper',
        description: 'When paper runs low',
        instructions: 'Order from Lin.',
      });
      expect(
        await ok(mcp, 'update_skill', { skillId: skill.id, instructions: 'Order from Lin, 10 boxes.' }),
      ).toMatchObject({ name: 'order-paper', instructions: 'Order from Lin, 10 boxes.' });
      expect((await ok(mcp, 'list_skills', { limit: 100 })).data.map((s: any) => s.name)).toContain('order-paper');
      expect(await ok(mcp, 'delete_skill', { skillId: skill.id })).toEqual({ deleted: skill.id });
      const job = await ok(mcp, 'create_document', { title: 'Paper', text: 'Lin sells A4 paper in boxes of 500.' });
      expect(job).toMatchObject({ jobId: expect.any(String), status: 'queued' });
      await waitForJob(suite.api, job.jobId);
      expect((await ok(mcp, 'list_documents', {})).data.map((d: any) => d.title)).toContain('Paper');
      expect(await ok(mcp, 'character_update', { persona: 'Thrifty.' })).toMatchObject({
        agentId: suite.team.agentId,
        persona: 'Thrifty.',
      });
      // Writes: create_memory, update_memory, create_skill, update_skill, delete_skill, create_document,
      // character_update (7 × 2); reads: search_memories, list_skills, list_documents (3 × 1).
      expect((await credits()) - before).toBe(17);
    });

    it("bad arguments are validation errors (and cost nothing); another team's agent is not_found", async () => {
      const before = await credits();
      expect(await failing(mcp, 'create_memory', { content: '' })).toMatchObject({ code: 'validation_error' });
      expect(await failing(mcp, 'update_memory', { memoryId: 'mem_x' })).toMatchObject({ code: 'validation_error' });
      expect(
        await failing(mcp, 'create_skill', { name: 'No Spaces', description: 'd', instructions: 'i' }),
      ).toMatchObject({ code: 'validation_error' });
      expect(await failing(mcp, 'search_memories', { limit: 0 })).toMatchObject({ code: 'validation_error' });
      expect(await failing(mcp, 'character_update', { agentId: 'nope' })).toMatchObject({ code: 'validation_error' });
      expect(await credits()).toBe(before);

      const other = await newTeam(suite.db, 'agent-knowledge-other');
      await apiClient(suite.server.baseUrl, other).post(`/agents/${other.agentId}/memories`, { content: 'B only' });
      for (const [name, args] of [
        ['search_memories', {}],
        ['create_memory', { content: 'sneaky' }],
        ['list_skills', {}],
        ['list_documents', {}],
        ['character_update', { persona: 'hijacked' }],
      ] as const)
        expect(await failing(mcp, name, { ...args, agentId: other.agentId })).toMatchObject({ code: 'not_found' });
      expect(await failing(mcp, 'update_memory', { memoryId: 'mem_nope', importance: 1 })).toMatchObject({
        code: 'not_found',
      });
      expect(
        await failing(mcp, 'create_skill', { name: 'write-invoice', description: 'd', instructions: 'i' }),
      ).toMatchObject({ code: 'conflict' });
    });
  });
});
