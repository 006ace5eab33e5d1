import { z } from 'zod';
import type { Db } from '../../db/knex';
import { keysetPage, Page, PageQuery } from '../platform/pagination';
import { AppError, notFound } from '../platform/errors';
import type { Principal } from '../identity/principal';
import { slugify } from '../platform/teams';
import { agentAccessSchema, agentAccessUpdateSchema, readAgentAccess } from '../payments/schemas';
import { requireTeamAdmin } from '../teams/admin';
import { AppSlug, installedOf } from './apps';
import {
  additionalOf,
  mergedProperties,
  propertiesSchema,
  propertyValueSchema,
} from '../platform/additionalProperties';

interface AgentRow {
  seq: number;
  id: string;
  name: string;
  slug: string;
  mode: string;
  model_base_url: string | null;
  model_name: string | null;
  access: unknown;
  properties: Record<string, unknown>;
  created_at: Date;
}

export const agentSchema = z.object({
  uuid: z.uuid(),
  name: z.string(),
  slug: z.string(),
  mode: z.enum(['auto', 'manual']),
  /** The agent's own OpenAI-compatible model; nulls: the server's AI_BASE_URL / AI_MODEL (else the offline default). */
  model: z.object({ baseUrl: z.string().nullable(), name: z.string().nullable() }),
  /** Who besides the team may prompt it on /mcp/agents/{uuid}, and what they pay (docs/AGENTS.md). */
  access: agentAccessSchema,
  /** Additional properties (spec: an Agent accepts them): what PATCH was given beyond the fields above. */
  properties: propertiesSchema,
  createdAt: z.iso.datetime(),
});
export type AgentJson = z.infer<typeof agentSchema>;

export function presentAgent(row: AgentRow): AgentJson {
  return {
    uuid: row.id,
    name: row.name,
    slug: row.slug,
    mode: row.mode as AgentJson['mode'],
    model: { baseUrl: row.model_base_url, name: row.model_name },
    access: readAgentAccess(row.access),
    properties: row.properties,
    createdAt: row.created_at.toISOString(),
  };
}

export async function listAgents(db: Db, teamId: string, page: PageQuery): Promise<Page<AgentJson>> {
  const query = db('agents')
    .where({ team_id: teamId })
    .select('seq', 'id', 'name', 'slug', 'mode', 'model_base_url', 'model_name', 'access', 'properties', 'created_at');
  return keysetPage(query, page, presentAgent);
}

export async function findAgent(db: Db, teamId: string, agentId: string): Promise<AgentRow | undefined> {
  if (!/^[0-9a-f-]{36}$/i.test(agentId)) return undefined;
  return db('agents').where({ team_id: teamId, id: agentId }).first();
}

export const agentNameSchema = z.string().trim().min(1, 'give the agent a name').max(100);

/** A new agent in the team; its slug is the name's, made unique within the team. */
export async function createAgent(db: Db, teamId: string, rawName: string): Promise<AgentJson> {
  const name = agentNameSchema.parse(rawName);
  const base = slugify(name);
  for (let attempt = 0; ; attempt++) {
    const slug = attempt === 0 ? base : `${base.slice(0, 56)}-${attempt + 1}`;
    const [row] = await db('agents')
      .insert({ team_id: teamId, name, slug })
      .onConflict(['team_id', 'slug'])
      .ignore()
      .returning('*');
    if (row) return presentAgent(row);
  }
}

/** The teams a user belongs to, each with its agents: what the consent page offers. */
export interface TeamAgents {
  teamId: string;
  teamSlug: string;
  teamName: string;
  agents: { id: string; name: string }[];
}

