import { createHash } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Logger } from 'pino';
import type { Db } from '../../db/knex';
import type { TemporalGateway } from '../../temporal/client';
import {
  webhookDeliveryWorkflowId,
  webhookDeliveryWorkflowName,
  type WebhookDeliveryInput,
} from '../../workflows/contracts/webhookDelivery';

/**
 * The event dispatcher (docs/EVENTS.md › The outbox guarantee). Two steps, each its own
 * transaction over rows claimed with FOR UPDATE SKIP LOCKED, so any number of workers run it
 * side by side and a crash anywhere leaves rows the next pass picks up:
 *
 * 1. `fanOutEvents`: undispatched outbox rows → one delivery per subscribed, enabled endpoint
 *    (id derived from event and endpoint, inserted ON CONFLICT DO NOTHING), and the rows marked
 *    dispatched, in one commit.
 * 2. `startDeliveries`: deliveries whose workflow was not started → `webhook-delivery-<id>`
 *    started (Temporal refuses a second start of the same id, which counts as started), then
 *    marked started. A start that fails leaves the row for the next pass.
 */

/** A delivery's id, and so its `webhook-id`: the same for the same event and endpoint, whoever computes it. */
export const webhookDeliveryId = (eventId: string, endpointId: string) =>
  `whd_${createHash('sha256').update(`${eventId}\n${endpointId}`).digest('hex').slice(0, 32)}`;

/** Step 1; answers how many events it dispatched. */
export async function fanOutEvents(db: Db, batch = 200): Promise<number> {
  return db.transaction(async (trx) => {
    const events: { id: string; team_id: string; type: string }[] = await trx('platform_events')
      .whereNull('dispatched_at')
      .orderBy('seq')
      .limit(batch)
      .forUpdate()
      .skipLocked()
      .select('id', 'team_id', 'type');
    if (!events.length) return 0;
    const endpoints: { id: string; team_id: string; event_types: string[] }[] = await trx('webhook_endpoints')
      .whereIn('team_id', [...new Set(events.map((e) => e.team_id))])
      .where({ enabled: true })
      .select('id', 'team_id', 'event_types');
    const deliveries = events.flatMap((event) =>
      endpoints
        .filter((ep) => ep.team_id === event.team_id && (!ep.event_types.length || ep.event_types.includes(event.type)))
        .map((ep) => ({
          id: webhookDeliveryId(event.id, ep.id),
          team_id: event.team_id,
          endpoint_id: ep.id,
          event_id: event.id,
          event_type: event.type,
        })),
    );
    if (deliveries.length)
      await trx('webhook_deliveries').insert(deliveries).onConflict(['event_id', 'endpoint_id']).ignore();
    await trx('platform_events')
      .whereIn(
        'id',
        events.map((e) => e.id),
      )
      .update({ dispatched_at: trx.fn.now() });
    return events.length;
  });
}

/** Step 2; answers how many delivery workflows it started (or found started). */
export async function startDeliveries(db: Db, temporal: TemporalGateway, batch = 100): Promise<number> {
  return db.transaction(async (trx) => {
    const rows: { id: string }[] = await trx('webhook_deliveries')
      .whereNull('workflow_started_at')
      .orderBy('seq')
      .limit(batch)
      .forUpdate()
      .skipLocked()
      .select('id');
    if (!rows.length) return 0;
    const started: string[] = [];
    for (let i = 0; i < rows.length; i += 20) {
      const results = await Promise.allSettled(
        rows.slice(i, i + 20).map(async ({ id }) => {
          try {
            await temporal.call((client) =>
              client.workflow.start(webhookDeliveryWorkflowName, {
                workflowId: webhookDeliveryWorkflowId(id),
                taskQueue: temporal.taskQueue,
                args: [{ deliveryId: id } satisfies WebhookDeliveryInput],
              }),
            );
          } catch (err) {
            if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
          }
          return id;
        }),
      );
      for (const r of results) if (r.status === 'fulfilled') started.push(r.value);
      // Temporal is away: what did not start stays unmarked for the next pass.
      if (results.some((r) => r.status === 'rejected')) break;
    }
    if (started.length)
      await trx('webhook_deliveries').whereIn('id', started).update({ workflow_started_at: trx.fn.now() });
    return started.length;
  });
}

export interface EventDispatcher {
  /** Runs one pass now (tests, and after a burst). */
  wake(): void;
  stop(): Promise<void>;
}

/**
 * The loop a worker runs: both steps until there is nothing left, then a pause of `intervalMs`.
 * Failures (database or Temporal away) are logged and retried after a longer pause.
 */
export function startEventDispatcher(
  deps: { db: Db; temporal: TemporalGateway; logger: Logger },
  { intervalMs = 500, errorPauseMs = 3000 }: { intervalMs?: number; errorPauseMs?: number } = {},
): EventDispatcher {
  let stopped = false;
  let wakeUp: (() => void) | undefined;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const loop = (async () => {
    while (!stopped) {
      try {
        const dispatched = await fanOutEvents(deps.db);
        const started = await startDeliveries(deps.db, deps.temporal);
        if (dispatched || started) continue;
        await pause(intervalMs);
      } catch (err) {
        if (stopped) break;
        deps.logger.warn({ err }, 'event dispatcher pass failed; retrying');
        await pause(errorPauseMs);
      }
    }
  })();
  return {
    wake: () => wakeUp?.(),
    stop: async () => {
      stopped = true;
      wakeUp?.();
      await loop;
    },
  };
}
