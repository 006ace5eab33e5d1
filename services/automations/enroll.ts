import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import type { TemporalGateway } from '../../temporal/client';
import { BusinessIdKey, JobTypeKey, TeamSlugKey } from '../../temporal/searchAttributes';
import {
  enrollmentWorkflowId,
  enrollmentWorkflowName,
  exitJourney,
  type EnrollmentArgs,
  type EnrollmentWorkflow,
} from '../../workflows/contracts/enrollment';
import { AppError, invalidState, notFound, ruleBroken } from '../platform/errors';
import { newId } from '../platform/ids';
import { keysetPage, Page } from '../platform/pagination';
import type { EnrollmentJson, enrollmentListQuerySchema } from './schemas';
import type { z } from 'zod';

/**
 * Enrollments (docs/AUTOMATIONS.md › Enrollments): a row per contact and journey, unique among
 * the active ones of an automation, so a repeated trigger finds the running enrollment; its
 * workflow `enrollment-<id>` is started once (REJECT_DUPLICATE), and a start that did not
 * happen (Temporal away, a crash) is made by the events dispatcher's next pass.
 */

export interface EnrollmentRow {
  seq: number;
  id: string;
  team_id: string;
  automation_id: string;
  version: number;
  contact_id: string;
  status: EnrollmentJson['status'];
  step: number;
  waiting_event: string | null;
  enrolled_by: string;
  exit_reason: string | null;
  error: unknown;
  created_at: Date;
  ended_at: Date | null;
}

export const presentEnrollment = (row: EnrollmentRow): EnrollmentJson => ({
  id: row.id,
  automationId: row.automation_id,
  version: row.version,
  contactId: row.contact_id,
  status: row.status,
  step: row.step,
  waitingFor: row.waiting_event,
  exitReason: row.exit_reason,
  error: row.error ?? null,
  createdAt: row.created_at.toISOString(),
  endedAt: row.ended_at?.toISOString() ?? null,
});

/**
 * Enrolls the contact on the automation's current version, or finds its active enrollment;
 * in the caller's transaction when given one (the dispatcher's), the workflow started later.
 */
export async function enrollContact(
  db: Db | Knex.Transaction,
  automation: { id: string; team_id: string; version: number },
  contactId: string,
  enrolledBy: string,
): Promise<{ id: string; created: boolean }> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const inserted: { id: string }[] = await db('automation_enrollments')
      .insert({
        id: newId('enr'),
        team_id: automation.team_id,
        automation_id: automation.id,
        version: automation.version,
        contact_id: contactId,
        enrolled_by: enrolledBy,
      })
      // The partial unique index on active enrollments: a conflict means one is running.
      .onConflict()
      .ignore()
      .returning('id');
    if (inserted.length) return { id: inserted[0].id, created: true };
    const active = await db('automation_enrollments')
      .where({ automation_id: automation.id, contact_id: contactId, status: 'active' })
      .first('id');
    // Ended between the conflict and this read: enroll again.
    if (active) return { id: active.id, created: false };
  }
  throw new AppError(409, 'conflict', 'The contact is being enrolled and leaving at the same time; retry');
}

/** Starts the enrollment's workflow (once, ever) and marks it started. */
export async function startEnrollment(db: Db, temporal: TemporalGateway, enrollmentId: string): Promise<void> {
  const [row] = await unstartedEnrollments(db).where('e.id', enrollmentId);
  if (!row) return;
  await startEnrollmentWorkflow(temporal, row);
  await db('automation_enrollments')
    .where({ id: enrollmentId })
    .whereNull('workflow_started_at')
    .update({ workflow_started_at: db.fn.now() });
}

interface UnstartedEnrollment {
  id: string;
  automation_id: string;
  contact_id: string;
  version: number;
  plan: EnrollmentArgs['plan'];
  slug: string;
}

/** Enrollments whose workflow has not started, with what the start needs (one read for a batch). */
const unstartedEnrollments = (db: Db) =>
  db('automation_enrollments as e')
    .join('automation_versions as v', function () {
      this.on('v.automation_id', 'e.automation_id').andOn('v.version', 'e.version');
    })
    .join('teams as t', 't.id', 'e.team_id')
    .whereNull('e.workflow_started_at')
    .select<UnstartedEnrollment[]>('e.id', 'e.automation_id', 'e.contact_id', 'e.version', 'v.plan', 't.slug');

