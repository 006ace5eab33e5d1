import { FakeModelServer, startModelServer } from '../fakes/modelServer';
import { useApiSuite } from '../support/helpers';
import { readStream, StreamEvent } from '../support/sse';

/**
 * A client on a bad network: it drops the connection at random points (mid-event included) and
 * reconnects with Last-Event-ID, again and again, while the agent streams a long reply. What it
 * reassembles must be the reply, byte for byte, with every event once and in order.
 */
describe('room stream: reconnecting with Last-Event-ID', () => {
  const suite = useApiSuite('reconnect');
  let fake: FakeModelServer;
  beforeAll(async () => {
    fake = await startModelServer();
    await suite.api.call('PATCH', `/agents/${suite.team.agentId}`, { model: { baseUrl: fake.url, name: 'fake' } });
  });
  afterAll(() => fake?.close());

  it('reassembles the reply byte for byte across 200+ random disconnects', async () => {
    const words = Array.from({ length: 300 }, (_, i) => `w${i}${i % 7 === 0 ? '✓' : ''} `);
    fake.script({ chunks: words, chunkDelayMs: 25 });
    const opened = (await suite.api.post('/rooms', { name: 'flaky' })).body;
    const posted = await suite.api.post(`/agents/${suite.team.agentId}/messages`, {
      message: 'Tell me a long story',
      roomId: opened.room.id,
      waitSeconds: 0,
    });
    expect(posted.status).toBe(202);

    // A seeded generator, so a failure can be replayed.
    let seed = 20261123;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;

    const received: StreamEvent[] = [];
    let lastEventId = 0;
    let reconnects = 0;
    let completed = false;
    while (!completed) {
      const cut = random() < 0.5 ? { maxBytes: 1 + Math.floor(random() * 100) } : { maxEvents: 1 };
      const read = await readStream(opened.streamUrl, {
        lastEventId,
        ...cut,
        until: (e) => e.type === 'turn.completed',
        timeoutMs: 5_000,
      });
      expect(read.status).toBe(200);
      for (const event of read.events) {
        received.push(event);
        lastEventId = event.id;
        if (event.type === 'turn.completed') completed = true;
      }
      reconnects++;
      if (reconnects > 5_000) throw new Error('the stream never completed');
    }

    expect(reconnects).toBeGreaterThanOrEqual(200);
    expect(received.map((e) => e.id)).toEqual(received.map((_, i) => i + 1));
    let text = '';
    for (const event of received) {
      if (event.type === 'message.reset') text = '';
      if (event.type === 'message.delta') text += event.data.text;
    }
    const expected = words.join('');
    expect(text).toBe(expected);
    expect(received.find((e) => e.type === 'message.completed')!.data.content).toBe(expected);
    expect(received.at(-1)!.data.reply).toBe(expected);
  });
});
