import { z } from 'zod';
import type { Db } from '../../db/knex';
import { AppError, notFound } from '../platform/errors';
import { newId } from '../../db/ids';
import { keysetPage, Page, PageQuery } from '../platform/pagination';
import { requireAgent } from './character';
import { changesSomething } from './memories';
import { searchTerms } from './memorySearch';

export const skillNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'use lowercase letters, digits and single hyphens, e.g. "write-invoice"')
  .describe('A short slug, unique per agent, e.g. "write-invoice"');

export const skillCreateSchema = z.strictObject({
  name: skillNameSchema,
  description: z
    .string()
    .trim()
    .min(1)
    .max(500)
    .describe('When the skill applies, in words a message would use: a turn loads the skill when it matches'),
  instructions: z.string().trim().min(1).max(20_000).describe('What to do, step by step, when the skill applies'),
});
export type SkillCreate = z.infer<typeof skillCreateSchema>;

/** What an update may change (the create fields have no defaults, so a field left out stays). */
export const skillChangesSchema = skillCreateSchema.partial();
export const skillUpdateSchema = skillChangesSchema.refine(
  (s) => changesSomething(s, ['name', 'description', 'instructions']),
  { message: 'give name, description or instructions' },
);
export type SkillUpdate = z.infer<typeof skillUpdateSchema>;

export const skillSchema = z.object({
  id: z.string(),
  agentId: z.uuid(),
  name: z.string(),
  description: z.string(),
  instructions: z.string(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type SkillJson = z.infer<typeof skillSchema>;

interface SkillRow {
  seq: number;
  id: string;
  agent_id: string;
  name: string;
  description: string;
  instructions: string;
  created_at: Date;
  updated_at: Date;
}

const present = (row: SkillRow): SkillJson => ({
  id: row.id,
  agentId: row.agent_id,
  name: row.name,
  description: row.description,
  instructions: row.instructions,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

/** The 409 for a name the agent already uses (names are how a person and a model refer to skills). */
async function nameTaken(db: Db, agentId: string, name: string): Promise<AppError> {
  const existing = await db('skills').where({ agent_id: agentId, name }).first('id');
  return new AppError('conflict', `The agent already has a skill named "${name}"`, { skillId: existing?.id });
}

const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === '23505';

export async function listSkills(db: Db, teamId: string, agentId: string, page: PageQuery): Promise<Page<SkillJson>> {
  await requireAgent(db, teamId, agentId);
  return keysetPage(db('skills').where({ team_id: teamId, agent_id: agentId }).select('*'), page, present);
}

export async function createSkill(db: Db, teamId: string, agentId: string, input: SkillCreate): Promise<SkillJson> {
  await requireAgent(db, teamId, agentId);
  const [row] = await db('skills')
    .insert({ id: newId('skl'), team_id: teamId, agent_id: agentId, ...input })
    .onConflict(['agent_id', 'name'])
    .ignore()
    .returning('*');
  if (!row) throw await nameTaken(db, agentId, input.name);
  return present(row);
}

export async function updateSkill(
  db: Db,
  teamId: string,
  agentId: string,
  skillId: string,
  input: SkillUpdate,
): Promise<SkillJson> {
  await requireAgent(db, teamId, agentId);
  const changes = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
  try {
    const [row] = await db('skills')
      .where({ team_id: teamId, agent_id: agentId, id: skillId })
      .update({ ...changes, updated_at: db.fn.now() })
      .returning('*');
    if (!row) throw notFound('Skill');
    return present(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw await nameTaken(db, agentId, input.name!);
    throw err;
  }
}

export async function deleteSkill(db: Db, teamId: string, agentId: string, skillId: string): Promise<void> {
  await requireAgent(db, teamId, agentId);
  const deleted = await db('skills').where({ team_id: teamId, agent_id: agentId, id: skillId }).delete();
  if (!deleted) throw notFound('Skill');
}

/**
 * For a turn: the agent's skills that bear on `text` (the incoming message), best first, at most
 * `limit`. A skill matches when any of the message's words is in its name or description (full
 * text, ranked by how many), or a longer word nearly is (trigram word similarity, for typos and
 * word forms: "invoices" finds "invoice"). An agent has tens of skills, so this reads them by the
 * (agent_id, name) index and ranks in one statement.
 */
export async function relevantSkills(
  db: Db,
  agentId: string,
  text: string,
  limit: number,
): Promise<{ id: string; name: string; description: string; instructions: string; score: number }[]> {
  const words = searchTerms(text, 16);
  if (!words.length) return [];
  const fuzzy = searchTerms(text, 6, 5);
  const document = "(replace(name, '-', ' ') || ' ' || description)";
  // A skill is near when one of the longer words nearly occurs in it (pg_trgm's default threshold).
  const similarity = fuzzy.length ? `greatest(${fuzzy.map(() => `word_similarity(?, ${document})`).join(', ')})` : '0';
  const { rows } = await db.raw(
    `WITH scored AS (
       SELECT id, name, description, instructions, seq,
              ts_rank_cd(to_tsvector('simple', ${document}), to_tsquery('simple', ?)) AS rank,
              ${similarity} AS sim
       FROM skills WHERE agent_id = ?
     ), ranked AS (
       SELECT *, row_number() OVER (ORDER BY rank DESC, seq) AS fts_r, row_number() OVER (ORDER BY sim DESC, seq) AS trgm_r
       FROM scored
     )
     SELECT id, name, description, instructions,
            (CASE WHEN rank > 0 THEN 1.0::float8 / (60 + fts_r) ELSE 0 END) +
            (CASE WHEN sim >= 0.6 THEN 1.0::float8 / (60 + trgm_r) ELSE 0 END) AS score
     FROM ranked
     WHERE rank > 0 OR sim >= 0.6
     ORDER BY score DESC, seq
     LIMIT ?`,
    [words.join(' | '), ...fuzzy, agentId, limit],
  );
  return rows.map((r: { id: string; name: string; description: string; instructions: string; score: number }) => ({
    ...r,
    score: Number(r.score.toFixed(6)),
  }));
}
