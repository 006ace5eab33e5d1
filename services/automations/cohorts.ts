import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import { startOnce, type TemporalGateway } from '../../temporal/client';
import { cohortStart } from '../../workflows/contracts/cohort';
import type { PlanStep } from '../../workflows/contracts/enrollment';

/**
 * Cohorts are formed and started here (docs/AUTOMATIONS.md › Cohorts). An enrollment that is
 * active, in no cohort and not a per-contact workflow of before waits to be formed: every such
 * row of one automation, version and step at that moment becomes one cohort, in one statement
 * whose row locks give each enrollment to exactly one cohort, one former at a time. A cohort's workflow
 * `cohort-<id>` is then started once (REJECT_DUPLICATE), by whoever formed it; one whose start
 * did not happen (Temporal away, a crash) is started by the events dispatcher's next pass.
 */

/** The most enrollments one statement forms into cohorts. */
const FORM_AT_MOST = 100_000;

/** Forms the waiting enrollments (of one automation, when given) into cohorts; answers how many cohorts. */
export async function formCohorts(db: Db, automationId?: string): Promise<number> {
  return db.transaction(async (trx) => {
    // One former at a time (a request's and the dispatcher's): enrollments that entered together
    // become one cohort, not as many as there were formers racing for their rows.
    await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', ['automation-cohorts:form']);
    return formWaiting(trx, automationId);
  });
}

/** An enrollment waiting to be formed into a cohort (the dispatcher's probe asks the same). */
export const WAITING_TO_FORM = "status = 'active' AND cohort_id IS NULL AND workflow_started_at IS NULL";

async function formWaiting(db: Knex.Transaction, automationId?: string): Promise<number> {
  const { rows } = await db.raw(
    `WITH taken AS MATERIALIZED (
       SELECT id, team_id, automation_id, version, step FROM automation_enrollments
       WHERE ${WAITING_TO_FORM}
         ${automationId ? 'AND automation_id = ?' : ''}
       ORDER BY seq LIMIT ? FOR UPDATE SKIP LOCKED
     ), groups AS MATERIALIZED (
       SELECT team_id, automation_id, version, step, count(*)::int AS members,
              'coh_' || replace(gen_random_uuid()::text, '-', '') AS id
       FROM taken GROUP BY team_id, automation_id, version, step
     ), cohorts AS (
       INSERT INTO automation_cohorts (id, team_id, automation_id, version, start_step, member_count)
       SELECT id, team_id, automation_id, version, step, members FROM groups
     ), assigned AS (
       UPDATE automation_enrollments e SET cohort_id = g.id, workflow_started_at = now()
       FROM taken t JOIN groups g USING (team_id, automation_id, version, step)
       WHERE e.id = t.id
     )
     SELECT count(*)::int AS n FROM groups`,
    automationId ? [automationId, FORM_AT_MOST] : [FORM_AT_MOST],
  );
  return rows[0].n;
}

interface UnstartedCohort {
  id: string;
  automation_id: string;
  version: number;
  start_step: number;
  member_count: number;
  plan: PlanStep[];
  slug: string;
}

/** Starts the cohorts whose workflow has not started (of one automation, when given); answers how many. */
export async function startPendingCohorts(db: Db, temporal: TemporalGateway, automationId?: string): Promise<number> {
  const q = db('automation_cohorts as c')
    .join('automation_versions as v', function () {
      this.on('v.automation_id', 'c.automation_id').andOn('v.version', 'c.version');
    })
    .join('teams as t', 't.id', 'c.team_id')
    .whereNull('c.workflow_started_at')
    .orderBy('c.seq')
    .limit(100)
    .select<UnstartedCohort[]>(
      'c.id',
      'c.automation_id',
      'c.version',
      'c.start_step',
      'c.member_count',
      'v.plan',
      't.slug',
    );
  if (automationId) q.where('c.automation_id', automationId);
  const rows = await q;
  const results = await Promise.allSettled(rows.map((row) => startCohortWorkflow(temporal, row)));
  const started = rows.filter((_, i) => results[i].status === 'fulfilled').map((row) => row.id);
  if (started.length)
    await db('automation_cohorts').whereIn('id', started).whereNull('workflow_started_at').update({
      workflow_started_at: db.fn.now(),
    });
  const failed = results.find((r) => r.status === 'rejected');
  // Temporal away: the rest stay for the next pass.
  if (failed) throw (failed as PromiseRejectedResult).reason;
  return started.length;
}

async function startCohortWorkflow(temporal: TemporalGateway, row: UnstartedCohort): Promise<void> {
  await startOnce(
    temporal,
    cohortStart,
    {
      cohortId: row.id,
      automationId: row.automation_id,
      plan: row.plan,
      step: row.start_step,
      members: row.member_count,
    },
    {
      team: row,
      staticSummary: `cohort ${row.id}: ${row.member_count} contact${row.member_count === 1 ? '' : 's'} in automation ${row.automation_id} v${row.version}, from step ${row.start_step}`,
    },
  );
}

/** Forms the waiting enrollments into cohorts and starts them: what an enrolling request or step does once it committed. */
export async function startJourneys(db: Db, temporal: TemporalGateway, automationId?: string): Promise<number> {
  let formed = 0;
  for (;;) {
    const n = await formCohorts(db, automationId);
    formed += n;
    if (n === 0) break;
    await startPendingCohorts(db, temporal, automationId);
  }
  return formed;
}