export async function agentsOfUser(db: Db, userId: string): Promise<TeamAgents[]> {
  const rows = await db('memberships')
    .join('teams', 'teams.id', 'memberships.team_id')
    .leftJoin('agents', 'agents.team_id', 'teams.id')
    .where('memberships.user_id', userId)
    .orderBy([{ column: 'teams.slug' }, { column: 'agents.seq' }])
    .select(
      'teams.id as teamId',
      'teams.slug as teamSlug',
      'teams.name as teamName',
      'agents.id as agentId',
      'agents.name as agentName',
    );
  const teams = new Map<string, TeamAgents>();
  for (const row of rows) {
    const team: TeamAgents = teams.get(row.teamId) ?? {
      teamId: row.teamId,
      teamSlug: row.teamSlug,
      teamName: row.teamName,
      agents: [],
    };
    teams.set(row.teamId, team);
    if (row.agentId) team.agents.push({ id: row.agentId, name: row.agentName });
  }
  return [...teams.values()];
}

/** PATCH /v1/agents/{id}: the fields below; any other key is an additional property (any JSON), merged into `properties`. */
export const agentUpdateSchema = z
  .object({
    name: agentNameSchema.optional(),
    /** auto: sensitive writes run at once; manual: they wait for an approval. */
    mode: z.enum(['auto', 'manual']).optional(),
    /** An OpenAI-compatible server for this agent (its key: the agent secret AI_API_KEY); null clears a field. */
    model: z
      .strictObject({
        baseUrl: z.url().max(500).nullable().optional().describe('e.g. http://localhost:11434/v1 (Ollama)'),
        name: z.string().min(1).max(200).nullable().optional().describe('e.g. llama3.1'),
      })
      .optional(),
    /**
     * Open prompt_agent on /mcp/agents/{uuid} to other teams' callers, and the payment gate they pass
     * first; a field left out stays. A team admin's change only: it lets people outside the team in.
     */
    access: agentAccessUpdateSchema.optional(),
    /** Merged key by key with the stored ones; null removes a key. */
    properties: propertiesSchema.optional(),
  })
  .catchall(propertyValueSchema);
export type AgentUpdate = z.infer<typeof agentUpdateSchema>;
const UPDATE_FIELDS = new Set(Object.keys(agentUpdateSchema.shape));

export async function updateAgent(
  db: Db,
  teamId: string,
  agentId: string,
  input: AgentUpdate,
  principal: Principal,
): Promise<AgentJson> {
  if (!/^[0-9a-f-]{36}$/i.test(agentId)) throw notFound('Agent');
  const { name, mode, model, access } = input;
  const properties = { ...additionalOf(input, UPDATE_FIELDS), ...input.properties };
  // Another team's agent stays a 404 for everyone; only then does the admin rule speak.
  if (access && !(await findAgent(db, teamId, agentId))) throw notFound('Agent');
  if (access) await requireTeamAdmin(db, teamId, principal);
  const changes = Object.fromEntries(
    Object.entries({
      name,
      mode,
      properties: Object.keys(properties).length ? mergedProperties(db, 'properties', properties) : undefined,
      model_base_url: model?.baseUrl,
      model_name: model?.name,
      // Top-level merge: the fields sent replace theirs, the others stay.
      access: access ? db.raw('access || ?::jsonb', [JSON.stringify(access)]) : undefined,
    }).filter(([, v]) => v !== undefined),
  );
  const query = db('agents').where({ team_id: teamId, id: agentId });
  const [row] = Object.keys(changes).length ? await query.update(changes).returning('*') : await query.select('*');
  if (!row) throw notFound('Agent');
  return presentAgent(row);
}

/**
 * The agent that sends for a team (deliveries, campaigns): the one named, else the preferred one
 * (the caller's OAuth agent), else the team's first. A named agent of another team is 422
 * `unknown_agent`; a team without agents is 422 `no_agent`.
 */
/** The agent an OAuth token was granted for (chosen at consent); an API token names none. */
export const credentialAgentId = (principal: Principal): string | null =>
  principal.kind === 'oauth' || principal.kind === 'agent' ? principal.agentId : null;

