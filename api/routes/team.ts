import { Router } from 'express';
import type { AppContext } from '../../services/context';
import { parseOrThrow } from '../../services/errors';
import { getTeam, teamUpdateSchema, updateTeam } from '../../services/teams';
import { authOf, teamAccess } from '../auth';
import { jsonBody, requireObjectBody } from '../http';

/** The team of `X-Team-Slug`: its profile, and whether `list_public_teams` lists it. */
export function teamRouter(ctx: AppContext): Router {
  const router = Router();
  router.get('/team', teamAccess(ctx, 'read'), async (req, res) => {
    res.json(await getTeam(ctx.db, authOf(req).team.id));
  });
  router.patch('/team', teamAccess(ctx, 'write'), ...jsonBody(ctx.config.BODY_LIMIT), async (req, res) => {
    res.json(await updateTeam(ctx.db, authOf(req).team.id, parseOrThrow(teamUpdateSchema, requireObjectBody(req), 'body')));
  });
  return router;
}
