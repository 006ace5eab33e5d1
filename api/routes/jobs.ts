import { Router } from 'express';
import type { AppContext } from '../../services/context';
import { parseOrThrow } from '../../services/errors';
import { createJob, createJobSchema, getJob } from '../../services/jobs';
import { authOf, teamAccess } from '../auth';
import { jsonBody, requireObjectBody, respondIdempotently } from '../http';
import { jobsStarted } from '../metrics';

export function jobsRouter(ctx: AppContext): Router {
  const router = Router();

  router.post('/jobs', teamAccess(ctx, 'write'), ...jsonBody(ctx.config.JOB_BODY_LIMIT), async (req, res) => {
    const { team, principal } = authOf(req);
    const body = parseOrThrow(createJobSchema, requireObjectBody(req), 'body');
    await respondIdempotently(ctx, req, res, 'jobs.create', async () => {
      const accepted = await createJob(ctx, team, principal.userId, body);
      jobsStarted.inc({ type: body.type });
      return { status: 202, body: accepted, headers: { Location: accepted.statusUrl } };
    });
  });

  router.get('/jobs/:jobId', teamAccess(ctx, 'read'), async (req, res) => {
    res.json(await getJob(ctx, authOf(req).team.id, String(req.params.jobId)));
  });

  return router;
}