/**
 * What an MCP connection acts with, in one round trip: its agent and the team's installed apps.
 * The agent is the one the URL names (`/mcp/agents/{uuid}` or `/mcp?agent=<uuid>`; another team's,
 * or none, is 404), else the one chosen at the OAuth login if it is still the team's, else the
 * team's first (an API token on plain `/mcp`); a team without agents is 422 `no_agent`, as
 * `sendingAgent` answers.
 */
export async function mcpConnectionScope(
  db: Db,
  teamId: string,
  principal: Principal,
  named: string | undefined,
): Promise<McpScope> {
  const scope = mcpScopeQuery('t.team_id', named, credentialAgentId(principal));
  const {
    rows: [row],
  } = await db.raw<{ rows: McpScopeRow[] }>(
    `SELECT scope.* FROM (SELECT CAST(? AS uuid) AS team_id) AS t LEFT JOIN LATERAL (${scope.sql}) AS scope ON true`,
    [teamId, ...scope.bindings],
  );
  return mcpScopeOf(row, named);
}

export interface McpScope {
  agent: { id: string; mode: 'auto' | 'manual' };
  installed: Set<AppSlug>;
}

/** The row of `mcpScopeQuery`. */
export interface McpScopeRow {
  agent_id: string | null;
  agent_mode: 'auto' | 'manual' | null;
  apps: string[];
}

/**
 * `mcpConnectionScope`'s query for the team that `teamId` (an SQL expression) names, as a subquery
 * of one row (`McpScopeRow`) that another query may carry along (a lateral join), so that
 * authenticating an MCP request and finding its scope take one round trip. `preferred`: the agent
 * chosen at the OAuth login, if any.
 */
export function mcpScopeQuery(
  teamId: string,
  named: string | undefined,
  preferred: string | null,
): { sql: string; bindings: (string | boolean | null)[] } {
  const wanted = named ?? preferred;
  const wantedId = wanted && AGENT_ID.test(wanted) ? wanted : null;
  return {
    sql: `SELECT agent.id AS agent_id, agent.mode AS agent_mode,
                 ARRAY(SELECT app FROM team_apps WHERE team_apps.team_id = ${teamId}) AS apps
            FROM (SELECT 1) AS one
            LEFT JOIN LATERAL (
              SELECT id, mode FROM agents
               WHERE agents.team_id = ${teamId} AND (? = false OR id = CAST(? AS uuid))
               ORDER BY (id = CAST(? AS uuid)) IS TRUE DESC, seq
               LIMIT 1
            ) AS agent ON true`,
    bindings: [named !== undefined, wantedId, wantedId],
  };
}

/** The scope in a row of `mcpScopeQuery` for `named`, or its 404 or 422. */
export function mcpScopeOf(row: McpScopeRow, named: string | undefined): McpScope {
  if (!row.agent_id) {
    if (named !== undefined) throw notFound('Agent');
    throw new AppError('no_agent', 'The team has no agent to send with');
  }
  return { agent: { id: row.agent_id, mode: row.agent_mode! }, installed: installedOf(row.apps) };
}

const AGENT_ID = /^[0-9a-f-]{36}$/i;

export async function sendingAgent(
  db: Db,
  teamId: string,
  named?: string | null,
  preferred?: string | null,
): Promise<{ id: string; mode: 'auto' | 'manual' }> {
  if (named) {
    const agent = await findAgent(db, teamId, named);
    if (!agent) throw new AppError('unknown_agent', 'agentId is not an agent of this team', { agentId: named });
    return { id: agent.id, mode: agent.mode as 'auto' | 'manual' };
  }
  const agent =
    (preferred ? await findAgent(db, teamId, preferred) : undefined) ??
    (await db('agents').where({ team_id: teamId }).orderBy('seq').first());
  if (!agent) throw new AppError('no_agent', 'The team has no agent to send with');
  return { id: agent.id, mode: agent.mode };
}
