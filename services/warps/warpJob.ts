import { z } from 'zod';
import type { Db } from '../../db/knex';
import { sendingAgent } from '../agents/agents';
import type { AppContext } from '../platform/context';
import { AppError } from '../platform/errors';
import { executionIdFor } from '../../db/ids';
import { executeWarp, parseWarpInputs } from './execute';
import { builtInWarp } from '../catalog/warps';

/** `POST /v1/jobs { type: 'warp.run', input }`: a named warp, for an agent, as a job. */
export const warpRunInputSchema = z.strictObject({
  warp: z.string().min(1).max(100),
  agentId: z.string().max(100).optional().describe("The agent it acts as (default: the team's first)"),
  inputs: z.record(z.string(), z.unknown()).default({}),
});
export type WarpRunInput = z.infer<typeof warpRunInputSchema>;

/** Checked when the job is created: the warp exists (built-in or the team's), its inputs, the agent. */
export async function prepareWarpRun(db: Db, teamId: string, input: WarpRunInput): Promise<WarpRunInput> {
  const agent = await sendingAgent(db, teamId, input.agentId, null);
  const w = builtInWarp(input.warp);
  if (w) parseWarpInputs(w, input.inputs);
  else if (!(await db('private_warps').where({ team_id: teamId, name: input.warp }).first('id')))
    throw new AppError('unknown_warp', `Unknown warp ${input.warp}`, { warp: input.warp });
  return { ...input, agentId: agent.id };
}

/**
 * The job's one activity: runs the warp as `execute` does (recorded as a warp execution too) and
 * answers what it answered. A rule the warp breaks fails the job with that error.
 */
export async function runWarpJob(ctx: AppContext, jobId: string): Promise<Record<string, unknown>> {
  const job = await ctx
    .db('jobs')
    .join('teams', 'teams.id', 'jobs.team_id')
    .where('jobs.id', jobId)
    .first('jobs.*', 'teams.slug as team_slug', 'teams.plan as team_plan');
  const input = job.input as WarpRunInput;
  const agent = await sendingAgent(ctx.db, job.team_id, input.agentId, null);
  const answer = await executeWarp(
    {
      ctx,
      team: { id: job.team_id, slug: job.team_slug, plan: job.team_plan },
      principal: { kind: 'agent', userId: job.created_by, credentialId: jobId, agentId: agent.id, scopes: ['mcp:use'] },
      agent,
      // A retried job activity finds the execution its first attempt opened.
      executionId: executionIdFor(`job:${jobId}`),
    },
    input.warp,
    input.inputs,
  );
  return { ...answer };
}
