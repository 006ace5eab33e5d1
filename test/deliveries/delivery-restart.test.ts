import { apiClient, newTeam, sleep, useProviderSuite } from '../support/helpers';

/**
 * A worker is killed (SIGKILL) while it is sending a delivery to 20 recipients, with the provider
 * slow enough that requests are in flight at the kill. A new worker finishes the delivery, and
 * every recipient got exactly one message: the provider saw repeats of the in-flight requests,
 * carrying the same idempotency key, and dropped them.
 */
describe('a worker that dies mid-send', () => {
  const suite = useProviderSuite('restart', {
    TEMPORAL_TASK_QUEUE: `delivery-restart-${process.pid}`,
    DELIVERY_WAIT_SECONDS: '1',
  });

  it('finishes on a new worker; each recipient got exactly one message', async () => {
    await suite.startWorker();
    const team = await newTeam(suite.db, 'dkill');
    const api = apiClient(suite.server.baseUrl, team);
    await api.call('PUT', `/agents/${team.agentId}/integrations/email`, {
      provider: 'resend',
      config: { baseUrl: suite.fake.baseUrl },
      secrets: { apiKey: 'k' },
      from: 'studio@acme.example',
    });
    const recipients = [];
    for (let i = 0; i < 20; i++)
      recipients.push(
        (await api.post('/contacts', { name: `R ${i}`, email: `r${i}-${Date.now()}@example.test` })).body,
      );
    const art = (
      await api.post('/artifacts', {
        title: 'Contract',
        type: 'agreement',
        url: 'https://example.test/c',
        status: 'ready',
      })
    ).body;

    suite.fake.latencyMs = 1500;
    const res = await api.post('/artifacts/deliver', {
      artifactIds: [art.id],
      message: 'Your contract',
      integration: 'email',
      contactIds: recipients.map((r) => r.id),
    });
    expect(res.status).toBe(202);
    // Kill while requests are in flight (they are all sent at once and each takes 1.5 s).
    while (suite.fake.requests < 5) await sleep(50);
    await suite.workers[0].kill();
    const requestsAtKill = suite.fake.requests;
    await suite.startWorker();

    let execution: any;
    for (let i = 0; i < 300; i++) {
      execution = (await api.get(`/warp-executions/${res.body.executionId}`)).body;
      if (!['running', 'pending_approval'].includes(execution.status)) break;
      await sleep(250);
    }
    expect(execution.status).toBe('succeeded');
    expect(execution.result.deliveries).toHaveLength(20);
    const perRecipient = recipients.map((r) => suite.fake.byRecipient(r.email).length);
    expect(perRecipient).toEqual(Array(20).fill(1));
    const records = await suite
      .db('deliveries')
      .where({ execution_id: res.body.executionId, status: 'sent' })
      .count<{ count: string }[]>('* as count');
    expect(Number(records[0].count)).toBe(20);
    process.stdout.write(
      `[delivery-restart] ${requestsAtKill} provider requests before the kill, ${suite.fake.requests} in all; ` +
        `messages per recipient: all 1; repeats the provider dropped by idempotency key: ${suite.fake.totalDuplicates()}\n`,
    );
  });
});
