import { FakeModelServer, startModelServer } from '../fakes/modelServer';
import { sleep, useProviderSuite } from '../support/helpers';
import { readStream } from '../support/sse';

/**
 * A crash in the middle of a tool call: the worker running a turn is SIGKILLed while its tool's
 * write waits in Postgres; a new worker takes the turn over. The tool's write happens once, the
 * turn completes, and the room's stream has every event once, without a gap.
 */
describe('a turn survives its worker being killed mid-tool', () => {
  const taskQueue = `turn-kill-${process.pid}`;
  const suite = useProviderSuite('turnkill', { TEMPORAL_TASK_QUEUE: taskQueue });
  let fake: FakeModelServer;
  beforeAll(async () => {
    fake = await startModelServer();
    await suite.api.call('PATCH', `/agents/${suite.team.agentId}`, { model: { baseUrl: fake.url, name: 'fake' } });
  });
  afterAll(() => fake?.close());

  /** The backend of a tool call that waits for a lock on `memories`: the tool is in flight. */
  const blockedInsert = async () => {
    for (let i = 0; i < 300; i++) {
      const { rows } = await suite.db.raw(
        `SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE 'insert into "memories"%'`,
      );
      if (rows.length) return rows[0].pid as number;
      await sleep(100);
    }
    throw new Error('the tool call never reached its insert');
  };

  it('runs the tool exactly once, completes the turn, and streams without gap or duplicate', async () => {
    const first = await suite.startWorker();
    const fact = `The client prefers invoices in CHF (${Date.now()})`;
    fake.script(
      { toolCalls: [{ name: 'create_memory', arguments: { content: fact, importance: 4 } }] },
      { text: 'Noted.' },
    );
    const opened = (await suite.api.post('/rooms', { name: 'crash' })).body;

    // Hold the memories table, so the tool's insert waits: a slow tool, in flight.
    const lock = await suite.db.transaction();
    await lock.raw('LOCK TABLE memories IN SHARE MODE');
    const posted = await suite.api.post(`/agents/${suite.team.agentId}/messages`, {
      message: 'Remember that the client wants CHF invoices',
      roomId: opened.room.id,
      waitSeconds: 0,
    });
    expect(posted.status).toBe(202);
    await blockedInsert();
    await first.kill();
    await lock.rollback();

    await suite.startWorker();
    let turn: any;
    for (let i = 0; i < 600; i++) {
      turn = (await suite.api.get(`/rooms/${opened.room.id}/turns/${encodeURIComponent(posted.body.turnId)}`)).body;
      if (turn.status === 'completed' || turn.status === 'failed') break;
      await sleep(100);
    }
    expect(turn).toMatchObject({ status: 'completed', reply: { content: 'Noted.' }, steps: 2 });

    expect(await suite.db('memories').where({ content: fact })).toHaveLength(1);
    const ledger = await suite.db('tool_calls').where({ turn_id: posted.body.turnId });
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({ name: 'create_memory', status: 'succeeded' });
    expect(fake.requests).toHaveLength(2);

    const { events } = await readStream(opened.streamUrl, { until: (e) => e.type === 'turn.completed' });
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((e) => e.type === 'tool.result')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'tool.call')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'message.completed')).toHaveLength(2);
    expect(events.filter((e) => e.type === 'turn.completed')).toHaveLength(1);
    const messages = await suite.api.get(`/rooms/${opened.room.id}/messages?limit=100`);
    expect(messages.body.data.map((m: any) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });
});
