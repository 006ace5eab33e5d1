import { FakeModelServer, startModelServer } from '../fakes/modelServer';
import { apiClient, newTeam, sleep, useApiSuite } from '../support/helpers';

/**
 * A person ends a stuck turn over HTTP (POST /rooms/{roomId}/turns/{turnId}/cancel): the room's
 * cancelTurn signal, which was the Temporal UI's before. The turn ends failed (turn_cancelled)
 * and the room answers its next message.
 */
describe('cancelling a stuck turn', () => {
  const suite = useApiSuite('room-cancel');
  let fake: FakeModelServer;
  beforeAll(async () => {
    fake = await startModelServer();
    const res = await suite.api.call('PATCH', `/agents/${suite.team.agentId}`, {
      model: { baseUrl: fake.url, name: 'fake-model' },
    });
    expect(res.status).toBe(200);
  });
  afterAll(async () => {
    await fake?.close();
  });

  const say = (message: string, extra: Record<string, unknown> = {}) =>
    suite.api.post(`/agents/${suite.team.agentId}/messages`, { message, waitSeconds: 0, ...extra });
  async function turnUntil(roomId: string, turnId: string, done: (turn: any) => boolean) {
    for (let i = 0; i < 150; i++) {
      const turn = (await suite.api.get(`/rooms/${roomId}/turns/${turnId}`)).body;
      if (done(turn)) return turn;
      await sleep(100);
    }
    throw new Error(`turn ${turnId} did not get there`);
  }

  it('the running turn ends failed with turn_cancelled, the next message is answered; a finished or foreign turn is refused', async () => {
    // The model takes a minute to say anything: the turn is stuck in its model call.
    fake.script({ text: 'far too late', firstTokenDelayMs: 60_000 }, { text: 'next one answered' });
    const stuck = (await say('Think hard')).body;
    const { roomId, turnId } = stuck;
    await turnUntil(roomId, turnId, (t) => t.status === 'running');
    const next = (await say('And now?', { roomId })).body;

    const cancel = await suite.api.post(`/rooms/${roomId}/turns/${turnId}/cancel`);
    expect([cancel.status, cancel.body.id, cancel.body.status]).toEqual([202, turnId, 'running']);
    expect(await turnUntil(roomId, turnId, (t) => t.status === 'failed')).toMatchObject({
      status: 'failed',
      error: { error: { code: 'turn_cancelled' } },
    });
    expect(await turnUntil(roomId, next.turnId, (t) => t.status === 'completed')).toMatchObject({
      reply: { content: 'next one answered' },
    });

    // Ended already: nothing to cancel.
    const again = await suite.api.post(`/rooms/${roomId}/turns/${turnId}/cancel`);
    expect([again.status, again.body.error.code, again.body.error.details]).toEqual([
      409,
      'invalid_state',
      { status: 'failed' },
    ]);
    expect((await suite.api.post(`/rooms/${roomId}/turns/tn_nope/cancel`)).status).toBe(404);
    // Another team's turn is not found, and its room goes on.
    const other = apiClient(suite.server.baseUrl, await newTeam(suite.db, 'room-cancel-other'));
    const foreign = await other.post(`/rooms/${roomId}/turns/${next.turnId}/cancel`);
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'not_found']);
  });
});
