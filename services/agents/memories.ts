import { z } from 'zod';
import type { Db } from '../../db/knex';
import { notFound } from '../platform/errors';
import { newId } from '../../db/ids';
import { pageQuerySchema } from '../platform/pagination';
import { requireAgent } from './character';

const memoryContent = z.string().trim().min(1).max(4000).describe('The fact to remember, in a sentence or two');
const memoryTags = z.array(z.string().trim().min(1).max(50)).max(20).describe('Labels, e.g. ["client", "billing"]');
const memoryImportance = z
  .number()
  .int()
  .min(1)
  .max(5)
  .describe('1 (trivia) .. 5 (always relevant); the most important memories are loaded into every turn');

export const memoryCreateSchema = z.strictObject({
  content: memoryContent,
  tags: memoryTags.default([]),
  importance: memoryImportance.default(3),
});
export type MemoryCreate = z.infer<typeof memoryCreateSchema>;

/** What an update may change; without defaults, so a field left out stays as it is. */
export const memoryChangesSchema = z.strictObject({
  content: memoryContent.optional(),
  tags: memoryTags.optional(),
  importance: memoryImportance.optional(),
});
/** An update must change something. */
export const changesSomething = (fields: Record<string, unknown>, keys: string[]) =>
  keys.some((key) => fields[key] !== undefined);
export const memoryUpdateSchema = memoryChangesSchema.refine(
  (m) => changesSomething(m, ['content', 'tags', 'importance']),
  { message: 'give content, tags or importance' },
);
export type MemoryUpdate = z.infer<typeof memoryUpdateSchema>;

export const memorySearchQuerySchema = z.object({
  q: z.string().max(500).optional().describe('Words to look for; typos are tolerated. Empty: the top memories'),
  limit: z.coerce.number().int().min(1).max(50).default(10),
  cursor: pageQuerySchema.shape.cursor,
});
export type MemorySearch = z.infer<typeof memorySearchQuerySchema>;

export const memorySchema = z.object({
  id: z.string(),
  agentId: z.uuid(),
  content: z.string(),
  tags: z.array(z.string()),
  importance: z.number().int(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type MemoryJson = z.infer<typeof memorySchema>;

/** A search hit: `score` is the fused reciprocal rank (higher first); 0 when listed without a query. */
export const memoryHitSchema = memorySchema.extend({ score: z.number() });
export type MemoryHit = z.infer<typeof memoryHitSchema>;

export interface MemoryRow {
  id: string;
  agent_id: string;
  content: string;
  tags: string[];
  importance: number;
  created_at: Date;
  updated_at: Date;
  score?: number;
}

export const COLUMNS = ['id', 'agent_id', 'content', 'tags', 'importance', 'created_at', 'updated_at'];

export const present = (row: MemoryRow): MemoryJson => ({
  id: row.id,
  agentId: row.agent_id,
  content: row.content,
  tags: row.tags,
  importance: row.importance,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

export async function createMemory(db: Db, teamId: string, agentId: string, input: MemoryCreate): Promise<MemoryJson> {
  await requireAgent(db, teamId, agentId);
  const [row] = await db('memories')
    .insert({ id: newId('mem'), team_id: teamId, agent_id: agentId, ...input })
    .returning(COLUMNS);
  return present(row);
}

export async function updateMemory(
  db: Db,
  teamId: string,
  agentId: string,
  memoryId: string,
  input: MemoryUpdate,
): Promise<MemoryJson> {
  await requireAgent(db, teamId, agentId);
  const changes = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
  const [row] = await db('memories')
    .where({ team_id: teamId, agent_id: agentId, id: memoryId })
    .update({ ...changes, updated_at: db.fn.now() })
    .returning(COLUMNS);
  if (!row) throw notFound('Memory');
  return present(row);
}

export async function deleteMemory(db: Db, teamId: string, agentId: string, memoryId: string): Promise<void> {
  await requireAgent(db, teamId, agentId);
  const deleted = await db('memories').where({ team_id: teamId, agent_id: agentId, id: memoryId }).delete();
  if (!deleted) throw notFound('Memory');
}
