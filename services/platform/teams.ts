import { z } from 'zod';
import type { Db } from '../../db/knex';
import { issueApiToken } from '../identity/apiTokens';
import { passwordSchema, setUserPassword } from '../identity/passwords';
import { keysetPage, Page, PageQuery } from './pagination';
import { Place, placeSchema, Settings, settingsSchema } from '../teams/schemas';

export const teamSlugSchema = z
  .string()
  .min(2)
  .max(63)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'lowercase letters, digits and single dashes');

export const bootstrapInputSchema = z.object({
  team: teamSlugSchema,
  email: z.email().optional(),
  agentName: z.string().min(1).max(100).optional(),
  /** Sets the owner's password, for signing in at the OAuth authorization page. */
  password: passwordSchema.optional(),
});
export type BootstrapInput = z.infer<typeof bootstrapInputSchema>;

export interface BootstrapResult {
  team: string;
  teamId: string;
  userId: string;
  email: string;
  agentId: string;
  token: string;
}

export function slugify(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 63) || 'agent'
  );
}

/**
 * Creates, where absent, a team with an owner, a first agent, and always a fresh API token (tokens
 * are shown once, so a second run cannot show the first one again). Safe to run twice.
 */
export async function bootstrapTeam(db: Db, raw: BootstrapInput): Promise<BootstrapResult> {
  const input = bootstrapInputSchema.parse(raw);
  const email = input.email ?? `owner@${input.team}.local`;
  return db.transaction(async (trx) => {
    await trx('teams').insert({ slug: input.team, name: input.team }).onConflict('slug').ignore();
    const team = await trx('teams').where({ slug: input.team }).first('id');
    await trx.raw('INSERT INTO users (email, name) VALUES (?, ?) ON CONFLICT ((lower(email))) DO NOTHING', [
      email,
      email.split('@')[0],
    ]);
    const user = await trx('users').whereRaw('lower(email) = lower(?)', [email]).first('id');
    await trx('memberships')
      .insert({ team_id: team.id, user_id: user.id, role: 'owner' })
      .onConflict(['team_id', 'user_id'])
      .ignore();
    let agent = await trx('agents').where({ team_id: team.id }).orderBy('seq').first('id');
    if (!agent) {
      const name = input.agentName ?? 'Assistant';
      [agent] = await trx('agents')
        .insert({ team_id: team.id, name, slug: slugify(name) })
        .returning('id');
    }
    if (input.password) await setUserPassword(trx, user.id, input.password);
    const { token } = await issueApiToken(trx, user.id, 'bootstrap');
    return { team: input.team, teamId: team.id, userId: user.id, email, agentId: agent.id, token };
  });
}

/** A team's own profile; `public` lists it in `list_public_teams`. */
export const teamSchema = z.object({
  slug: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  plan: z.string(),
  public: z.boolean(),
  /** Address, locale and time zone (`update_team_place`). */
  place: placeSchema,
  /** `update_team_settings`. */
  settings: settingsSchema,
  createdAt: z.iso.datetime(),
});
export type TeamJson = z.infer<typeof teamSchema>;
export const publicTeamSchema = teamSchema.pick({ slug: true, name: true, description: true });

export const teamUpdateSchema = z.strictObject({
  name: z.string().trim().min(1).max(100).optional(),
  description: z.string().trim().max(500).nullable().optional(),
  public: z.boolean().optional(),
});

interface TeamRow {
  seq: number;
  id: string;
  slug: string;
  name: string;
  description: string | null;
  plan: string;
  public: boolean;
  place: Place;
  settings: Settings;
  created_at: Date;
}

export const presentTeam = (row: TeamRow): TeamJson => ({
  slug: row.slug,
  name: row.name,
  description: row.description,
  plan: row.plan,
  public: row.public,
  place: row.place,
  settings: row.settings,
  createdAt: row.created_at.toISOString(),
});

export async function getTeam(db: Db, teamId: string): Promise<TeamJson> {
  return presentTeam(await db('teams').where({ id: teamId }).first());
}

export async function updateTeam(db: Db, teamId: string, input: z.infer<typeof teamUpdateSchema>): Promise<TeamJson> {
  if (Object.keys(input).length === 0) return getTeam(db, teamId);
  const [row] = await db('teams').where({ id: teamId }).update(input).returning('*');
  return presentTeam(row);
}

/** Teams that chose to be listed, oldest first. */
export function listPublicTeams(db: Db, page: PageQuery): Promise<Page<z.infer<typeof publicTeamSchema>>> {
  return keysetPage(
    db('teams').where({ public: true }).select('seq', 'slug', 'name', 'description'),
    page,
    (row: Pick<TeamRow, 'seq' | 'slug' | 'name' | 'description'>) => ({
      slug: row.slug,
      name: row.name,
      description: row.description,
    }),
  );
}
