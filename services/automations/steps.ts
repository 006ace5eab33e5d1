import type { ErrorBody } from '../../workflows/contracts/errorBody';
import type { StepAnswer } from '../../workflows/contracts/enrollment';
import { applySegment } from '../contacts/segments';
import type { Principal } from '../identity/principal';
import type { AppContext } from '../platform/context';
import { AppError, errorBody } from '../platform/errors';
import { executionIdFor } from '../../db/ids';
import { executeWarp } from '../warps/execute';
import type { Step } from './schemas';
import { sendStep } from './sendStep';
import { REFERENCE, targetIndex } from './validate';

/**
 * The activities of `enrollment-<id>` (docs/AUTOMATIONS.md › The workflow): one per acting step,
 * each reading the step from the enrollment's version, doing it once, and recording where the
 * enrollment is. A step on an enrollment that is no longer active does nothing.
 */

export interface Loaded {
  id: string;
  team_id: string;
  automation_id: string;
  contact_id: string;
  status: 'active' | 'completed' | 'exited' | 'failed';
  steps: Step[];
  agent_id: string;
  /** The author of the enrollment's version: its runWarp steps run with this user's rights. */
  created_by: string | null;
}

const load = (ctx: AppContext, enrollmentId: string): Promise<Loaded | undefined> =>
  ctx
    .db('automation_enrollments as e')
    .join('automation_versions as v', function () {
      this.on('v.automation_id', 'e.automation_id').andOn('v.version', 'e.version');
    })
    .join('automations as a', 'a.id', 'e.automation_id')
    .where('e.id', enrollmentId)
    .first('e.id', 'e.team_id', 'e.automation_id', 'e.contact_id', 'e.status', 'v.steps', 'a.agent_id', 'v.created_by');

const recordStepRun = (ctx: AppContext, enrollmentId: string, step: number, status: string, detail: unknown) =>
  ctx
    .db('automation_step_runs')
    .insert({ enrollment_id: enrollmentId, step, status, detail: JSON.stringify(detail ?? null) })
    .onConflict(['enrollment_id', 'step'])
    .merge({ status, detail: JSON.stringify(detail ?? null), updated_at: ctx.db.fn.now() });

/** Moves the enrollment on to `next` (if still active); answers where the workflow goes. */
async function moveOn(ctx: AppContext, enrollmentId: string, next: number): Promise<StepAnswer> {
  const moved = await ctx
    .db('automation_enrollments')
    .where({ id: enrollmentId, status: 'active' })
    .update({ step: next, waiting_event: null, updated_at: ctx.db.fn.now() });
  return moved ? { next } : { ended: 'exited' };
}

export async function finishEnrollment(
  ctx: AppContext,
  enrollmentId: string,
  outcome: { status: 'completed' | 'exited' | 'failed'; step: number; error?: ErrorBody },
): Promise<void> {
  await ctx
    .db('automation_enrollments')
    .where({ id: enrollmentId, status: 'active' })
    .update({
      status: outcome.status,
      step: outcome.step,
      exit_reason: outcome.status === 'exited' ? 'exit_step' : null,
      error: outcome.error ? JSON.stringify(outcome.error) : null,
      waiting_event: null,
      ended_at: ctx.db.fn.now(),
      updated_at: ctx.db.fn.now(),
    });
}

async function fail(ctx: AppContext, e: Loaded, step: number, error: ErrorBody): Promise<StepAnswer> {
  await finishEnrollment(ctx, e.id, { status: 'failed', step, error });
  return { ended: 'failed' };
}

/** A runWarp input with its `$.contact.…` / `$.enrollment.id` / `$.automation.id` references filled in. */
function mapInputs(value: unknown, scope: { contact: Record<string, unknown>; e: Loaded }): unknown {
  if (typeof value === 'string' && REFERENCE.test(value)) {
    const [, head, field, ...rest] = value.split('.');
    if (head === 'enrollment') return scope.e.id;
    if (head === 'automation') return scope.e.automation_id;
    if (field === 'properties') return (scope.contact.properties as Record<string, unknown>)?.[rest.join('.')];
    const column = field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    return scope.contact[column] ?? undefined;
  }
  if (Array.isArray(value)) return value.map((v) => mapInputs(v, scope));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapInputs(v, scope)]));
  return value;
}

