import type { Db } from '../db/knex';
import { FakeProviderServer } from './fakes/providerServer';
import { apiClient, newTeam, sleep, startTestApi, testDb } from './helpers';
import { startWorkerProcess, WorkerProcess } from './setup/stack';

/**
 * A worker is killed (SIGKILL) while it is sending a delivery to 20 recipients, with the provider
 * slow enough that requests are in flight at the kill. A new worker finishes the delivery, and
 * every recipient got exactly one message: the provider saw repeats of the in-flight requests,
 * carrying the same idempotency key, and dropped them.
 */
describe('a worker that dies mid-send', () => {
  const taskQueue = `delivery-restart-${process.pid}`;
  let db: Db;
  let server: Awaited<ReturnType<typeof startTestApi>>;
  let fake: FakeProviderServer;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    db = testDb();
    server = await startTestApi(db, { TEMPORAL_TASK_QUEUE: taskQueue, DELIVERY_WAIT_SECONDS: '1' });
    fake = await new FakeProviderServer().start();
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await fake.stop();
    await server.close();
    await db.destroy();
  });

  it('finishes on a new worker; each recipient got exactly one message', async () => {
    const env = { TEMPORAL_TASK_QUEUE: taskQueue };
    workers.push(await startWorkerProcess(env));
    const team = await newTeam(db, 'dkill');
    const api = apiClient(server.baseUrl, team);
    await api.call('PUT', `/agents/${team.agentId}/integrations/email`, { provider: 'resend', config: { baseUrl: fake.baseUrl }, secrets: { apiKey: 'k' }, from: 'studio@acme.example' });
    const recipients = [];
    for (let i = 0; i < 20; i++) recipients.push((await api.post('/contacts', { name: `R ${i}`, email: `r${i}-${Date.now()}@example.test` })).body);
    const art = (await api.post('/artifacts', { title: 'Contract', type: 'agreement', url: 'https://example.test/c', status: 'ready' })).body;

    fake.latencyMs = 1500;
    const res = await api.post('/artifacts/deliver', { artifactIds: [art.id], message: 'Your contract', integration: 'email', contactIds: recipients.map((r) => r.id) });
    expect(res.status).toBe(202);
    // Kill while requests are in flight (they are all sent at once and each takes 1.5 s).
    while (fake.requests < 5) await sleep(50);
    await workers[0].kill();
    const requestsAtKill = fake.requests;
    workers.push(await startWorkerProcess(env));

    let execution: any;
    for (let i = 0; i < 300; i++) {
      execution = (await api.get(`/warp-executions/${res.body.executionId}`)).body;
      if (!['running', 'pending_approval'].includes(execution.status)) break;
      await sleep(250);
    }
    expect(execution.status).toBe('succeeded');
    expect(execution.result.deliveries).toHaveLength(20);
    const perRecipient = recipients.map((r) => fake.byRecipient(r.email).length);
    expect(perRecipient).toEqual(Array(20).fill(1));
    const records = await db('deliveries').where({ execution_id: res.body.executionId, status: 'sent' }).count<{ count: string }[]>('* as count');
    expect(Number(records[0].count)).toBe(20);
    process.stdout.write(`[delivery-restart] ${requestsAtKill} provider requests before the kill, ${fake.requests} in all; ` +
      `messages per recipient: all 1; repeats the provider dropped by idempotency key: ${fake.totalDuplicates()}\n`);
  });
});
