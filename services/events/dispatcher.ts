import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Db } from '../../db/knex';
import { firstRow, statement } from '../../db/statement';
import { startOnce, type TemporalGateway } from '../../temporal/client';
import { queueInternalHookRuns, startPendingHookRuns } from '../hooks/hookRuns';
import { queueAutomationWork, startAutomationWork } from '../automations/dispatch';
import { WAITING_TO_FORM } from '../automations/cohorts';
import { WEBHOOK_BATCH_SIZE, webhookBatchStart } from '../../workflows/contracts/webhookBatch';

/**
 * The event dispatcher (docs/EVENTS.md › The outbox guarantee). Two steps, each its own
 * transaction over rows claimed with FOR UPDATE SKIP LOCKED, so any number of workers run it
 * side by side and a crash anywhere leaves rows the next pass picks up:
 *
 * 1. `fanOutEvents`: undispatched outbox rows → one delivery per subscribed, enabled endpoint
 *    (id derived from event and endpoint, inserted ON CONFLICT DO NOTHING) and one run per
 *    matching enabled internal hook (id derived from hook and event, the same way;
 *    services/hooks/hookRuns.ts), and the rows marked dispatched, in one commit.
 * 2. `startDeliveries`: deliveries not started → batches of up to 500 of one team (`batch_id`,
 *    committed first) → `webhook-batch-<batchId>` started with its team's `TeamSlug` (Temporal
 *    refuses a second start of the same id, which counts as started), then marked started. A start that fails leaves the rows for the
 *    next pass. Hook runs likewise, one workflow each (`hook-run-<id>`, `startPendingHookRuns`).
 */

/** A delivery's id, and so its `webhook-id`: the same for the same event and endpoint, whoever computes it. */
export const webhookDeliveryId = (eventId: string, endpointId: string) =>
  `whd_${createHash('sha256').update(`${eventId}\n${endpointId}`).digest('hex').slice(0, 32)}`;

/** A batch is named after its first delivery (each delivery is in one batch at most). */
const webhookBatchId = (firstDeliveryId: string) => `whb_${firstDeliveryId.replace(/^whd_/, '')}`;

/**
 * Batches started per pass at most: a pass starts the oldest batches until they hold
 * `batches × WEBHOOK_BATCH_SIZE` deliveries, so a burst over many teams (many small batches, one
 * per team) moves as many deliveries per pass as a burst of one team.
 */
const MAX_BATCH_STARTS = 32;

/** Events dispatched per transaction. */
const FAN_OUT_BATCH = 500;

/**
 * How long a burst of events may keep the contacts it enrolls from being formed into a cohort:
 * they are formed when the outbox is drained, or at least this often.
 */
const FORM_COHORTS_AT_LEAST_EVERY_MS = 5_000;

