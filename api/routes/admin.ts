import { z } from 'zod';
import type { AppContext } from '../../services/platform/context';
import { setTeamPlan, teamPlanResultSchema, teamPlanUpdateSchema } from '../../services/platform/plans';
import { defineRoute, json, Route } from '../routeTable';

/** Platform administration: what an operator does to any team (docs/AUTH.md › Platform operators). */
export function adminRoutes(ctx: AppContext): Route[] {
  return [
    defineRoute({
      method: 'put',
      path: '/admin/teams/{slug}/plan',
      tag: 'Platform administration',
      access: 'platform-admin',
      summary:
        "Put a team on a plan (platform operators' API tokens only; no team header): the new credits and quota " +
        'apply to the current cycle at once',
      description:
        'An unknown plan is a 400 `validation_error` listing the known ones in `details.knownPlans`; anyone ' +
        'but a platform operator gets 403 `forbidden` (team owners included); an unknown team 404.',
      params: z.object({ slug: z.string() }),
      body: { kind: 'json', schema: teamPlanUpdateSchema },
      responses: {
        200: json(teamPlanResultSchema, '{ team, credits }: the team on its plan and its usage this cycle'),
      },
      errors: [404],
      handler: async ({ params, body }) => ({
        status: 200,
        body: await setTeamPlan(ctx.db, ctx.config, params.slug, body.plan),
      }),
    }),
  ];
}
