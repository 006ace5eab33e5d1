import { z } from 'zod';
import type { Db } from '../../db/knex';
import { creditUsage, creditUsageSchema } from './credits';
import { AppError, notFound } from './errors';
import { getTeam, teamSchema } from './teams';

/** The settings that name plans: each plan's MCP credits and its API request quota. */
export interface PlanSettings {
  MCP_CREDITS: Record<string, number>;
  RATE_LIMITS: Record<string, unknown>;
}

/** Every plan a setting names (MCP_CREDITS or RATE_LIMITS): a plan no setting knows would be a typo. */
export function knownPlans(settings: PlanSettings): string[] {
  return [...new Set([...Object.keys(settings.MCP_CREDITS), ...Object.keys(settings.RATE_LIMITS)])].sort();
}

export const teamPlanUpdateSchema = z.strictObject({
  plan: z.string().trim().min(1).max(64).describe('A plan named in MCP_CREDITS or RATE_LIMITS, e.g. "pro"'),
});

export const teamPlanResultSchema = z.object({ team: teamSchema, credits: creditUsageSchema });
export type TeamPlanResult = z.infer<typeof teamPlanResultSchema>;

/**
 * Puts a team on a plan: a platform operator's act (`PUT /v1/admin/teams/{slug}/plan`, `cli
 * set-plan`), never a team member's. Every request reads the team's plan afresh, so the new
 * allowance and quota apply to the current billing cycle at once; credits used so far stay used.
 * Setting the plan a team already has changes nothing.
 */
export async function setTeamPlan(db: Db, settings: PlanSettings, slug: string, plan: string): Promise<TeamPlanResult> {
  const plans = knownPlans(settings);
  if (!plans.includes(plan)) {
    throw new AppError('validation_error', `Unknown plan "${plan}"; known plans: ${plans.join(', ')}`, {
      issues: [{ path: 'plan', message: 'unknown plan', code: 'invalid_value' }],
      knownPlans: plans,
    });
  }
  const [row] = await db('teams').where({ slug }).update({ plan }).returning(['id', 'slug', 'plan']);
  if (!row) throw notFound(`Team "${slug}"`);
  return { team: await getTeam(db, row.id), credits: await creditUsage(db, row, settings.MCP_CREDITS) };
}
