import { createWebhookActivities } from '../../services/webhooks/activities';
import { loadConfig } from '../../config';
import { createLogger } from '../../logger';
import { webhookDeliveryId } from '../../services/events/dispatcher';
import { recordEvent } from '../../services/events/outbox';
import { buildAppContext } from '../../services/platform/context';
import { createWebhookEndpoint } from '../../services/webhooks/endpoints';
import { updateWebhookSettings } from '../../services/webhooks/settings';
import {
  webhookDeliveryWorkflowId,
  webhookDeliveryWorkflowName,
  type WebhookDeliveryInput,
  type WebhookDeliveryResult,
} from '../../workflows/contracts/webhookDelivery';
import { FakeWebhookReceiver } from '../fakes/webhookReceiver';
import { recordHistory, useWorkflowSuite } from '../support/helpers';

/**
 * The per-delivery workflow with a team's retry settings in its start args, on the Temporal test
 * environment with its real activity, Postgres and a real receiver: the schedule it started with
 * holds whatever the team's settings say meanwhile. RECORD_HISTORIES=1 saves its replay history.
 */
describe('webhookDeliveryWorkflow with retry settings', () => {
  const taskQueue = 'webhook-retry-settings-unit';
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  let receiver: FakeWebhookReceiver;
  const suite = useWorkflowSuite('wfretry', taskQueue, (db) => {
    const appContext = buildAppContext(config, db, createLogger('silent', 'worker'));
    return createWebhookActivities({ db, secretBox: appContext.secretBox, appContext });
  });
  beforeAll(async () => {
    receiver = await new FakeWebhookReceiver().start();
  });
  afterAll(async () => {
    await receiver?.stop();
  });

  /**
   * An endpoint and one event's delivery to it, committed with the event dispatched and the
   * delivery started (as the batch test does), so the shared worker's dispatcher leaves it alone.
   */
  async function delivery(path: string): Promise<string> {
    const appContext = buildAppContext(config, suite.db, createLogger('silent', 'worker'));
    const ep = await createWebhookEndpoint(appContext, suite.team.teamId, { url: receiver.url(path) });
    receiver.setSecret(path, ep.secret);
    return suite.db.transaction(async (trx) => {
      const eventId = await recordEvent(trx, {
        teamId: suite.team.teamId,
        type: 'contact.created',
        subject: 'ct_r',
        data: { path },
      });
      await trx('platform_events').where({ id: eventId }).update({ dispatched_at: trx.fn.now() });
      const id = webhookDeliveryId(eventId, ep.id);
      await trx('webhook_deliveries').insert({
        id,
        team_id: suite.team.teamId,
        endpoint_id: ep.id,
        event_id: eventId,
        event_type: 'contact.created',
        workflow_started_at: trx.fn.now(),
      });
      return id;
    });
  }

  it('started with maxAttempts 3 and waits [1, 2], it makes attempts 2 and 3 after those waits and fails, though the team changed its settings since', async () => {
    const deliveryId = await delivery('/wf-custom');
    // The team's settings now differ from those the workflow starts with: the start args win.
    await updateWebhookSettings(suite.db, suite.team.teamId, { maxAttempts: 6, retryDelaysSeconds: [1] }, null);
    receiver.failWith503();
    try {
      const input: WebhookDeliveryInput = {
        deliveryId,
        firstAttempt: 2,
        retry: { maxAttempts: 3, retryDelaysSeconds: [1, 2] },
      };
      const started = Date.now();
      const result = (await suite.env.client.workflow.execute(webhookDeliveryWorkflowName, {
        workflowId: webhookDeliveryWorkflowId(deliveryId),
        taskQueue,
        args: [input],
      })) as WebhookDeliveryResult;
      expect(result).toEqual({ status: 'failed', attempts: 3 });
      const attempts = await suite.db('webhook_attempts').where({ delivery_id: deliveryId }).orderBy('attempt');
      expect(attempts.map((a) => [a.attempt, a.status_code])).toEqual([
        [2, 503],
        [3, 503],
      ]);
      expect(attempts[0].created_at.getTime() - started).toBeGreaterThanOrEqual(900);
      expect(attempts[1].created_at.getTime() - attempts[0].created_at.getTime()).toBeGreaterThanOrEqual(1900);
      const row = await suite.db('webhook_deliveries').where({ id: deliveryId }).first();
      expect(row).toMatchObject({ status: 'failed', attempts: 3, next_attempt_at: null });
      recordHistory(suite.env, 'webhook-delivery-retry-settings', webhookDeliveryWorkflowId(deliveryId));
    } finally {
      await receiver.recover();
    }
  });
});
