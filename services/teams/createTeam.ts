import { z } from 'zod';
import type { Db } from '../../db/knex';
import { agentNameSchema, AgentJson, agentSchema, presentAgent } from '../agents/agents';
import type { Principal } from '../identity/principal';
import { AppError } from '../platform/errors';
import { presentTeam, slugify, TeamJson, teamSchema, teamSlugSchema } from '../platform/teams';
import { mergePatch, placePatchSchema } from './schemas';

export const teamCreateSchema = z.strictObject({
  slug: teamSlugSchema.describe(
    'The new team\'s slug: 2-63 lowercase letters, digits and single dashes, e.g. "acme-studio"',
  ),
  name: z.string().trim().min(1).max(100),
  description: z.string().trim().max(500).optional(),
  agentName: agentNameSchema.optional().describe('The name of its first agent (default "Assistant")'),
  place: placePatchSchema.optional().describe("The team's address, locale and time zone"),
});
export type TeamCreate = z.infer<typeof teamCreateSchema>;

export const teamCreatedSchema = z.object({
  team: teamSchema,
  agent: agentSchema,
  /** False: a retry that found the team this person had already created under this slug and name. */
  created: z.boolean(),
});

/**
 * `create_team` / `POST /teams`: a person makes a new team, becomes its owner, and gets its first
 * agent. Only a person's credential may: a team's OAuth client acts for its own team, and an
 * agent's turn must not spawn tenants. Their credential then works for the new team too (an API
 * token with `X-Team-Slug`; an OAuth token stays with the team it was granted for).
 *
 * Retrying is safe: the same slug, created by the same person under the same name, answers that
 * team again (`created: false`); a slug taken otherwise is 409 `conflict`.
 */
export async function createTeam(
  db: Db,
  principal: Principal,
  input: TeamCreate,
): Promise<{ team: TeamJson; agent: AgentJson; created: boolean }> {
  if (principal.kind === 'agent' || principal.userId === null)
    throw new AppError(
      'forbidden',
      "Creating a team needs a person's credential (an API token or a user's OAuth token)",
    );
  const userId = principal.userId;
  return db.transaction(async (trx) => {
    const [inserted] = await trx('teams')
      .insert({
        slug: input.slug,
        name: input.name,
        description: input.description ?? null,
        place: JSON.stringify(mergePatch({}, input.place ?? {})),
        created_by: userId,
      })
      .onConflict('slug')
      .ignore()
      .returning('*');
    if (!inserted) {
      const existing = await trx('teams').where({ slug: input.slug }).first();
      const member = await trx('memberships').where({ team_id: existing.id, user_id: userId }).first('role');
      if (existing.created_by !== userId || existing.name !== input.name || !member)
        throw new AppError('conflict', `The team slug "${input.slug}" is taken; choose another`, {
          slug: input.slug,
        });
      const agent = await trx('agents').where({ team_id: existing.id }).orderBy('seq').first();
      return { team: presentTeam(existing), agent: presentAgent(agent), created: false };
    }
    await trx('memberships').insert({ team_id: inserted.id, user_id: userId, role: 'owner' });
    const agentName = input.agentName ?? 'Assistant';
    const [agent] = await trx('agents')
      .insert({ team_id: inserted.id, name: agentName, slug: slugify(agentName) })
      .returning('*');
    return { team: presentTeam(inserted), agent: presentAgent(agent), created: true };
  });
}
