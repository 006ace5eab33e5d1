import type { Db } from '../../db/knex';
import type { Principal } from '../identity/principal';
import { AppError } from '../platform/errors';
import { presentTeam, TeamJson } from '../platform/teams';
import { requireTeamAdmin } from './admin';
import { mergePatch, PlacePatch, SettingsPatch } from './schemas';

/**
 * Patches one JSON column of the team under its row lock (two admins patching at once both land),
 * with JSON merge patch semantics (services/teams/schemas.ts).
 */
async function patchColumn(
  db: Db,
  teamId: string,
  principal: Principal,
  column: 'place' | 'settings',
  patch: Record<string, unknown>,
  check?: (merged: Record<string, unknown>) => Promise<void>,
): Promise<TeamJson> {
  await requireTeamAdmin(db, teamId, principal);
  return db.transaction(async (trx) => {
    const row = await trx('teams').where({ id: teamId }).forUpdate().first();
    const merged = mergePatch(row[column], patch) as Record<string, unknown>;
    await check?.(merged);
    const [updated] = await trx('teams')
      .where({ id: teamId })
      .update({ [column]: JSON.stringify(merged) })
      .returning('*');
    return presentTeam(updated);
  });
}

/** `update_team_place` / `PATCH /team/place`. */
export const updateTeamPlace = (db: Db, teamId: string, principal: Principal, patch: PlacePatch) =>
  patchColumn(db, teamId, principal, 'place', patch);

/** `update_team_settings` / `PATCH /team/settings`: a logo must be a file of the team. */
export const updateTeamSettings = (db: Db, teamId: string, principal: Principal, patch: SettingsPatch) =>
  patchColumn(db, teamId, principal, 'settings', patch, async (merged) => {
    const logo = (merged.brand as { logoMediaId?: string } | undefined)?.logoMediaId;
    if (logo && !(await db('media').where({ team_id: teamId, id: logo }).first('id')))
      throw new AppError('unknown_media', 'brand.logoMediaId is not a file of this team', { mediaIds: [logo] });
  });
