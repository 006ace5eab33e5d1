import { Router } from 'express';
import { apiTokenCreateSchema, createApiToken, listApiTokens, revokeApiToken } from '../../services/apiTokens';
import type { AppContext } from '../../services/context';
import { parseOrThrow } from '../../services/errors';
import { pageQuerySchema } from '../../services/pagination';
import { userAccess, userOf } from '../auth';
import { jsonBody, requireObjectBody } from '../http';

/** A user's own API tokens: list, create (the token is shown once), revoke. No team header: tokens belong to the user. */
export function apiTokensRouter(ctx: AppContext): Router {
  const router = Router();

  router.get('/api-tokens', userAccess(ctx, 'read'), async (req, res) => {
    res.json(await listApiTokens(ctx.db, userOf(req), parseOrThrow(pageQuerySchema, req.query, 'query')));
  });

  router.post('/api-tokens', userAccess(ctx, 'write'), ...jsonBody(ctx.config.BODY_LIMIT), async (req, res) => {
    const input = parseOrThrow(apiTokenCreateSchema, requireObjectBody(req), 'body');
    const created = await createApiToken(ctx.db, userOf(req), input);
    res.status(201).setHeader('Location', `${ctx.config.baseUrl}/api-tokens/${created.id}`).setHeader('Cache-Control', 'no-store').json(created);
  });

  router.delete('/api-tokens/:tokenId', userAccess(ctx, 'write'), async (req, res) => {
    res.json(await revokeApiToken(ctx.db, userOf(req), String(req.params.tokenId)));
  });

  return router;
}
