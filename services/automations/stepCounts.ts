import { z } from 'zod';
import type { Db } from '../../db/knex';
import { findAutomation } from './automations';
import { ENROLLMENT_STATUSES } from './schemas';

export const stepCountsSchema = z.object({
  automationId: z.string(),
  /** One row per version and step that has enrollments, by version then step. */
  data: z.array(
    z.object({
      version: z.number().int(),
      /** The step index (0-based); a completed enrollment sits at the plan's length. */
      step: z.number().int(),
      active: z.number().int(),
      completed: z.number().int(),
      exited: z.number().int(),
      failed: z.number().int(),
    }),
  ),
});
export type StepCounts = z.infer<typeof stepCountsSchema>;

/** How many of an automation's enrollments are at each step, by status (one grouped read). */
export async function automationStepCounts(db: Db, teamId: string, automationId: string): Promise<StepCounts> {
  const automation = await findAutomation(db, teamId, automationId);
  const rows: { version: number; step: number; status: (typeof ENROLLMENT_STATUSES)[number]; n: string }[] = await db(
    'automation_enrollments',
  )
    .where({ team_id: teamId, automation_id: automation.id })
    .groupBy('version', 'step', 'status')
    .orderBy([{ column: 'version' }, { column: 'step' }])
    .select('version', 'step', 'status', db.raw('count(*) AS n'));
  const byStep = new Map<string, StepCounts['data'][number]>();
  for (const row of rows) {
    const key = `${row.version}:${row.step}`;
    const entry = byStep.get(key) ?? {
      version: row.version,
      step: row.step,
      active: 0,
      completed: 0,
      exited: 0,
      failed: 0,
    };
    entry[row.status] += Number(row.n);
    byStep.set(key, entry);
  }
  return { automationId: automation.id, data: [...byStep.values()] };
}
