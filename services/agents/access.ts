import type { Db } from '../../db/knex';
import type { TeamRef } from '../platform/context';
import { notFound } from '../platform/errors';
import { readAgentAccess, type AgentAccess } from '../payments/schemas';

/**
 * How a caller reaches an agent named at `/mcp/agents/{uuid}`: as one of its team, or as an
 * outside caller of another team when the agent is public. Any other agent is a 404, whether it
 * exists or not, as before agents could be opened.
 */
export type AgentReach =
  | { kind: 'team' }
  | {
      kind: 'outside';
      agent: { id: string; name: string; mode: 'auto' | 'manual' };
      /** The agent's team: where its rooms live. */
      team: TeamRef;
      access: AgentAccess;
    };

export async function agentReach(db: Db, callerTeamId: string, agentUuid: string): Promise<AgentReach> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(agentUuid)) throw notFound('Agent');
  const row = await db('agents')
    .join('teams', 'teams.id', 'agents.team_id')
    .where('agents.id', agentUuid)
    .first(
      'agents.id',
      'agents.name',
      'agents.mode',
      'agents.access',
      'teams.id as teamId',
      'teams.slug as teamSlug',
      'teams.plan as teamPlan',
    );
  if (!row) throw notFound('Agent');
  if (row.teamId === callerTeamId) return { kind: 'team' };
  const access = readAgentAccess(row.access);
  if (!access.public) throw notFound('Agent');
  return {
    kind: 'outside',
    agent: { id: row.id, name: row.name, mode: row.mode },
    team: { id: row.teamId, slug: row.teamSlug, plan: row.teamPlan },
    access,
  };
}

/** All an outside caller sees and calls at a public agent's endpoint: talking to it, nothing of the team's. */
export const OUTSIDE_CALLER_TOOLS = ['prompt_agent'] as const;
