import type { AppContext } from '../../services/platform/context';
import { createJob, jobAcceptedSchema } from '../../services/jobs/jobs';
import { jobRequestSchema, jobTypeNames, requireJobType } from '../../services/jobs/jobTypes';
import { authOf } from '../auth';
import { idempotencyHeaderSchema, respondIdempotently } from '../http';
import { jobsStarted } from '../metrics';
import { defineRoute, json, locationHeader, Route } from '../routeTable';

/**
 * `POST /jobs`, answered idempotently (`respondIdempotently` writes the response, replays included);
 * the jobs' reads are the `jobs` feature's (services/jobs/operations.ts).
 */
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
  ];
}
