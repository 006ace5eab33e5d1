import { TemporalGateway } from '../../temporal/client';

/**
 * A request that waits a while for a workflow's result (a delivery's send, a room's turn) answers
 * "still running" when the wait runs out, never a 500. On the real server, a long poll cut at its
 * deadline ends now and then in CANCELLED rather than DEADLINE_EXCEEDED (CI met one: POST
 * /v1/artifacts/deliver answered 500); about one wait in twenty-five did, so fifty waits meet it.
 */
describe('waiting up to a deadline for a workflow that is still running', () => {
  const taskQueue = `nobody-polls-${process.pid}`;
  const temporal = new TemporalGateway({
    address: process.env.TEMPORAL_ADDRESS!,
    namespace: 'default',
    taskQueue,
    requestTimeoutMs: 5_000,
  });
  afterAll(() => temporal.close());

  it('answers undefined at the deadline, every time', async () => {
    const client = await temporal.client();
    const handle = await client.workflow.start('neverRuns', {
      taskQueue,
      workflowId: `still-running-${process.pid}-${Date.now()}`,
      workflowExecutionTimeout: '1 minute',
    });
    try {
      const outcomes: string[] = [];
      for (let i = 0; i < 50; i++) {
        const started = Date.now();
        try {
          const result = await temporal.waitUpTo(() => handle.result(), 200 + (i % 7));
          outcomes.push(result === undefined ? 'undefined' : `result ${JSON.stringify(result)}`);
        } catch (err) {
          outcomes.push(`threw ${(err as Error).message}: ${String((err as { cause?: Error }).cause?.message)}`);
        }
        // At its deadline, not after a hang: the deadline plus what a loaded 2-core machine adds (faults.test.ts).
        expect(Date.now() - started).toBeLessThan(3_000);
      }
      expect(outcomes.filter((o) => o !== 'undefined')).toEqual([]);
    } finally {
      await handle.terminate('test over');
    }
  });
});
