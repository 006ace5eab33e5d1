import type { Db } from '../db/knex';
import { decodeCursor, Page, PageQuery, toPage } from './pagination';

interface AgentRow {
  seq: number;
  id: string;
  name: string;
  slug: string;
  mode: string;
  created_at: Date;
}

export function presentAgent(row: AgentRow) {
  return { uuid: row.id, name: row.name, slug: row.slug, mode: row.mode, createdAt: row.created_at.toISOString() };
}
export type AgentJson = ReturnType<typeof presentAgent>;

export async function listAgents(db: Db, teamId: string, page: PageQuery): Promise<Page<AgentJson>> {
  const after = decodeCursor(page.cursor);
  const rows: AgentRow[] = await db('agents')
    .where({ team_id: teamId })
    .modify((q) => { if (after !== null) q.where('seq', '>', after); })
    .orderBy('seq')
    .limit(page.limit + 1)
    .select('seq', 'id', 'name', 'slug', 'mode', 'created_at');
  return toPage(rows, page.limit, presentAgent);
}

export async function findAgent(db: Db, teamId: string, agentId: string): Promise<AgentRow | undefined> {
  if (!/^[0-9a-f-]{36}$/i.test(agentId)) return undefined;
  return db('agents').where({ team_id: teamId, id: agentId }).first();
}
