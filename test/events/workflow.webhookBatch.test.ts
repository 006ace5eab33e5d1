import { Worker } from '@temporalio/worker';
import { createWebhookActivities, createWebhookBatchActivities } from '../../services/webhooks/activities';
import { loadConfig } from '../../config';
import type { Db } from '../../db/knex';
import { createLogger } from '../../logger';
import { webhookDeliveryId } from '../../services/events/dispatcher';
import { recordEvent } from '../../services/events/outbox';
import { buildAppContext } from '../../services/platform/context';
import { createWebhookEndpoint } from '../../services/webhooks/endpoints';
import {
  webhookBatchWorkflowId,
  webhookBatchWorkflowName,
  webhookTaskQueue,
  type WebhookBatchResult,
} from '../../workflows/contracts/webhookBatch';
import { webhookDeliveryWorkflowId, type WebhookDeliveryResult } from '../../workflows/contracts/webhookDelivery';
import { BusinessIdKey, JobTypeKey, TeamSlugKey } from '../../workflows/contracts/searchAttributeKeys';
import { FakeWebhookReceiver } from '../fakes/webhookReceiver';
import { recordHistory, sleep, useWorkflowSuite } from '../support/helpers';

/**
 * The batch workflow on the Temporal test environment, with its real activities (the batch one on
 * its own task queue, as the worker runs it), Postgres and real receivers. RECORD_HISTORIES=1
 * saves the replay histories.
 */
