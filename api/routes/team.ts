import type { AppContext } from '../../services/platform/context';
import { getTeam, teamSchema, teamUpdateSchema, updateTeam } from '../../services/platform/teams';
import { authOf } from '../auth';
import { defineRoute, json, Route } from '../routeTable';

/** The team of `X-Team-Slug`: its profile, and whether `list_public_teams` lists it. */
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
      summary: 'Rename the team, describe it, or list it publicly (list_public_teams)',
      body: { kind: 'json', schema: teamUpdateSchema },
      responses: { 200: json(teamSchema, 'The team') },
      handler: async ({ req, body }) => ({ status: 200, body: await updateTeam(ctx.db, authOf(req).team.id, body) }),
    }),
  ];
}
