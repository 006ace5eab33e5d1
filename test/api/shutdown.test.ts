import net from 'node:net';
import type { Db } from '../../db/knex';
import { startTestApi, testDb } from '../support/helpers';

/**
 * An API that stops (a deploy, a scale-in) while a client holds a request open: it stops after a
 * bounded grace, not when the client lets go. Node's own bound on an unfinished request is a minute.
 */
describe('stopping the API', () => {
  let db: Db;
  beforeAll(() => {
    db = testDb();
  });
  afterAll(async () => {
    await db?.destroy();
  });

  it('cuts a request still in flight after the 10 s grace', async () => {
    const server = await startTestApi(db);
    const { port } = new URL(server.url);
    const socket = net.connect({ port: Number(port), host: '127.0.0.1' });
    const cut = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    // A request whose headers never end: the connection is busy, never idle.
    socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    await new Promise((r) => setTimeout(r, 200));

    const started = performance.now();
    await server.close();
    const tookMs = performance.now() - started;
    await cut;
    expect(tookMs).toBeGreaterThanOrEqual(9_500);
    expect(tookMs).toBeLessThan(15_000);
  }, 90_000);
});
