import { z } from 'zod';
import type { Db } from '../db/knex';
import { keysetPage, Page, PageQuery } from './pagination';

interface AgentRow {
  seq: number;
  id: string;
  name: string;
  slug: string;
  mode: string;
  created_at: Date;
}

export const agentSchema = z.object({
  uuid: z.uuid(),
  name: z.string(),
  slug: z.string(),
  mode: z.enum(['auto', 'manual']),
  createdAt: z.iso.datetime(),
});
export type AgentJson = z.infer<typeof agentSchema>;

export function presentAgent(row: AgentRow): AgentJson {
  return { uuid: row.id, name: row.name, slug: row.slug, mode: row.mode as AgentJson['mode'], createdAt: row.created_at.toISOString() };
}

export async function listAgents(db: Db, teamId: string, page: PageQuery): Promise<Page<AgentJson>> {
  const query = db('agents').where({ team_id: teamId }).select('seq', 'id', 'name', 'slug', 'mode', 'created_at');
  return keysetPage(query, page, presentAgent);
}

export async function findAgent(db: Db, teamId: string, agentId: string): Promise<AgentRow | undefined> {
  if (!/^[0-9a-f-]{36}$/i.test(agentId)) return undefined;
  return db('agents').where({ team_id: teamId, id: agentId }).first();
}
