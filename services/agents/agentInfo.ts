import { z } from 'zod';
import { agentSchema, findAgent, presentAgent } from './agents';
import { appSlugSchema, type AppSlug } from './apps';
import { integrationSchema, listIntegrations } from './integrations';
import type { AppContext, TeamRef } from '../platform/context';
import { creditUsage, creditUsageSchema } from '../platform/credits';
import { notFound } from '../platform/errors';
import { getTeam, teamSchema } from '../platform/teams';

export const agentInfoSchema = z.object({
  agent: agentSchema,
  team: teamSchema,
  integrations: z.array(integrationSchema.pick({ channel: true, provider: true, from: true, active: true })),
  installedApps: z.array(appSlugSchema),
  credits: creditUsageSchema,
});
export type AgentInfo = z.infer<typeof agentInfoSchema>;

/** What an MCP connection learns first: its agent, team, active channels, installed apps and credits left. */
export async function agentInfo(
  ctx: AppContext,
  team: TeamRef,
  agentId: string,
  installed: Set<AppSlug>,
): Promise<AgentInfo> {
  const agent = await findAgent(ctx.db, team.id, agentId);
  if (!agent) throw notFound('Agent');
  // One per channel: four at most, so one page holds them all.
  const integrations = await listIntegrations(ctx.db, ctx.secretBox, team.id, agentId, { limit: 100 });
  return {
    agent: presentAgent(agent),
    team: await getTeam(ctx.db, team.id),
    integrations: integrations.data.map((i) => ({
      channel: i.channel,
      provider: i.provider,
      from: i.from,
      active: i.active,
    })),
    installedApps: [...installed],
    credits: await creditUsage(ctx.db, team, ctx.config.MCP_CREDITS),
  };
}