describe('webhookBatchWorkflow on the Temporal test environment', () => {
  const taskQueue = 'webhook-batch-unit';
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  const deps = (db: Db) => {
    const appContext = buildAppContext(config, db, createLogger('silent', 'worker'));
    return { db, secretBox: appContext.secretBox, appContext };
  };
  let healthy: FakeWebhookReceiver;
  let failing: FakeWebhookReceiver;
  let batchWorker: Worker | undefined;
  let batchRun: Promise<void> | undefined;
  // Declared before the suite's own: it runs first, while the test environment is still up.
  afterAll(async () => {
    batchWorker?.shutdown();
    await batchRun;
    await healthy?.stop();
    await failing?.stop();
  });
  const suite = useWorkflowSuite('wfbatch', taskQueue, (db) => createWebhookActivities(deps(db)));
  beforeAll(async () => {
    healthy = await new FakeWebhookReceiver().start();
    failing = await new FakeWebhookReceiver().start();
    batchWorker = await Worker.create({
      connection: suite.env.nativeConnection,
      taskQueue: webhookTaskQueue(taskQueue),
      activities: createWebhookBatchActivities(deps(suite.db)),
    });
    batchRun = batchWorker.run();
  });

  async function endpoint(receiver: FakeWebhookReceiver, path: string): Promise<string> {
    const ep = await createWebhookEndpoint(
      buildAppContext(config, suite.db, createLogger('silent', 'worker')),
      suite.team.teamId,
      {
        url: receiver.url(path),
      },
    );
    receiver.setSecret(path, ep.secret);
    return ep.id;
  }

  /**
   * `count` events, each with a delivery to every endpoint, all in one batch as the dispatcher
   * makes it, committed with the events marked dispatched and the deliveries started (so the shared
   * worker's dispatcher leaves them alone). Answers the batch and the delivery ids per endpoint.
   */
  async function batchOf(endpointIds: string[], count: number) {
    const batchId = `whb_test_${Date.now()}`;
    const ids = new Map(endpointIds.map((id) => [id, [] as string[]]));
    await suite.db.transaction(async (trx) => {
      for (let i = 0; i < count; i++) {
        const eventId = await recordEvent(trx, {
          teamId: suite.team.teamId,
          type: 'contact.created',
          subject: `ct_${i}`,
          data: { contact: { id: `ct_${i}` } },
        });
        await trx('platform_events').where({ id: eventId }).update({ dispatched_at: trx.fn.now() });
        for (const endpointId of endpointIds) {
          const id = webhookDeliveryId(eventId, endpointId);
          ids.get(endpointId)!.push(id);
          await trx('webhook_deliveries').insert({
            id,
            team_id: suite.team.teamId,
            endpoint_id: endpointId,
            event_id: eventId,
            event_type: 'contact.created',
            batch_id: batchId,
            workflow_started_at: trx.fn.now(),
          });
        }
      }
    });
    return { batchId, ids };
  }

  const sorted = (values: string[]) => [...values].sort();

  it('one batch to a healthy endpoint, one answering 503 and a disabled one: the healthy one gets each event once, the disabled one nothing, the failed ones go on at attempt 2 with the same webhook-id', async () => {
    const ok = await endpoint(healthy, '/ok');
    const bad = await endpoint(failing, '/bad');
    const off = await endpoint(healthy, '/off');
    await suite.db('webhook_endpoints').where({ id: off }).update({ enabled: false });
    failing.failWith503();
    const { batchId, ids } = await batchOf([ok, bad, off], 20);

    const result = (await suite.env.client.workflow.execute(webhookBatchWorkflowName, {
      workflowId: webhookBatchWorkflowId(batchId),
      taskQueue,
      args: [{ batchId }],
      // As the dispatcher starts it (webhookBatchStart): the team of its deliveries.
      typedSearchAttributes: [{ key: TeamSlugKey, value: suite.team.slug }],
    })) as WebhookBatchResult;
    expect(result).toEqual({ retrying: 20 });

    expect(sorted(healthy.forPath('/ok').map((r) => r.id))).toEqual(sorted(ids.get(ok)!));
    expect(healthy.forPath('/off')).toEqual([]);
    expect(failing.refused).toBe(20);
    const rows = async (endpointId: string) => suite.db('webhook_deliveries').where({ endpoint_id: endpointId });
    expect((await rows(ok)).every((d) => d.status === 'delivered' && d.attempts === 1)).toBe(true);
    expect(
      (await rows(off)).every(
        (d) => d.status === 'failed' && d.attempts === 1 && d.last_error === 'the endpoint is disabled',
      ),
    ).toBe(true);
    expect(
      (await rows(bad)).every(
        (d) => d.status === 'pending' && d.attempts === 1 && d.last_status_code === 503 && d.next_attempt_at,
      ),
    ).toBe(true);

    // Each failed delivery has its own workflow, which makes attempt 2 after the first wait (5 s).
    await failing.recover();
    await failing.waitFor(() => failing.distinctIds('/bad').length >= 20, 30_000);
    expect(sorted(failing.forPath('/bad').map((r) => r.id))).toEqual(sorted(ids.get(bad)!));
    const first = ids.get(bad)![0];
    const child = suite.env.client.workflow.getHandle(webhookDeliveryWorkflowId(first));
    expect((await child.result()) as WebhookDeliveryResult).toEqual({ status: 'delivered', attempts: 2 });
    // The delivery's own workflow carries its batch's team, what and which id, for the Temporal UI.
    const attributes = (await child.describe()).typedSearchAttributes;
    expect([attributes.get(TeamSlugKey), attributes.get(JobTypeKey), attributes.get(BusinessIdKey)]).toEqual([
      suite.team.slug,
      'webhook.delivery',
      first,
    ]);
    const attempts = await suite.db('webhook_attempts').where({ delivery_id: first }).orderBy('attempt');
    expect(attempts.map((a) => [a.attempt, a.status_code])).toEqual([
      [1, 503],
      [2, 204],
    ]);
    while ((await rows(bad)).some((d) => d.status !== 'delivered')) await sleep(200);
    recordHistory(suite.env, 'webhook-batch-with-team', webhookBatchWorkflowId(batchId));
    recordHistory(suite.env, 'webhook-delivery-after-batch', webhookDeliveryWorkflowId(first));
  });
});
