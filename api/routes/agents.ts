import { Router } from 'express';
import { listAgents } from '../../services/agents';
import type { AppContext } from '../../services/context';
import { parseOrThrow } from '../../services/errors';
import { pageQuerySchema } from '../../services/pagination';
import { authOf, teamAccess } from '../auth';

export function agentsRouter(ctx: AppContext): Router {
  const router = Router();
  router.get('/agents', teamAccess(ctx, 'read'), async (req, res) => {
    const page = parseOrThrow(pageQuerySchema, req.query, 'query');
    res.json(await listAgents(ctx.db, authOf(req).team.id, page));
  });
  return router;
}