/** Step 1; answers how many events it dispatched. */
export async function fanOutEvents(db: Db, batch = FAN_OUT_BATCH): Promise<number> {
  return db.transaction(async (trx) => {
    const events: { id: string; team_id: string; type: string; data: Record<string, unknown> }[] = await trx(
      'platform_events',
    )
      .whereNull('dispatched_at')
      .orderBy('seq')
      .limit(batch)
      .forUpdate()
      .skipLocked()
      .select('id', 'team_id', 'type', 'data');
    if (!events.length) return 0;
    const endpoints: { id: string; team_id: string; event_types: string[]; agent_id: string | null }[] = await trx(
      'webhook_endpoints',
    )
      .whereIn('team_id', [...new Set(events.map((e) => e.team_id))])
      .where({ enabled: true })
      .select('id', 'team_id', 'event_types', 'agent_id');
    const deliveries = events.flatMap((event) =>
      endpoints
        .filter(
          (ep) =>
            ep.team_id === event.team_id &&
            (!ep.event_types.length || ep.event_types.includes(event.type)) &&
            // A web hook's endpoint hears its own agent only.
            (!ep.agent_id || event.data?.agentId === ep.agent_id),
        )
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
    await queueInternalHookRuns(trx, events);
    // Event and segment triggers, and signals for journeys waiting on these events (services/automations/dispatch.ts).
    await queueAutomationWork(trx, events);
    await trx('platform_events')
      .whereIn(
        'id',
        events.map((e) => e.id),
      )
      .update({ dispatched_at: trx.fn.now() });
    return events.length;
  });
}

/**
 * Step 2; answers how many deliveries it started (or found started), in batches: unstarted
 * deliveries are first given a batch (committed, so the batch is the same whatever happens
 * next), then each batch not yet started gets `webhook-batch-<batchId>`, and its deliveries are
 * marked started.
 */
export async function startDeliveries(db: Db, temporal: TemporalGateway, batches = 4): Promise<number> {
  await db.transaction(async (trx) => {
    const rows: { id: string; team_id: string }[] = await trx('webhook_deliveries')
      .whereNull('workflow_started_at')
      .whereNull('batch_id')
      .orderBy('seq')
      .limit(batches * WEBHOOK_BATCH_SIZE)
      .forUpdate()
      .skipLocked()
      .select('id', 'team_id');
    if (!rows.length) return;
    // A batch holds one team's deliveries (in seq order), so its workflow carries that team's slug.
    const byTeam = new Map<string, string[]>();
    for (const row of rows) {
      const ids = byTeam.get(row.team_id);
      if (ids) ids.push(row.id);
      else byTeam.set(row.team_id, [row.id]);
    }
    const ids: string[] = [];
    const batchIds: string[] = [];
    for (const teamIds of byTeam.values())
      for (let i = 0; i < teamIds.length; i += WEBHOOK_BATCH_SIZE)
        for (const id of teamIds.slice(i, i + WEBHOOK_BATCH_SIZE)) {
          ids.push(id);
          batchIds.push(webhookBatchId(teamIds[i]));
        }
    await trx.raw(
      'UPDATE webhook_deliveries d SET batch_id = b.batch_id FROM unnest(?::text[], ?::text[]) AS b(id, batch_id) WHERE d.id = b.id',
      [ids, batchIds],
    );
  });
  // Batches made just now, or left unstarted by a crash or Temporal away (any worker's), oldest
  // first, with their team's slug (a batch formed before batches were one team's: its first delivery's).
  const oldest: { batch_id: string; slug: string; n: string }[] = await db('webhook_deliveries as d')
    .join('teams as t', 't.id', 'd.team_id')
    .whereNull('d.workflow_started_at')
    .whereNotNull('d.batch_id')
    .groupBy('d.batch_id')
    .orderByRaw('min(d.seq)')
    .limit(MAX_BATCH_STARTS)
    .select('d.batch_id', db.raw('(array_agg(t.slug ORDER BY d.seq))[1] AS slug'), db.raw('count(*) AS n'));
  const unstarted: typeof oldest = [];
  for (let deliveries = 0; unstarted.length < oldest.length && deliveries < batches * WEBHOOK_BATCH_SIZE;) {
    const batch = oldest[unstarted.length];
    unstarted.push(batch);
    deliveries += Number(batch.n);
  }
  const results = await Promise.allSettled(
    unstarted.map(async ({ batch_id: batchId, slug }) => {
      await startOnce(
        temporal,
        webhookBatchStart,
        { batchId },
        { team: { slug }, staticSummary: `webhook batch ${batchId}` },
      );
      return batchId;
    }),
  );
  const started = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  if (!started.length) {
    // Temporal is away: what did not start stays unmarked for the next pass.
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    return 0;
  }
  return db('webhook_deliveries')
    .whereIn('batch_id', started)
    .whereNull('workflow_started_at')
    .update({ workflow_started_at: db.fn.now() });
}

export interface EventDispatcher {
  stop(): Promise<void>;
}

/**
 * Whether any step has rows waiting: one statement over the steps' own partial indexes, where a
 * pass of the steps is six transactions. An idle worker asks this twice a second instead of
 * running the pass (docs/EVENTS.md › The dispatcher's loop).
 */
const anythingPending = statement<{ pending: boolean }>(
  `SELECT EXISTS (SELECT 1 FROM platform_events WHERE dispatched_at IS NULL)
       OR EXISTS (SELECT 1 FROM webhook_deliveries WHERE workflow_started_at IS NULL)
       OR EXISTS (SELECT 1 FROM hook_runs WHERE workflow_started_at IS NULL)
       OR EXISTS (SELECT 1 FROM automation_enrollments WHERE ${WAITING_TO_FORM})
       OR EXISTS (SELECT 1 FROM automation_cohorts WHERE workflow_started_at IS NULL)
       OR EXISTS (SELECT 1 FROM automation_signals WHERE sent_at IS NULL) AS pending`,
);

export async function dispatcherHasWork(db: Db | Knex.Transaction): Promise<boolean> {
  return (await firstRow(db, anythingPending, []))?.pending === true;
}

/**
 * A whole pass runs at least this often even when the probe finds nothing: a step whose rows the
 * probe does not describe exactly is late by this much at most, never stranded.
 */
const FULL_PASS_AT_LEAST_EVERY_MS = 10_000;

/**
 * The loop a worker runs: passes until one finds nothing, then a pause of `intervalMs` after
 * which the probe decides whether a pass is due. Failures (database or Temporal away) are
 * logged and retried after a longer pause.
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
  let formedAt = Date.now();
  let passedAt = 0;
  /** The last pass found work: the next runs at once, as the probe would say yes. */
  let busy = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        const due = busy || Date.now() - passedAt >= FULL_PASS_AT_LEAST_EVERY_MS;
        busy = false;
        if (!due && !(await dispatcherHasWork(deps.db))) {
          await pause(intervalMs);
          continue;
        }
        passedAt = Date.now();
        const dispatched = await fanOutEvents(deps.db);
        const started = await startDeliveries(deps.db, deps.temporal);
        const hookRuns = await startPendingHookRuns(deps.db, deps.temporal);
        // Contacts a burst enrolls enter as one cohort: formed once the burst is dispatched.
        const form = dispatched < FAN_OUT_BATCH || Date.now() - formedAt > FORM_COHORTS_AT_LEAST_EVERY_MS;
        if (form) formedAt = Date.now();
        const automations = await startAutomationWork(deps.db, deps.temporal, { form });
        busy = Boolean(dispatched || started || hookRuns || automations);
        if (busy) continue;
        await pause(intervalMs);
      } catch (err) {
        if (stopped) break;
        deps.logger.warn({ err }, 'event dispatcher pass failed; retrying');
        await pause(errorPauseMs);
      }
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      wakeUp?.();
      await loop;
    },
  };
}
