import { WorkflowNotFoundError } from '@temporalio/client';
import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import type { TemporalGateway } from '../../temporal/client';
import { enrollmentWorkflowId, exitJourney } from '../../workflows/contracts/enrollment';
import { AppError, invalidState, notFound, ruleBroken } from '../platform/errors';
import { newId, newIds } from '../../db/ids';
import { keysetPage, Page } from '../platform/pagination';
import type { EnrollmentJson, enrollmentListQuerySchema } from './schemas';
import type { z } from 'zod';

/**
 * Enrollments (docs/AUTOMATIONS.md › Enrollments): a row per contact and journey, unique among
 * the active ones of an automation, so a repeated trigger finds the running enrollment. A new
 * one waits to be formed into a cohort (cohorts.ts), by the request or step that made it, else by
 * the events dispatcher's next pass.
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
  cohort_id: string | null;
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
  throw new AppError('conflict', 'The contact is being enrolled and leaving at the same time; retry');
}

/**
 * Enrolls many contacts at once on the automation's current version (the dispatcher's batch, a
 * bulk enrollment), in one statement; a contact with an active enrollment is skipped. Answers
 * how many were enrolled. They wait to be formed into a cohort (cohorts.ts).
 */
export async function enrollContacts(
  db: Db | Knex.Transaction,
  automation: { id: string; team_id: string; version: number },
  entries: { contactId: string; enrolledBy: string }[],
): Promise<number> {
  if (!entries.length) return 0;
  const { rows } = await db.raw(
    `INSERT INTO automation_enrollments (id, team_id, automation_id, version, contact_id, enrolled_by)
     SELECT id, ?, ?, ?, contact_id, enrolled_by FROM unnest(?::text[], ?::text[], ?::text[]) AS v(id, contact_id, enrolled_by)
     ON CONFLICT DO NOTHING
     RETURNING id`,
    [
      automation.team_id,
      automation.id,
      automation.version,
      newIds('enr', entries.length),
      entries.map((e) => e.contactId),
      entries.map((e) => e.enrolledBy),
    ],
  );
  return rows.length;
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
  // A cohort's member is simply no longer active: the cohort's next step passes it by. A
  // per-contact journey of before is told, and ends its wait at once.
  if (row.exit_reason === 'exit_requested' && !before.cohort_id) {
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