async function startEnrollmentWorkflow(temporal: TemporalGateway, row: UnstartedEnrollment): Promise<void> {
  try {
    await temporal.call((client) =>
      client.workflow.start<EnrollmentWorkflow>(enrollmentWorkflowName, {
        workflowId: enrollmentWorkflowId(row.id),
        taskQueue: temporal.taskQueue,
        args: [{ enrollmentId: row.id, plan: row.plan } satisfies EnrollmentArgs],
        // A journey runs once: a start repeated after it ended is refused too.
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        typedSearchAttributes: [
          { key: TeamSlugKey, value: row.slug },
          { key: JobTypeKey, value: 'automation.enrollment' },
          { key: BusinessIdKey, value: row.id },
        ],
        staticSummary: `enrollment ${row.id}: contact ${row.contact_id} in automation ${row.automation_id} v${row.version}`,
      }),
    );
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/** How long a request or a warp has to start the enrollment it made before the dispatcher does. */
const OWN_START_GRACE = "interval '10 seconds'";

/**
 * The dispatcher's pass over enrollments whose workflow did not start; answers how many it
 * started. Its own (event and segment triggers) at once; one a request or a hook run made, only
 * when that did not start it in time (Temporal away, a crash): the two never race for a start.
 */
export async function startPendingEnrollments(db: Db, temporal: TemporalGateway, batch = 100): Promise<number> {
  const rows = await unstartedEnrollments(db)
    .where('e.status', 'active')
    .whereRaw(`(e.enrolled_by LIKE 'event:%' OR e.created_at < now() - ${OWN_START_GRACE})`)
    .orderBy('e.seq')
    .limit(batch);
  let started = 0;
  for (let i = 0; i < rows.length; i += 20) {
    const slice = rows.slice(i, i + 20);
    const results = await Promise.allSettled(slice.map((row) => startEnrollmentWorkflow(temporal, row)));
    const done = slice.filter((_, k) => results[k].status === 'fulfilled').map((row) => row.id);
    if (done.length)
      await db('automation_enrollments')
        .whereIn('id', done)
        .whereNull('workflow_started_at')
        .update({ workflow_started_at: db.fn.now() });
    started += done.length;
    const failed = results.find((r) => r.status === 'rejected');
    // Temporal away: the rest stay for the next pass.
    if (failed) throw (failed as PromiseRejectedResult).reason;
  }
  return started;
}

async function enrollmentRow(db: Db, teamId: string, id: string): Promise<EnrollmentRow> {
  const row = await db('automation_enrollments').where({ team_id: teamId, id }).first();
  if (!row) throw notFound('Enrollment');
  return row;
}

/** One enrollment with what each of its acting steps did. */
export async function getEnrollment(db: Db, teamId: string, id: string): Promise<EnrollmentJson> {
  const row = await enrollmentRow(db, teamId, id);
  const steps = await db('automation_step_runs')
    .where({ enrollment_id: id })
    .orderBy('step')
    .select('step', 'status', 'detail');
  return { ...presentEnrollment(row), steps };
}

export async function listEnrollments(
  db: Db,
  teamId: string,
  automationId: string,
  query: z.infer<typeof enrollmentListQuerySchema>,
): Promise<Page<EnrollmentJson>> {
  const q = db('automation_enrollments').where({ team_id: teamId, automation_id: automationId });
  if (query.status) q.where({ status: query.status });
  if (query.contactId) q.where({ contact_id: query.contactId });
  return keysetPage(q, query, presentEnrollment, { newestFirst: true });
}

/**
 * Takes the contact out of the journey: the row says `exited` (exit_requested) first, then the
 * workflow is told and ends its wait at once. Asking again answers the same exited enrollment.
 */
export async function exitEnrollment(
  db: Db,
  temporal: TemporalGateway,
  teamId: string,
  id: string,
): Promise<EnrollmentJson> {
  const before = await enrollmentRow(db, teamId, id);
  if (before.status === 'active') {
    await db('automation_enrollments').where({ id, status: 'active' }).update({
      status: 'exited',
      exit_reason: 'exit_requested',
      waiting_event: null,
      ended_at: db.fn.now(),
      updated_at: db.fn.now(),
    });
  }
  const row = await enrollmentRow(db, teamId, id);
  if (row.status !== 'exited')
    throw invalidState(`The enrollment has already ended (${row.status})`, { status: row.status });
  if (row.exit_reason === 'exit_requested') {
    try {
      await temporal.call((client) => client.workflow.getHandle(enrollmentWorkflowId(id)).signal(exitJourney));
    } catch (err) {
      // Ended already (or never started): nothing waits.
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
  }
  return getEnrollment(db, teamId, id);
}

/** An automation that does not take new enrollments answers this. */
export const automationDisabled = (automationId: string) =>
  ruleBroken('automation_disabled', 'The automation is disabled: it enrolls nobody until it is enabled', {
    automationId,
  });
