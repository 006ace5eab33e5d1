import { z } from 'zod';
import { warpExecutionStart, warpWorkflowId, type WarpExecutionArgs } from '../../workflows/contracts/warpExecution';
import { sensitiveWrites, type SensitiveWarp } from '../catalog/sensitiveWrites';
import type { AppContext } from '../platform/context';
import type { SensitiveWrite, WarpCaller } from '../warps/sensitiveWrite';
import {
  claimExecution,
  dedupeKey,
  executionsOf,
  executionUrl,
  failUnstartedExecution,
  updateExecution,
  warpExecutionSchema,
} from './warpExecutions';
import { executionStatusSchema, ExecutionStatus } from './deliveryTypes';
import { AppError } from '../platform/errors';
import { newId } from '../../db/ids';
import { pageQuerySchema } from '../platform/pagination';

/**
 * How the sensitive writes run (the writes themselves: services/catalog/sensitiveWrites.ts): at
 * once for an agent in auto mode, or through a warp execution that waits for a person.
 */

const id = z.string().min(1).max(100);

/** What the warp-execution workflow is started with. */
export type WarpExecutionInput = WarpExecutionArgs<SensitiveWarp>;

export { warpWorkflowId };

/** The answer to a sensitive write that waits for a person (the spec's `pending: true`). */
export const pendingWriteSchema = z.object({
  pending: z.literal(true),
  executionId: z.string(),
  warp: z.string(),
  /** `running` when a retry finds the write already approved and under way. */
  status: z.enum(['pending_approval', 'running']),
  statusUrl: z.url(),
  message: z.string(),
});
export type PendingWrite = z.infer<typeof pendingWriteSchema>;

/**
 * A sensitive write by an agent in manual mode: opens (or finds, for a retry) its execution and
 * starts the workflow that waits for `approve` / `decline`.
 */
export async function requestApproval(
  ctx: AppContext,
  caller: WarpCaller,
  warp: SensitiveWarp,
  args: unknown,
  /** A keyed run's execution id (services/warps/warpKit.ts `WarpCall.executionId`). */
  keyedId?: string,
): Promise<PendingWrite> {
  const write = sensitiveWrites[warp] as SensitiveWrite<z.ZodType>;
  const claimed = await claimExecution(
    ctx.db,
    {
      id: keyedId ?? newId('wx'),
      team_id: caller.team.id,
      agent_id: caller.agentId,
      warp,
      status: 'pending_approval',
      input: JSON.stringify(args),
      created_by: caller.userId,
      dedupe_key: dedupeKey(caller.agentId, warp, args),
      approval_expires_at: ctx.db.raw(`now() + make_interval(secs => ?)`, [ctx.config.APPROVAL_TTL_SECONDS]),
    },
    warpWorkflowId,
    keyedId !== undefined,
  );
  const statusUrl = executionUrl(ctx.config.baseUrl, claimed.id);
  const answer: PendingWrite = {
    pending: true,
    executionId: claimed.id,
    warp,
    status: claimed.status === 'running' ? 'running' : 'pending_approval',
    statusUrl,
    message: `${write.describe(args)}: ${claimed.status === 'running' ? 'approved and running' : 'waiting for a person to approve'}. Poll check_warp_executions with this executionId; do not repeat the call.`,
  };
  // A retry whose first call died before the start starts it now; a started one is left alone.
  const input: WarpExecutionInput = {
    executionId: claimed.id,
    warp,
    approvalTimeoutMs: ctx.config.APPROVAL_TTL_SECONDS * 1000,
  };
  await ctx.temporal.startTracked(
    warpExecutionStart,
    input,
    {
      team: caller.team,
      staticSummary: `${warp} ${claimed.id} for team ${caller.team.slug}: ${write.describe(args)} (waiting for approval)`,
      staticDetails: `Warp execution **${claimed.id}**. Status: GET ${statusUrl}`,
    },
    {
      // Only a start that never reached Temporal fails the row; a timed-out one may still run, and a
      // retry must find the open execution rather than open a second one.
      onFailure: async ({ neverReached }) => neverReached && failUnstartedExecution(ctx.db, claimed),
      details: { executionId: claimed.id },
    },
  );
  return answer;
}

