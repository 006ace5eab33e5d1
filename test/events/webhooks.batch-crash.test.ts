import { recordEvent } from '../../services/events/outbox';
import { ENDPOINT_UNWRITTEN } from '../../services/webhooks/batch';
import { FakeWebhookReceiver } from '../fakes/webhookReceiver';
import { apiClient, newTeam, sleep } from '../support/helpers';
import { useOwnDatabase } from '../support/ownDatabase';

/**
 * Batched first attempts across a SIGKILL, against real worker processes, with a database and a
 * task queue of its own (only the workers started here dispatch and deliver its events).
 */
describe('outbound webhooks in batches: a worker SIGKILLed mid-batch', () => {
  const taskQueue = `webhooks-batch-crash-${process.pid}`;
  const stack = useOwnDatabase('whbatch', taskQueue);
  let receiver: FakeWebhookReceiver;
  beforeAll(async () => {
    receiver = await new FakeWebhookReceiver().start();
  });
  afterAll(async () => {
    await receiver?.stop();
  });

  it(`3000 events: every one arrives verified, each webhook-id recorded once, and the receiver gets at most ${ENDPOINT_UNWRITTEN} again`, async () => {
    const EVENTS = 3000;
    const team = await newTeam(stack.db, 'wh-batch');
    const api = apiClient(stack.server.baseUrl, team);
    const created = await api.post('/webhooks/endpoints', {
      url: receiver.url('/bulk'),
      eventTypes: ['contact.created'],
    });
    expect(created.status).toBe(201);
    receiver.setSecret('/bulk', created.body.secret);
    // A receiver that takes a little time, so the kill lands with POSTs in flight.
    receiver.latencyMs = 20;

    await stack.startWorker();
    // In one commit, as a burst of sign-ups would record them.
    const contactIds = Array.from({ length: EVENTS }, (_, i) => `ct_bulk_${i}`);
    await stack.db.transaction(async (trx) => {
      for (const id of contactIds)
        await recordEvent(trx, {
          teamId: team.teamId,
          type: 'contact.created',
          subject: id,
          data: { contact: { id } },
        });
    });
    await receiver.waitFor(() => receiver.distinctIds('/bulk').length >= EVENTS / 4, 120_000);
    await stack.killWorkers();
    const atKill = receiver.distinctIds('/bulk').length;
    expect(atKill).toBeLessThan(EVENTS);

    await stack.startWorker();
    await receiver.waitFor(() => receiver.distinctIds('/bulk').length >= EVENTS, 180_000);
    const deliveries = async () => stack.db('webhook_deliveries').where({ endpoint_id: created.body.id });
    const deadline = Date.now() + 30_000;
    while ((await deliveries()).some((d) => d.status !== 'delivered') && Date.now() < deadline) await sleep(200);
    await sleep(1000);

    const got = receiver.forPath('/bulk');
    // Every event arrived (verified), under one webhook-id each.
    expect(new Set(got.map((r) => r.data.contact.id))).toEqual(new Set(contactIds));
    expect(receiver.distinctIds('/bulk')).toHaveLength(EVENTS);
    expect(new Set(got.map((r) => `${r.id} ${r.data.contact.id}`)).size).toBe(EVENTS);
    expect(receiver.refused).toBe(0);
    // The repeats: only what the killed worker had in flight or answered but not yet recorded.
    const repeats = got.length - EVENTS;
    expect(repeats).toBeLessThanOrEqual(ENDPOINT_UNWRITTEN);
    // Every delivery is one webhook-id, delivered, its first attempt recorded once (a repeat overwrites it).
    const rows = await deliveries();
    expect(rows).toHaveLength(EVENTS);
    expect(rows.every((d) => d.status === 'delivered' && d.attempts === 1)).toBe(true);
    const attempts = await stack.db('webhook_attempts').whereIn(
      'delivery_id',
      rows.map((d) => d.id),
    );
    expect(attempts).toHaveLength(EVENTS);
    expect(attempts.every((a) => a.attempt === 1 && a.status_code === 204)).toBe(true);
  });
});
