import type { Db } from '../../db/knex';
import type { Principal } from '../identity/principal';
import { AppError } from '../platform/errors';
import { getTeam, TeamJson, teamUpdateSchema, updateTeam } from '../platform/teams';
import type { z } from 'zod';

/** The roles that administer a team: its profile, place and settings. `member` uses the team but does not run it. */
export const ADMIN_ROLES = ['owner', 'admin'] as const;

const notAdmin = () =>
  new AppError('forbidden', "Changing the team needs a team admin (the team's owner or an admin)", {
    requiredRole: ADMIN_ROLES,
  });

/**
 * Team admin rights, from the person behind the credential: a user's own role in the team; for a
 * team's own OAuth client (client_credentials), the role of the person who registered it, so a
 * client never holds more than its registrant. An agent's turn acts with the rights of the user
 * whose message started it; a turn started by a team client has no person behind it.
 */
export async function requireTeamAdmin(db: Db, teamId: string, principal: Principal): Promise<void> {
  let userId = principal.userId;
  if (userId === null && principal.kind === 'oauth') {
    const client = await db('oauth_clients').where({ id: principal.clientId, team_id: teamId }).first('registered_by');
    userId = client?.registered_by ?? null;
  }
  if (userId === null) throw notAdmin();
  const membership = await db('memberships').where({ team_id: teamId, user_id: userId }).first('role');
  if (!membership || !(ADMIN_ROLES as readonly string[]).includes(membership.role)) throw notAdmin();
}

/** `update_team` / `PATCH /team`: name, description, listed publicly. */
export async function updateTeamAsAdmin(
  db: Db,
  teamId: string,
  principal: Principal,
  input: z.infer<typeof teamUpdateSchema>,
): Promise<TeamJson> {
  await requireTeamAdmin(db, teamId, principal);
  return Object.keys(input).length ? updateTeam(db, teamId, input) : getTeam(db, teamId);
}