/** A sensitive write by an agent in auto mode: done at once. */
export function runSensitiveWrite(ctx: AppContext, caller: WarpCaller, warp: SensitiveWarp, args: unknown) {
  return (sensitiveWrites[warp] as SensitiveWrite<z.ZodType>).run(ctx, caller, args, null);
}

/**
 * The approved write, run by the worker and recorded on its execution. A rule it breaks now (the
 * campaign was sent meanwhile) settles it as failed with that error; a retry after a crash that
 * finds the write already done settles it as succeeded.
 */
export async function runApprovedWrite(
  ctx: AppContext,
  executionId: string,
  attempt: number,
): Promise<ExecutionStatus> {
  const row = await ctx
    .db('warp_executions')
    .join('teams', 'teams.id', 'warp_executions.team_id')
    .where('warp_executions.id', executionId)
    .first('warp_executions.*', 'teams.slug as team_slug', 'teams.plan as team_plan');
  if (row.status !== 'running') return row.status;
  const write = sensitiveWrites[row.warp as SensitiveWarp] as SensitiveWrite<z.ZodType>;
  const caller: WarpCaller = {
    team: { id: row.team_id, slug: row.team_slug, plan: row.team_plan },
    agentId: row.agent_id,
    userId: row.created_by,
  };
  let outcome: { status: 'succeeded'; result: Record<string, unknown> } | { status: 'failed'; error: unknown };
  try {
    outcome = { status: 'succeeded', result: await write.run(ctx, caller, write.schema.parse(row.input), executionId) };
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    outcome =
      attempt > 1 && write.alreadyDone?.(err)
        ? { status: 'succeeded', result: { alreadyDone: true } }
        : { status: 'failed', error: err.toBody() };
  }
  await updateExecution(ctx.db, executionId, outcome);
  return outcome.status;
}

export const executionsQuerySchema = z.strictObject({
  executionIds: z
    .array(id)
    .min(1)
    .max(50)
    .optional()
    .describe("The executionIds that sensitive writes answered with; omitted: the team's latest executions"),
  status: z.enum(['pending_approval', 'running', 'succeeded', 'failed', 'declined', 'expired']).optional(),
  limit: z.number().int().min(1).max(50).default(20).describe('Without executionIds: how many of the latest'),
});

/** Executions as `check_warp_executions` reports them, newest first; ids that are not the team's are listed apart. */
export const checkedExecutionsSchema = z.object({
  executions: z.array(warpExecutionSchema),
  unknownExecutionIds: z.array(z.string()).optional(),
});

export async function checkExecutions(
  ctx: AppContext,
  teamId: string,
  query: z.infer<typeof executionsQuerySchema>,
): Promise<z.input<typeof checkedExecutionsSchema>> {
  const executions = await executionsOf(ctx, teamId, (q) => {
    if (query.executionIds) q.whereIn('id', query.executionIds);
    else q.limit(query.limit);
    if (query.status) q.where({ status: query.status });
    return q;
  });
  if (!query.executionIds) return { executions };
  const known: string[] = await ctx
    .db('warp_executions')
    .where({ team_id: teamId })
    .whereIn('id', query.executionIds)
    .pluck('id');
  const unknown = query.executionIds.filter((executionId) => !known.includes(executionId));
  return { executions, ...(unknown.length ? { unknownExecutionIds: unknown } : {}) };
}

/** The warps an execution can be of: a delivery, or one of the sensitive writes. */
export const warpNames = ['artifact-deliver', ...Object.keys(sensitiveWrites)] as [string, ...string[]];

/** GET /v1/warp-executions: `status=pending_approval` is the approvals inbox. */
export const executionListQuerySchema = pageQuerySchema.extend({
  status: executionStatusSchema.optional(),
  warp: z.enum(warpNames).optional(),
});
