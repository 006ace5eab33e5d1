import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import { startOnce, type TemporalGateway } from '../../temporal/client';
import { hookRunStart } from '../../workflows/contracts/hookRun';
import type { HookRow } from './hookRows';
import { applyMapping } from './mapping';

/**
 * Hook runs (docs/HOOKS.md › Exactly once): one row per (hook, event key), its id derived from
 * both, inserted ON CONFLICT DO NOTHING; then the workflow `hook-run-<id>` is started (Temporal
 * refuses a second start of the same id) and the row marked started. A crash between any two
 * steps leaves a row that the next pass (of the events dispatcher, or a replayed inbound POST)
 * picks up, and nothing that runs twice.
 */

export const hookRunId = (hookId: string, eventKey: string) =>
  `hkr_${createHash('sha256').update(`${hookId}\n${eventKey}`).digest('hex').slice(0, 32)}`;

interface QueuedRun {
  id: string;
  team_id: string;
  hook_id: string;
  event_key: string;
  inputs: string;
}

const runOf = (hook: Pick<HookRow, 'id' | 'team_id' | 'inputs' | 'mapping'>, eventKey: string, payload: unknown) => ({
  id: hookRunId(hook.id, eventKey),
  team_id: hook.team_id,
  hook_id: hook.id,
  event_key: eventKey,
  inputs: JSON.stringify(applyMapping(hook.inputs, hook.mapping, payload)),
});

/**
 * An event of an outside caller's room (docs/AGENTS.md › Outside callers): its data names the
 * caller's team. A stranger's words must not steer the team's warps, so no internal hook runs on
 * it; outbound webhooks still hear it, flagged with `callerTeamId`.
 */
export const fromOutsideCaller = (data: unknown) =>
  typeof (data as { callerTeamId?: unknown } | null)?.callerTeamId === 'string';

/**
 * The runs of the enabled internal hooks that these outbox events match, written in the
 * dispatcher's transaction (the one that marks the events dispatched): all of them or none.
 * Events from outside callers' rooms run none (fromOutsideCaller).
 */
export async function queueInternalHookRuns(
  trx: Knex.Transaction,
  allEvents: { id: string; team_id: string; type: string; data: unknown }[],
): Promise<number> {
  const events = allEvents.filter((e) => !fromOutsideCaller(e.data));
  if (!events.length) return 0;
  const hooks: HookRow[] = await trx('hooks')
    .whereIn('team_id', [...new Set(events.map((e) => e.team_id))])
    .whereIn('event', [...new Set(events.map((e) => e.type))])
    .where({ source: 'internal', enabled: true })
    .select('id', 'team_id', 'event', 'inputs', 'mapping');
  const runs: QueuedRun[] = events.flatMap((event) =>
    hooks
      .filter((h) => h.team_id === event.team_id && h.event === event.type)
      .map((h) => runOf(h, `event:${event.id}`, event.data)),
  );
  if (runs.length) await trx('hook_runs').insert(runs).onConflict(['hook_id', 'event_key']).ignore();
  return runs.length;
}

/** The runs of these inbound hooks for one delivery (a replay of the delivery finds its runs already there). */
export async function queueInboundHookRuns(
  db: Db,
  hooks: HookRow[],
  deliveryKey: string,
  payload: unknown,
): Promise<string[]> {
  const runs = hooks.map((h) => runOf(h, `delivery:${deliveryKey}`, payload));
  if (runs.length) await db('hook_runs').insert(runs).onConflict(['hook_id', 'event_key']).ignore();
  return runs.map((r) => r.id);
}

/** A run to start: its id and its team's slug (the workflow's `TeamSlug`). */
export interface UnstartedRun {
  id: string;
  slug: string;
}

/** Runs not started yet, with their team's slug. */
const unstartedRuns = (db: Db | Knex.Transaction) =>
  db('hook_runs as r')
    .join('teams as t', 't.id', 'r.team_id')
    .whereNull('r.workflow_started_at')
    .select('r.id', 't.slug');

/** Starts `hook-run-<id>`; a second start of the same id (open or closed) is refused and harmless. */
export async function startHookRun(temporal: Pick<TemporalGateway, 'call' | 'taskQueue'>, run: UnstartedRun) {
  await startOnce(temporal, hookRunStart, { runId: run.id }, { team: run, staticSummary: `hook run ${run.id}` });
}

/** Starts these runs' workflows now (the inbound path) and marks them started; a failure leaves them for the dispatcher. */
export async function startHookRunsNow(db: Db, temporal: TemporalGateway, allRunIds: string[]): Promise<void> {
  // A replayed delivery finds its runs started: they are not started again.
  const fresh: UnstartedRun[] = allRunIds.length ? await unstartedRuns(db).whereIn('r.id', allRunIds) : [];
  const runIds = fresh.map((r) => r.id);
  const results = await Promise.allSettled(fresh.map((run) => startHookRun(temporal, run)));
  const started = runIds.filter((_, i) => results[i].status === 'fulfilled');
  if (started.length)
    await db('hook_runs')
      .whereIn('id', started)
      .whereNull('workflow_started_at')
      .update({ workflow_started_at: db.fn.now() });
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
}

/** The dispatcher's pass over runs whose workflow was not started; answers how many it started (or found started). */
export async function startPendingHookRuns(db: Db, temporal: TemporalGateway, batch = 100): Promise<number> {
  return db.transaction(async (trx) => {
    const rows: UnstartedRun[] = await unstartedRuns(trx).orderBy('r.seq').limit(batch).forUpdate('r').skipLocked();
    if (!rows.length) return 0;
    const started: string[] = [];
    for (let i = 0; i < rows.length; i += 20) {
      const results = await Promise.allSettled(rows.slice(i, i + 20).map((run) => startHookRun(temporal, run)));
      results.forEach((r, j) => r.status === 'fulfilled' && started.push(rows[i + j].id));
      // Temporal is away: what did not start stays unmarked for the next pass.
      if (results.some((r) => r.status === 'rejected')) break;
    }
    if (started.length) await trx('hook_runs').whereIn('id', started).update({ workflow_started_at: trx.fn.now() });
    return started.length;
  });
}
