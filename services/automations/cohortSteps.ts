import { createHash } from 'node:crypto';
import type { ErrorBody } from '../../workflows/contracts/errorBody';
import type { CohortBatch } from '../../workflows/contracts/cohort';
import { applySegment } from '../contacts/segments';
import type { AppContext } from '../platform/context';
import { batchAnswer, loadCohort, membersAt } from './cohortRows';
import { startPendingCohorts } from './cohorts';
import type { Step } from './schemas';
import { runWarpStep } from './steps';
import { targetIndex } from './validate';

/**
 * The step activities of `cohort-<id>` besides the send (cohortSend.ts), each one statement or a
 * few over the cohort's members (docs/AUTOMATIONS.md › Cohorts). Only active members at the step
 * are touched, so a retried activity, or a member exited meanwhile, changes nothing twice.
 */

/** waitForEvent: the members record what they wait for (the dispatcher matches events against it). */
export async function markCohortWaiting(ctx: AppContext, cohortId: string, step: number): Promise<number> {
  const cohort = await loadCohort(ctx.db, cohortId);
  const s = cohort.steps[step] as Extract<Step, { type: 'waitForEvent' }>;
  // A retry finds them waiting already (their step is this one): counted, not marked again.
  return membersAt(ctx.db, cohortId, step).update({
    step,
    waiting_event: s.event,
    updated_at: ctx.db.fn.now(),
  });
}

/** waitForEvent's timeout: those still waiting go to `target`; the others were handed on by their event. */
export async function timeOutCohortWait(ctx: AppContext, cohortId: string, step: number, target: number) {
  await membersAt(ctx.db, cohortId, step)
    .whereNotNull('waiting_event')
    .update({ step: target, waiting_event: null, updated_at: ctx.db.fn.now() });
  const [{ n }] = await ctx
    .db('automation_enrollments')
    .where({ cohort_id: cohortId, status: 'active', step: target })
    .count({ n: '*' });
  return Number(n);
}

/**
 * A branch over every member in SQL. The members going to the nearer target stay in the cohort;
 * the others go to a cohort of their own at their target (its id derived from this cohort and
 * step, so a retry finds it), started at once.
 */
export async function branchCohort(ctx: AppContext, cohortId: string, step: number) {
  const { db } = ctx;
  const cohort = await loadCohort(db, cohortId);
  const s = cohort.steps[step] as Extract<Step, { type: 'branch' }>;
  const target = (t: number | string | undefined) =>
    t === undefined ? step + 1 : (targetIndex(cohort.steps, t) ?? step + 1);
  const [yes, no] = [target(s.then), target(s.else)];
  const matching = applySegment(db, db('contacts').where('contacts.team_id', cohort.team_id), {
    match: 'all',
    groups: [{ match: s.if.match, conditions: s.if.conditions }],
  }).select('contacts.id');
  const next = Math.min(yes, no);
  const splitTo = Math.max(yes, no);
  const splitId = `coh_${createHash('sha256').update(`${cohortId}\n${step}`).digest('hex').slice(0, 32)}`;
  await db.transaction(async (trx) => {
    const here = () => membersAt(trx, cohortId, step);
    await here().whereIn('contact_id', matching).update({ step: yes, updated_at: trx.fn.now() });
    await here().update({ step: no, updated_at: trx.fn.now() });
    if (splitTo === next) return;
    const moving = () => trx('automation_enrollments').where({ cohort_id: cohortId, status: 'active', step: splitTo });
    const [{ n }] = await moving().count({ n: '*' });
    if (!Number(n)) return;
    await trx('automation_cohorts')
      .insert({
        id: splitId,
        team_id: cohort.team_id,
        automation_id: cohort.automation_id,
        version: cohort.version,
        start_step: splitTo,
        member_count: Number(n),
        parent_cohort_id: cohortId,
      })
      .onConflict('id')
      .ignore();
    await moving().update({ cohort_id: splitId, updated_at: trx.fn.now() });
  });
  const [{ n }] = await db('automation_enrollments')
    .where({ cohort_id: cohortId, status: 'active', step: next })
    .count({ n: '*' });
  const split = await db('automation_cohorts').where({ id: splitId }).first('member_count');
  if (split) await startPendingCohorts(db, ctx.temporal, cohort.automation_id);
  return { next, stayed: Number(n), splitOff: split?.member_count ?? 0 };
}

/** Warps per member at once, within a batch. */
const WARPS_IN_FLIGHT = 8;
/** A batch of warp steps stops taking members after this long, so its activity ends and heartbeats. */
const WARP_BATCH_MS = 60_000;

/** A runWarp step for the members at it, a few at a time; each is keyed by enrollment and step. */
export async function runCohortWarps(
  ctx: AppContext,
  cohortId: string,
  step: number,
  heartbeat: () => void,
): Promise<CohortBatch> {
  const cohort = await loadCohort(ctx.db, cohortId);
  const s = cohort.steps[step] as Extract<Step, { type: 'runWarp' }>;
  const stopAt = Date.now() + WARP_BATCH_MS;
  let processed = 0;
  while (Date.now() < stopAt) {
    const members: { id: string; contact_id: string }[] = await membersAt(ctx.db, cohortId, step)
      .orderBy('seq')
      .limit(WARPS_IN_FLIGHT * 4)
      .select('id', 'contact_id');
    if (!members.length) break;
    for (let i = 0; i < members.length; i += WARPS_IN_FLIGHT) {
      await Promise.all(
        members.slice(i, i + WARPS_IN_FLIGHT).map((m) =>
          runWarpStep(
            ctx,
            {
              id: m.id,
              team_id: cohort.team_id,
              automation_id: cohort.automation_id,
              contact_id: m.contact_id,
              status: 'active',
              steps: cohort.steps,
              agent_id: cohort.agent_id,
              created_by: cohort.created_by,
            },
            step,
            s,
          ),
        ),
      );
      processed += Math.min(WARPS_IN_FLIGHT, members.length - i);
      heartbeat();
    }
  }
  return batchAnswer(ctx.db, cohortId, step, processed);
}

/** The end: the active members are completed (the plan's end) or exited (an exit step). */
export async function finishCohort(
  ctx: AppContext,
  cohortId: string,
  outcome: { status: 'completed' | 'exited'; step: number },
): Promise<number> {
  return ctx
    .db('automation_enrollments')
    .where({ cohort_id: cohortId, status: 'active' })
    .update({
      status: outcome.status,
      step: outcome.step,
      exit_reason: outcome.status === 'exited' ? 'exit_step' : null,
      waiting_event: null,
      ended_at: ctx.db.fn.now(),
      updated_at: ctx.db.fn.now(),
    });
}

/** A step whose retries ran out: its active members fail with the cause. */
export async function failCohort(ctx: AppContext, cohortId: string, step: number, error: ErrorBody) {
  return ctx
    .db('automation_enrollments')
    .where({ cohort_id: cohortId, status: 'active' })
    .update({
      status: 'failed',
      step,
      error: JSON.stringify(error),
      waiting_event: null,
      ended_at: ctx.db.fn.now(),
      updated_at: ctx.db.fn.now(),
    });
}
