import { Router } from 'express';
import {
  artifactCreateSchema, artifactListQuerySchema, artifactUpdateSchema, createArtifact, deleteArtifact, getArtifact, listArtifacts, updateArtifact,
} from '../../services/artifacts';
import type { AppContext } from '../../services/context';
import { deliverRequestSchema, deliverArtifacts } from '../../services/deliveries';
import { parseOrThrow } from '../../services/errors';
import { authOf, teamAccess } from '../auth';
import { jsonBody, requireObjectBody } from '../http';

/** Artifacts (client deliverables) and their delivery. Mounted once at /v1/artifacts. */
export function artifactsRouter(ctx: AppContext): Router {
  const router = Router();
  const body = jsonBody(ctx.config.BODY_LIMIT);
  const baseUrl = ctx.config.baseUrl;

  router.get('/artifacts', teamAccess(ctx, 'read'), async (req, res) => {
    res.json(await listArtifacts(ctx.db, authOf(req).team.id, parseOrThrow(artifactListQuerySchema, req.query, 'query'), baseUrl));
  });

  router.post('/artifacts', teamAccess(ctx, 'write'), ...body, async (req, res) => {
    const input = parseOrThrow(artifactCreateSchema, requireObjectBody(req), 'body');
    const artifact = await createArtifact(ctx.db, authOf(req).team.id, input, baseUrl);
    res.status(201).setHeader('Location', `${baseUrl}/artifacts/${artifact.id}`).json(artifact);
  });

  router.post('/artifacts/deliver', teamAccess(ctx, 'write'), ...body, async (req, res) => {
    const { team, principal } = authOf(req);
    const input = parseOrThrow(deliverRequestSchema, requireObjectBody(req), 'body');
    const outcome = await deliverArtifacts(ctx, team, principal, input);
    if (outcome.pending || outcome.status !== 'succeeded') res.setHeader('Location', outcome.statusUrl);
    res.status(outcome.httpStatus).json(outcome.body);
  });

  router.get('/artifacts/:artifactId', teamAccess(ctx, 'read'), async (req, res) => {
    res.json(await getArtifact(ctx.db, authOf(req).team.id, String(req.params.artifactId), baseUrl));
  });

  router.patch('/artifacts/:artifactId', teamAccess(ctx, 'write'), ...body, async (req, res) => {
    const input = parseOrThrow(artifactUpdateSchema, requireObjectBody(req), 'body');
    res.json(await updateArtifact(ctx.db, authOf(req).team.id, String(req.params.artifactId), input, baseUrl));
  });

  router.delete('/artifacts/:artifactId', teamAccess(ctx, 'write'), async (req, res) => {
    await deleteArtifact(ctx.db, authOf(req).team.id, String(req.params.artifactId));
    res.status(204).end();
  });

  return router;
}