/**
 * A runWarp step, once: the warp's execution id is derived from the enrollment and the step
 * (`executionIdFor`), so a retry after a crash or an ambiguous error finds the execution the
 * first attempt opened instead of running the warp again. The step row says where it stands.
 */
export async function runWarpStep(ctx: AppContext, e: Loaded, step: number, s: Extract<Step, { type: 'runWarp' }>) {
  const claimed = await ctx
    .db('automation_step_runs')
    .insert({ enrollment_id: e.id, step, status: 'running' })
    .onConflict(['enrollment_id', 'step'])
    .ignore()
    .returning('status');
  if (!claimed.length) {
    const row = await ctx.db('automation_step_runs').where({ enrollment_id: e.id, step }).first('status', 'detail');
    if (row.status === 'succeeded') return moveOn(ctx, e.id, step + 1);
    if (row.status === 'failed') return fail(ctx, e, step, row.detail as ErrorBody);
    // Still running: an earlier attempt died mid-warp; its execution id finds what it did.
  }
  const [contact, team, agent] = await Promise.all([
    ctx.db('contacts').where({ id: e.contact_id }).first(),
    ctx.db('teams').where({ id: e.team_id }).first('id', 'slug', 'plan'),
    ctx.db('agents').where({ id: e.agent_id }).first('id', 'mode'),
  ]);
  const principal: Principal = {
    kind: 'agent',
    userId: e.created_by,
    credentialId: e.id,
    agentId: e.agent_id,
    scopes: ['mcp:use'],
  };
  try {
    const answer = await executeWarp(
      { ctx, team, principal, agent, executionId: runWarpExecutionId(e.id, step) },
      s.warp,
      mapInputs(s.inputs, { contact: contact ?? {}, e }),
    );
    await recordStepRun(ctx, e.id, step, 'succeeded', { executionId: answer.executionId, status: answer.status });
    return moveOn(ctx, e.id, step + 1);
  } catch (err) {
    // A rule the warp broke fails the journey; anything else is retried, and finds its execution.
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    const error = err.toBody();
    await recordStepRun(ctx, e.id, step, 'failed', error);
    return fail(ctx, e, step, error);
  }
}

export const runWarpExecutionId = (enrollmentId: string, step: number) =>
  executionIdFor(`enrollment:${enrollmentId}:${step}`);

async function branchStep(ctx: AppContext, e: Loaded, step: number, s: Extract<Step, { type: 'branch' }>) {
  const matched = await applySegment(ctx.db, ctx.db('contacts').where({ 'contacts.id': e.contact_id }), {
    match: 'all',
    groups: [{ match: s.if.match, conditions: s.if.conditions }],
  }).first('contacts.id');
  const target = matched ? s.then : s.else;
  const next = target === undefined ? step + 1 : (targetIndex(e.steps, target) ?? step + 1);
  return moveOn(ctx, e.id, next);
}

/** The activity `runEnrollmentStep`. */
export async function runEnrollmentStep(ctx: AppContext, enrollmentId: string, step: number): Promise<StepAnswer> {
  const e = await load(ctx, enrollmentId);
  // Not (yet) visible: the enrolling transaction may not have committed. Retried, never `exited`,
  // which would leave the row active with its workflow gone.
  if (!e) throw new Error(`Enrollment ${enrollmentId} not found (not committed yet?); retried`);
  if (e.status !== 'active') return { ended: e.status };
  const s = e.steps[step];
  switch (s?.type) {
    case 'waitForEvent': {
      const waiting = await ctx
        .db('automation_enrollments')
        .where({ id: e.id, status: 'active' })
        .update({ step, waiting_event: s.event, updated_at: ctx.db.fn.now() });
      return waiting ? { next: step + 1 } : { ended: 'exited' };
    }
    case 'send': {
      const outcome = await sendStep(
        ctx,
        { teamId: e.team_id, agentId: e.agent_id, enrollmentId: e.id, step, contactId: e.contact_id },
        s,
      );
      await recordStepRun(ctx, e.id, step, outcome.status, outcome.detail);
      if (outcome.status === 'failed') return fail(ctx, e, step, outcome.detail);
      return moveOn(ctx, e.id, step + 1);
    }
    case 'runWarp':
      return runWarpStep(ctx, e, step, s);
    case 'branch':
      return branchStep(ctx, e, step, s);
    default:
      return fail(ctx, e, step, errorBody('unknown_step', `Step ${step} is not one an activity runs`));
  }
}
