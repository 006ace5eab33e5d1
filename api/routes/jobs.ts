import { Router } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../services/context';
import { parseOrThrow } from '../../services/errors';
import { idempotencyKeySchema, runIdempotent } from '../../services/idempotency';
import { createJob, createJobSchema, getJob } from '../../services/jobs';
import { authOf, teamAccess } from '../auth';
import { jsonBody, requireObjectBody, send } from '../http';
import { jobsStarted } from '../metrics';

const idempotencyHeaderSchema = z.object({ 'idempotency-key': idempotencyKeySchema.optional() });

export function jobsRouter(ctx: AppContext): Router {
  const router = Router();

  router.post('/jobs', teamAccess(ctx, 'write'), ...jsonBody(ctx.config.JOB_BODY_LIMIT), async (req, res) => {
    const { team, principal } = authOf(req);
    const { 'idempotency-key': key } = parseOrThrow(idempotencyHeaderSchema, req.headers, 'header');
    const body = parseOrThrow(createJobSchema, requireObjectBody(req), 'body');
    const execute = async () => {
      const accepted = await createJob(ctx, team, principal.userId, body);
      jobsStarted.inc({ type: body.type });
      return { status: 202, body: accepted, headers: { Location: accepted.statusUrl } };
    };
    send(res, key ? await runIdempotent(ctx.db, { teamId: team.id, operation: 'jobs.create', key }, req.body, execute) : await execute());
  });

  router.get('/jobs/:jobId', teamAccess(ctx, 'read'), async (req, res) => {
    res.json(await getJob(ctx, authOf(req).team.id, String(req.params.jobId)));
  });

  return router;
}
