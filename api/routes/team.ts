import type { AppContext } from '../../services/platform/context';
import { getTeam, teamSchema, teamUpdateSchema } from '../../services/platform/teams';
import { updateTeamAsAdmin } from '../../services/teams/admin';
import { createTeam, teamCreatedSchema, teamCreateSchema } from '../../services/teams/createTeam';
import { updateTeamPlace, updateTeamSettings } from '../../services/teams/placeAndSettings';
import { placePatchSchema, settingsPatchSchema } from '../../services/teams/schemas';
import { authOf } from '../auth';
import { defineRoute, json, Route } from '../routeTable';

/**
 * The team of `X-Team-Slug`: its profile, place and settings (changed by a team admin), and
 * `POST /teams`, a person's new team (no team header: the team does not exist yet).
 */
export function teamRoutes(ctx: AppContext): Route[] {
  return [
    defineRoute({
      method: 'get',
      path: '/team',
      tag: 'Team',
      access: 'read',
      summary: 'The team of X-Team-Slug',
      responses: { 200: json(teamSchema, 'The team') },
      handler: async ({ req }) => ({ status: 200, body: await getTeam(ctx.db, authOf(req).team.id) }),
    }),
    defineRoute({
      method: 'patch',
      path: '/team',
      tag: 'Team',
      access: 'write',
      summary: 'Rename the team, describe it, or list it publicly (list_public_teams); a team admin only',
      body: { kind: 'json', schema: teamUpdateSchema },
      responses: { 200: json(teamSchema, 'The team') },
      handler: async ({ req, body }) => {
        const { team, principal } = authOf(req);
        return { status: 200, body: await updateTeamAsAdmin(ctx.db, team.id, principal, body) };
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/team/place',
      tag: 'Team',
      access: 'write',
      summary: "Set the team's address, locale and time zone (JSON merge patch: null removes); a team admin only",
      body: { kind: 'json', schema: placePatchSchema },
      responses: { 200: json(teamSchema, 'The team') },
      handler: async ({ req, body }) => {
        const { team, principal } = authOf(req);
        return { status: 200, body: await updateTeamPlace(ctx.db, team.id, principal, body) };
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/team/settings',
      tag: 'Team',
      access: 'write',
      summary: "Change the team's settings (JSON merge patch: null removes); a team admin only",
      body: { kind: 'json', schema: settingsPatchSchema },
      responses: { 200: json(teamSchema, 'The team') },
      handler: async ({ req, body }) => {
        const { team, principal } = authOf(req);
        return { status: 200, body: await updateTeamSettings(ctx.db, team.id, principal, body) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/teams',
      tag: 'Team',
      access: 'user:write',
      summary: 'Create a team: the caller becomes its owner, and it gets a first agent (no team header)',
      body: { kind: 'json', schema: teamCreateSchema },
      responses: {
        201: json(teamCreatedSchema, 'The new team and its first agent'),
        200: json(teamCreatedSchema, 'A retry: the team this person already created under this slug and name'),
      },
      handler: async ({ req, body }) => {
        const answer = await createTeam(ctx.db, req.principal!, body);
        return { status: answer.created ? 201 : 200, body: answer };
      },
    }),
  ];
}
