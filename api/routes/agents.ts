import { Router } from 'express';
import { agentUpdateSchema, listAgents, updateAgent } from '../../services/agents';
import { clearSecret, listSecrets, secretKeyInputSchema, secretSetSchema, setSecret } from '../../services/agentSecrets';
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

  /** The agent's secrets: keys and status only; a value goes in and never comes out. */
  router.get('/agents/:agentId/secrets', teamAccess(ctx, 'read'), async (req, res) => {
    res.json({ data: await listSecrets(ctx.db, authOf(req).team.id, String(req.params.agentId)) });
  });
  router.put('/agents/:agentId/secrets/:key', teamAccess(ctx, 'write'), ...body, async (req, res) => {
    const { team, principal } = authOf(req);
    const input = parseOrThrow(secretSetSchema, { ...requireObjectBody(req), key: req.params.key }, 'body');
    res.json(await setSecret(ctx.db, ctx.secretBox, team.id, String(req.params.agentId), input, principal.userId));
  });
  router.delete('/agents/:agentId/secrets/:key', teamAccess(ctx, 'write'), async (req, res) => {
    const { key } = parseOrThrow(secretKeyInputSchema, { key: req.params.key }, 'path');
    res.json(await clearSecret(ctx.db, authOf(req).team.id, String(req.params.agentId), key));
  });

  return router;
}
