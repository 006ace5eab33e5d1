import { createAgent } from '../../services/agents/agents';
import { topMemories } from '../../services/agents/memorySearch';
import { useApiSuite } from '../support/helpers';

/**
 * An agent's memories over HTTP: writing them, and the search that fuses full text with the
 * corrections of misspelt words (the agent's vocabulary, by trigram similarity or edit distance) by
 * reciprocal rank (a typo still finds a memory; a memory both rankers find comes first; ties go to
 * importance, then recency); the vocabulary the triggers keep; what a turn loads (`topMemories`).
 */
describe("an agent's memories", () => {
  const suite = useApiSuite('memories');
  const ids: Record<string, string> = {};
  const path = () => `/agents/${suite.team.agentId}/memories`;
  const search = async (q: string, limit = 10) => {
    const res = await suite.api.get(`${path()}?q=${encodeURIComponent(q)}&limit=${limit}`);
    expect(res.status).toBe(200);
    return res.body.data as { id: string; content: string; score: number; importance: number }[];
  };

  beforeAll(async () => {
    const memories = {
      invoices: { content: 'Ada prefers invoices by email, never by post', tags: ['billing'], importance: 4 },
      company: { content: "Ada's company is Analytical Engines Ltd", importance: 3 },
      cluster: { content: 'The Kubernetes cluster runs in Frankfurt', tags: ['infra'], importance: 2 },
      tea: { content: 'Grace likes green tea in the morning', importance: 3 },
      deploys: { content: 'Deployment to production happens every Tuesday', importance: 5 },
    };
    for (const [name, body] of Object.entries(memories)) {
      const res = await suite.api.post(path(), body);
      expect(res.status).toBe(201);
      ids[name] = res.body.id;
    }
  });

  it('stores a memory with defaults (no tags, importance 3) and answers it', async () => {
    const res = await suite.api.post(path(), { content: '  Grace has a dog called Turing  ' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^mem_/),
      agentId: suite.team.agentId,
      content: 'Grace has a dog called Turing',
      tags: [],
      importance: 3,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    ids.dog = res.body.id;
  });

  it('finds a memory by its words (full text) and by a misspelled word (trigram)', async () => {
    expect((await search('green tea'))[0].id).toBe(ids.tea);
    const typo = await search('kubernets');
    expect(typo.map((m) => m.id)).toEqual([ids.cluster]);
    expect(typo[0].score).toBeGreaterThan(0);
    // Another form of a word: the full-text side has no stemming, the vocabulary side still finds it.
    expect((await search('production deploy'))[0].id).toBe(ids.deploys);
    // Two letters swapped in a short word: few trigrams in common, one typo away.
    expect((await search('mroning')).map((m) => m.id)).toEqual([ids.tea]);
    // Nothing close enough: no guess.
    expect(await search('zebra')).toEqual([]);
  });

  it('ranks first what both rankers find, then by importance when the fused scores tie', async () => {
    // 'ada' is found by full text in two memories; the misspelt "invoics" by trigram in one of them.
    const hits = await search('ada invoics');
    expect(hits[0].id).toBe(ids.invoices);
    // Only full text, and both Ada memories rank alike there: the more important one first.
    const ada = await search('ada');
    expect(ada.map((m) => m.id)).toEqual([ids.invoices, ids.company]);
    expect(ada[0].score).toBeGreaterThan(ada[1].score);
    // Found by both rankers scores above found by one.
    expect(hits[0].score).toBeGreaterThan(ada[0].score);
    // An excluded word stays excluded: the trigram side does not bring it back.
    expect((await search('ada -invoices')).map((m) => m.id)).toEqual([ids.company]);
    expect((await search('"analytical engines"')).map((m) => m.id)).toEqual([ids.company]);
  });

  it('without a query lists the top memories by importance, then the most recently written', async () => {
    const top = await suite.api.get(`${path()}?limit=3`);
    expect(top.status).toBe(200);
    expect(top.body.data.map((m: { id: string }) => m.id)).toEqual([ids.deploys, ids.invoices, ids.dog]);
    expect(top.body.data[0].score).toBe(0);
  });

  it('an update changes what the search finds', async () => {
    const res = await suite.api.call('PATCH', `${path()}/${ids.cluster}`, {
      content: 'The Nomad cluster runs in Frankfurt',
      importance: 5,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: ids.cluster,
      content: 'The Nomad cluster runs in Frankfurt',
      tags: ['infra'],
    });
    expect(await search('kubernetes')).toEqual([]);
    expect((await search('nomad')).map((m) => m.id)).toEqual([ids.cluster]);
    // Importance 5 and the latest write: now first without a query.
    expect((await suite.api.get(`${path()}?limit=1`)).body.data[0].id).toBe(ids.cluster);
  });

  it("keeps each agent's memories apart", async () => {
    const other = await createAgent(suite.db, suite.team.teamId, 'Second agent');
    const res = await suite.api.post(`/agents/${other.uuid}/memories`, { content: 'Kubernetes is banned here' });
    expect(res.status).toBe(201);
    expect((await search('kubernetes')).map((m) => m.id)).toEqual([]);
    const theirs = await suite.api.get(`/agents/${other.uuid}/memories?q=kubernetes`);
    expect(theirs.body.data.map((m: { id: string }) => m.id)).toEqual([res.body.id]);
    // Another agent's memory is not this agent's to change.
    expect((await suite.api.call('PATCH', `${path()}/${res.body.id}`, { importance: 1 })).status).toBe(404);
  });

  it('a turn loads what bears on the message and what always matters (topMemories)', async () => {
    const loaded = await topMemories(suite.db, suite.team.agentId, 'Can Ada get her invoices by email?', 3);
    expect(loaded[0].id).toBe(ids.invoices);
    // The most important memories come along even when the message does not mention them.
    expect(loaded.map((m) => m.id)).toContain(ids.cluster);
    expect(loaded).toHaveLength(3);
    // A message with nothing to search for still loads the important ones.
    const plain = await topMemories(suite.db, suite.team.agentId, '?!', 2);
    expect(plain.map((m) => m.id)).toEqual([ids.cluster, ids.deploys]);
  });

  it('forgets a memory', async () => {
    expect((await suite.api.call('DELETE', `${path()}/${ids.dog}`)).status).toBe(204);
    expect((await suite.api.call('DELETE', `${path()}/${ids.dog}`)).status).toBe(404);
    expect((await search('turing')).map((m) => m.id)).toEqual([]);
  });

  it("keeps the agent's vocabulary (memory_words) in step with its memories", async () => {
    const vocabulary = async (agentId: string) =>
      (await suite.db.raw(`SELECT word, count FROM memory_words WHERE agent_id = ? ORDER BY word`, [agentId])).rows;
    const recount = async (agentId: string) =>
      (
        await suite.db.raw(
          `SELECT w AS word, count(*)::int AS count FROM memories m, memory_vocabulary(m.search) w
           WHERE m.agent_id = ? GROUP BY w ORDER BY w`,
          [agentId],
        )
      ).rows;
    const agentId = suite.team.agentId;
    // After the creates, the update and the delete above.
    expect(await vocabulary(agentId)).toEqual(await recount(agentId));
    expect(await vocabulary(agentId)).toContainEqual({ word: 'ada', count: 2 });
    expect((await vocabulary(agentId)).map((r: { word: string }) => r.word)).not.toContain('kubernetes');
    // A statement writing many rows (as an import would), then deleting them: counted as one.
    await suite.db.raw(
      `INSERT INTO memories (id, team_id, agent_id, content)
       SELECT 'mem_bulk' || g, ?, ?, 'Ada ordered ' || g || ' crates of apples' FROM generate_series(1, 3) g`,
      [suite.team.teamId, agentId],
    );
    expect(await vocabulary(agentId)).toContainEqual({ word: 'ada', count: 5 });
    expect(await vocabulary(agentId)).toContainEqual({ word: 'apples', count: 3 });
    expect(await vocabulary(agentId)).not.toContainEqual(expect.objectContaining({ word: '2' })); // numbers: not words
    expect((await search('aples')).length).toBe(3);
    await suite.db('memories').where('id', 'like', 'mem_bulk%').delete();
    expect(await vocabulary(agentId)).toEqual(await recount(agentId));
    expect(await vocabulary(agentId)).toContainEqual({ word: 'ada', count: 2 });
  });

  it('bad input is a 400 validation_error; unknown ids are 404', async () => {
    const invalid = async (res: { status: number; body: any }, field: string) => {
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(res.body.error.details.issues.map((i: { path: string }) => i.path)).toContain(field);
    };
    await invalid(await suite.api.post(path(), { content: '   ' }), 'content');
    await invalid(await suite.api.post(path(), { content: 'x', importance: 9 }), 'importance');
    await invalid(await suite.api.post(path(), { content: 'x', tags: 'billing' }), 'tags');
    await invalid(await suite.api.post(path(), { content: 'x', colour: 'red' }), '');
    await invalid(await suite.api.post(path(), { content: 'x'.repeat(4001) }), 'content');
    await invalid(await suite.api.call('PATCH', `${path()}/${ids.tea}`, {}), '');
    await invalid(await suite.api.get(`${path()}?limit=0`), 'limit');
    await invalid(await suite.api.get(`${path()}?q=${'x'.repeat(501)}`), 'q');
    // Search syntax is never an error: operators, quotes and punctuation are just text.
    for (const q of ['"unclosed', '-', 'a & b | !c', "o'brien", '((', '%_\\']) expect(await search(q)).toBeDefined();
    expect((await suite.api.call('PATCH', `${path()}/mem_nope`, { importance: 2 })).status).toBe(404);
    for (const agent of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const res = await suite.api.get(`/agents/${agent}/memories`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });
});
