import { createWebhookActivities } from '../../services/webhooks/activities';
import { loadConfig } from '../../config';
import { createLogger } from '../../logger';
import { fanOutEvents } from '../../services/events/dispatcher';
import { recordEvent } from '../../services/events/outbox';
import { buildAppContext } from '../../services/platform/context';
import { createWebhookEndpoint } from '../../services/webhooks/endpoints';
import {
  webhookDeliveryWorkflowId,
  webhookDeliveryWorkflowName,
  type WebhookDeliveryResult,
} from '../../workflows/contracts/webhookDelivery';
import { FakeWebhookReceiver } from '../fakes/webhookReceiver';
import { recordHistory, sleep, useWorkflowSuite } from '../support/helpers';

/**
 * The per-delivery workflow on the Temporal test environment, with its real activity, Postgres
 * and a real receiver. RECORD_HISTORIES=1 saves the replay histories.
 */
describe('webhookDeliveryWorkflow on the Temporal test environment', () => {
  const taskQueue = 'webhook-delivery-unit';
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  let receiver: FakeWebhookReceiver;
  const suite = useWorkflowSuite('wfhook', taskQueue, (db) => {
    const appContext = buildAppContext(config, db, createLogger('silent', 'worker'));
    return createWebhookActivities({ db, secretBox: appContext.secretBox, appContext });
  });
  beforeAll(async () => {
    receiver = await new FakeWebhookReceiver().start();
  });
  afterAll(async () => {
    await receiver?.stop();
  });

  /** An endpoint at `path` and one event for it, fanned out into its delivery (as the dispatcher does). */
  async function delivery(path: string): Promise<{ deliveryId: string; endpointId: string }> {
    const appContext = buildAppContext(config, suite.db, createLogger('silent', 'worker'));
    const ep = await createWebhookEndpoint(appContext, suite.team.teamId, { url: receiver.url(path) });
    receiver.setSecret(path, ep.secret);
    const eventId = await suite.db.transaction((trx) =>
      recordEvent(trx, { teamId: suite.team.teamId, type: 'contact.created', subject: 'ct_x', data: { path } }),
    );
    // Other suites' events in the shared database are fanned out too; harmless (none has a worker here).
    // Another suite's dispatcher may hold this event at this moment (each skips the rows the other
    // has locked): its delivery row is then there once that dispatcher commits.
    for (let tries = 0; tries < 100; tries++) {
      while ((await fanOutEvents(suite.db)) > 0);
      const row = await suite.db('webhook_deliveries').where({ event_id: eventId, endpoint_id: ep.id }).first('id');
      if (row) return { deliveryId: row.id, endpointId: ep.id };
      await sleep(50);
    }
    throw new Error(`event ${eventId} was never fanned out to endpoint ${ep.id}`);
  }

  const run = (deliveryId: string) =>
    suite.env.client.workflow.execute(webhookDeliveryWorkflowName, {
      workflowId: webhookDeliveryWorkflowId(deliveryId),
      taskQueue,
      args: [{ deliveryId }],
    }) as Promise<WebhookDeliveryResult>;

  it('a 503 first, then delivered on the second attempt after the first wait (the same webhook-id)', async () => {
    const { deliveryId } = await delivery('/wf-retry');
    receiver.failWith503();
    setTimeout(() => void receiver.recover(), 2000);
    expect(await run(deliveryId)).toEqual({ status: 'delivered', attempts: 2 });
    expect(receiver.forPath('/wf-retry').map((r) => r.id)).toEqual([deliveryId]);
    const attempts = await suite.db('webhook_attempts').where({ delivery_id: deliveryId }).orderBy('attempt');
    expect(attempts.map((a) => a.status_code)).toEqual([503, 204]);
    recordHistory(suite.env, 'webhook-delivery-retried', webhookDeliveryWorkflowId(deliveryId));
  });

  it('an endpoint deleted before the attempt ends the workflow (gone), sending nothing', async () => {
    const { deliveryId, endpointId } = await delivery('/wf-gone');
    await suite.db('webhook_endpoints').where({ id: endpointId }).delete();
    expect(await run(deliveryId)).toEqual({ status: 'gone', attempts: 1 });
    expect(receiver.forPath('/wf-gone')).toEqual([]);
    recordHistory(suite.env, 'webhook-delivery-gone', webhookDeliveryWorkflowId(deliveryId));
  });
});
