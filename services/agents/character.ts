import { z } from 'zod';
import type { Db } from '../../db/knex';
import { notFound } from '../platform/errors';
import { findAgent } from './agents';

/** The longest persona or instructions: both are loaded into every turn's prompt, so they stay short. */
export const CHARACTER_MAX_CHARS = 8000;

const characterText = z.string().trim().min(1).max(CHARACTER_MAX_CHARS).nullable();

/** Who the agent is (persona) and how it works (instructions); a field left out stays, null clears it. */
export const characterUpdateSchema = z.strictObject({
  persona: characterText.optional().describe('Who the agent is: voice, role, what it cares about; null clears it'),
  instructions: characterText
    .optional()
    .describe('How the agent works: rules it follows in every conversation; null clears it'),
});
export type CharacterUpdate = z.infer<typeof characterUpdateSchema>;

export const characterSchema = z.object({
  agentId: z.uuid(),
  name: z.string(),
  persona: z.string().nullable(),
  instructions: z.string().nullable(),
});
export type CharacterJson = z.infer<typeof characterSchema>;

interface CharacterRow {
  id: string;
  name: string;
  persona: string | null;
  instructions: string | null;
}

const present = (row: CharacterRow): CharacterJson => ({
  agentId: row.id,
  name: row.name,
  persona: row.persona,
  instructions: row.instructions,
});

/**
 * The agent `agentId` of the team, or 404 (an agent of another team included, so that ids cannot
 * be probed): the check every memory, skill, document and character operation starts with.
 */
export async function requireAgent(db: Db, teamId: string, agentId: string): Promise<{ id: string; name: string }> {
  const agent = await findAgent(db, teamId, agentId);
  if (!agent) throw notFound('Agent');
  return agent;
}

export async function getCharacter(db: Db, teamId: string, agentId: string): Promise<CharacterJson> {
  await requireAgent(db, teamId, agentId);
  return present(await db('agents').where({ id: agentId }).first('id', 'name', 'persona', 'instructions'));
}

export async function updateCharacter(
  db: Db,
  teamId: string,
  agentId: string,
  input: CharacterUpdate,
): Promise<CharacterJson> {
  await requireAgent(db, teamId, agentId);
  const changes = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
  const query = db('agents').where({ team_id: teamId, id: agentId });
  const [row] = Object.keys(changes).length
    ? await query.update(changes).returning(['id', 'name', 'persona', 'instructions'])
    : await query.select('id', 'name', 'persona', 'instructions');
  return present(row);
}

/**
 * For a turn: the agent's name, persona and instructions, the head of every prompt. The turn has
 * already resolved the agent within its team, so this reads by id alone; undefined once deleted.
 */
export async function characterOf(
  db: Db,
  agentId: string,
): Promise<{ name: string; persona: string | null; instructions: string | null } | undefined> {
  const row = await db('agents').where({ id: agentId }).first('name', 'persona', 'instructions');
  return row ? { name: row.name, persona: row.persona, instructions: row.instructions } : undefined;
}
