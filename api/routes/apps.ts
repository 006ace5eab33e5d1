import { Router } from 'express';
import { appSlug, installApp, listApps, uninstallApp } from '../../services/apps';
import type { AppContext } from '../../services/context';
import { creditUsage } from '../../services/credits';
import { authOf, teamAccess } from '../auth';

/** Native apps (what they add to the team's MCP tools) and the team's MCP credits. */
export function appsRouter(ctx: AppContext): Router {
  const router = Router();

  router.get('/apps', teamAccess(ctx, 'read'), async (req, res) => {
    res.json({ data: await listApps(ctx.db, authOf(req).team.id) });
  });
  router.put('/apps/:appSlug', teamAccess(ctx, 'write'), async (req, res) => {
    const { team, principal } = authOf(req);
    res.json(await installApp(ctx.db, team.id, appSlug(String(req.params.appSlug)), principal.userId));
  });
  router.delete('/apps/:appSlug', teamAccess(ctx, 'write'), async (req, res) => {
    res.json(await uninstallApp(ctx.db, authOf(req).team.id, appSlug(String(req.params.appSlug))));
  });

  router.get('/credits', teamAccess(ctx, 'read'), async (req, res) => {
    res.json(await creditUsage(ctx.db, authOf(req).team, ctx.config.MCP_CREDITS));
  });
  return router;
}
