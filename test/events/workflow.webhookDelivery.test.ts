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
import { recordHistory, useWorkflowSuite } from '../support/helpers';

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
    // The event, its fan-out and the delivery marked started commit together: the dispatchers of
    // other suites sharing this database (with workers of their own) never see this delivery
    // unstarted, so none sends it in a batch beside the workflow under test.
    const deliveryId = await suite.db.transaction(async (trx) => {
      const eventId = await recordEvent(trx, {
        teamId: suite.team.teamId,
        type: 'contact.created',
        subject: 'ct_x',
        data: { path },
      });
      while ((await fanOutEvents(trx)) > 0);
      const row = await trx('webhook_deliveries').where({ event_id: eventId, endpoint_id: ep.id }).first('id');
      if (!row) throw new Error(`event ${eventId} was not fanned out to endpoint ${ep.id}`);
      await trx('webhook_deliveries').where({ id: row.id }).update({ workflow_started_at: trx.fn.now() });
      return row.id as string;
    });
    return { deliveryId, endpointId: ep.id };
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
