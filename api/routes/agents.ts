import { Router } from 'express';
import { agentUpdateSchema, listAgents, updateAgent } from '../../services/agents';
import type { AppContext } from '../../services/context';
import { parseOrThrow } from '../../services/errors';
import { integrationInputSchema, listIntegrations, setIntegration } from '../../services/integrations';
import { pageQuerySchema } from '../../services/pagination';
import { authOf, teamAccess } from '../auth';
import { jsonBody, requireObjectBody } from '../http';

export function agentsRouter(ctx: AppContext): Router {
  const router = Router();
  const body = jsonBody(ctx.config.BODY_LIMIT);

  router.get('/agents', teamAccess(ctx, 'read'), async (req, res) => {
    const page = parseOrThrow(pageQuerySchema, req.query, 'query');
    res.json(await listAgents(ctx.db, authOf(req).team.id, page));
  });

  /** Name and mode (auto: sensitive writes run at once; manual: they wait for approval). */
  router.patch('/agents/:agentId', teamAccess(ctx, 'write'), ...body, async (req, res) => {
    const input = parseOrThrow(agentUpdateSchema, requireObjectBody(req), 'body');
    res.json(await updateAgent(ctx.db, authOf(req).team.id, String(req.params.agentId), input));
  });

  router.get('/agents/:agentId/integrations', teamAccess(ctx, 'read'), async (req, res) => {
    res.json({ data: await listIntegrations(ctx.db, ctx.secretBox, authOf(req).team.id, String(req.params.agentId)) });
  });

  router.put('/agents/:agentId/integrations/:channel', teamAccess(ctx, 'write'), ...body, async (req, res) => {
    const input = parseOrThrow(integrationInputSchema, requireObjectBody(req), 'body');
    res.json(await setIntegration(ctx.db, ctx.secretBox, { inboxDomain: ctx.config.INBOX_DOMAIN }, authOf(req).team.id, String(req.params.agentId), String(req.params.channel), input));
  });

  return router;
}
