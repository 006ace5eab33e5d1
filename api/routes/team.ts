import type { AppContext } from '../../services/platform/context';
import { createTeam, teamCreatedSchema, teamCreateSchema } from '../../services/teams/createTeam';
import { defineRoute, json, Route } from '../routeTable';

/**
 * `POST /teams`, a person's new team: a user-level route (no team header: the team does not exist
 * yet). The team of `X-Team-Slug` is the `team` feature (services/teams/operations.ts); over MCP,
 * `create_team` is its `team.create`, the same service function.
 */
export function teamRoutes(ctx: AppContext): Route[] {
  return [
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
