import { z } from 'zod';
import type { AppContext } from '../../services/platform/context';
import {
  createJob,
  getJob,
  jobAcceptedSchema,
  jobListQuerySchema,
  jobSchema,
  listJobs,
} from '../../services/jobs/jobs';
import { jobRequestSchema, jobTypeNames, requireJobType } from '../../services/jobs/jobTypes';
import { pageSchema } from '../../services/platform/pagination';
import { authOf } from '../auth';
import { idempotencyHeaderSchema, respondIdempotently } from '../http';
import { jobsStarted } from '../metrics';
import { defineRoute, json, locationHeader, Route } from '../routeTable';

export function jobsRoutes(ctx: AppContext): Route[] {
  return [
    defineRoute({
      method: 'post',
      path: '/jobs',
      tag: 'Jobs',
      access: 'write',
      summary: `Start a job (types: ${jobTypeNames.join(', ')})`,
      description:
        'With an `Idempotency-Key`, a repeat of the same body answers the first response again ' +
        '(`Idempotent-Replayed: true`). The body may be up to `JOB_BODY_LIMIT` (64 MB). `input` is the ' +
        "type's own (one schema per type, keyed by `type`); an unknown type is 400 with `details.knownTypes`.",
      headers: idempotencyHeaderSchema,
      body: {
        kind: 'json',
        schema: jobRequestSchema,
        limit: 'JOB_BODY_LIMIT',
        // An unknown type answers the known ones, not the union's bare "no matching variant".
        precheck: (body: Record<string, unknown>) => {
          if (typeof body.type === 'string') requireJobType(body.type);
        },
      },
      responses: { 202: json(jobAcceptedSchema, 'Accepted; poll statusUrl', locationHeader) },
      errors: [409, 503],
      handler: async ({ req, res, body }) => {
        const { team, principal } = authOf(req);
        await respondIdempotently(ctx, req, res, 'jobs.create', async () => {
          const accepted = await createJob(ctx, team, principal.userId, body, req.header('idempotency-key'));
          jobsStarted.inc({ type: body.type });
          return { status: 202, body: accepted, headers: { Location: accepted.statusUrl } };
        });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/jobs',
      tag: 'Jobs',
      access: 'read',
      summary:
        "List the team's jobs, newest first (filters: status, type); without progress, which GET /jobs/{jobId} adds",
      query: jobListQuerySchema,
      responses: { 200: json(pageSchema(jobSchema), 'A page of jobs') },
      handler: async ({ req, query }) => ({ status: 200, body: await listJobs(ctx, authOf(req).team.id, query) }),
    }),
    defineRoute({
      method: 'get',
      path: '/jobs/{jobId}',
      tag: 'Jobs',
      access: 'read',
      summary: 'Read a job, with progress while it runs',
      params: z.object({ jobId: z.string() }),
      responses: { 200: json(jobSchema, 'The job') },
      errors: [503],
      handler: async ({ req, params }) => ({ status: 200, body: await getJob(ctx, authOf(req).team.id, params.jobId) }),
    }),
  ];
}
