import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import type { CohortBatch } from '../../workflows/contracts/cohort';
import type { Step } from './schemas';

/** What a cohort's step activities read of it: its version's steps, the automation's agent, its author. */
export interface LoadedCohort {
  id: string;
  team_id: string;
  automation_id: string;
  version: number;
  steps: Step[];
  agent_id: string;
  /** The author of the version: its runWarp steps run with this user's rights. */
  created_by: string | null;
}

export async function loadCohort(db: Db, cohortId: string): Promise<LoadedCohort> {
  const cohort = await db('automation_cohorts as c')
    .join('automation_versions as v', function () {
      this.on('v.automation_id', 'c.automation_id').andOn('v.version', 'c.version');
    })
    .join('automations as a', 'a.id', 'c.automation_id')
    .where('c.id', cohortId)
    .first('c.id', 'c.team_id', 'c.automation_id', 'c.version', 'v.steps', 'a.agent_id', 'v.created_by');
  // Formed and started in order: a cohort's workflow never runs before its row commits.
  if (!cohort) throw new Error(`Cohort ${cohortId} not found`);
  return cohort;
}

/** The active members of the cohort still at `step` (a member past it has its step moved on). */
export const membersAt = (db: Db | Knex.Transaction, cohortId: string, step: number) =>
  db('automation_enrollments').where({ cohort_id: cohortId, status: 'active' }).where('step', '<=', step);

/** What a batched step answers: how many it did, how many are left, and with the last batch the step's totals. */
export async function batchAnswer(db: Db, cohortId: string, step: number, processed: number): Promise<CohortBatch> {
  const [{ n }] = await membersAt(db, cohortId, step).count({ n: '*' });
  const remaining = Number(n);
  if (remaining > 0) return { processed, remaining };
  const rows: { status: string; n: string }[] = await db('automation_step_runs as r')
    .join('automation_enrollments as e', 'e.id', 'r.enrollment_id')
    .where({ 'e.cohort_id': cohortId, 'r.step': step })
    .groupBy('r.status')
    .select('r.status', db.raw('count(*) AS n'));
  return { processed, remaining, outcomes: Object.fromEntries(rows.map((r) => [r.status, Number(r.n)])) };
}
