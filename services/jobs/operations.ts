import { z } from 'zod';
import { connectedAgent, defineOperation, Feature } from '../platform/operation';
import { pageSchema } from '../platform/pagination';
import { createJob, getJob, jobAcceptedSchema, jobListQuerySchema, jobSchema, listJobs } from './jobs';
import { ingestRequestSchema, jobRequestSchema, jobTypeNames, requireJobType } from './jobTypes';

const tag = 'Jobs';

/**
 * Jobs: durable work in Temporal, started once per `Idempotency-Key` and read back by id. Over MCP
 * the start is `ingest_knowledge`, which starts one job type.
 */
export const jobs: Feature = {
  name: 'jobs',
  operations: [
    // First: in the document `/jobs` lists POST before GET.
    defineOperation({
      name: 'jobs.create',
      access: { level: 'write', app: 'core', inTurns: 'startsWork' },
      input: jobRequestSchema,
      output: jobAcceptedSchema,
      handler: (ctx, caller, request) =>
        createJob(ctx, caller.team, caller.principal.userId, request, caller.idempotencyKey),
      http: {
        method: 'post',
        path: '/jobs',
        tag,
        summary: `Start a job (types: ${jobTypeNames.join(', ')})`,
        description:
          'With an `Idempotency-Key`, a repeat of the same body answers the first response again ' +
          '(`Idempotent-Replayed: true`). The body may be up to `JOB_BODY_LIMIT` (64 MB). `input` is the ' +
          "type's own (one schema per type, keyed by `type`); an unknown type is 400 with `details.knownTypes`.",
        status: 202,
        answer: 'Accepted; poll statusUrl',
        body: {
          schema: jobRequestSchema,
          limit: 'JOB_BODY_LIMIT' as const,
          // An unknown type answers the known ones, not the union's bare "no matching variant".
          precheck: (body: Record<string, unknown>) => {
            if (typeof body.type === 'string') requireJobType(body.type);
          },
        },
        idempotent: 'jobs.create',
        location: (accepted) => accepted.statusUrl,
        errors: [409, 503],
      },
      mcp: {
        name: 'ingest_knowledge',
        title: 'Ingest knowledge',
        description:
          "Queues a job that chunks a text into the agent's knowledge (the connected agent unless agentId is " +
          'given). Answers { jobId, status, statusUrl }; the job runs in the background.',
        input: ingestRequestSchema,
        toInput: (args: z.infer<typeof ingestRequestSchema>, caller) => ({
          type: 'knowledge.ingest' as const,
          input: { ...args, agentId: args.agentId ?? connectedAgent(caller) },
        }),
      },
    }),
    defineOperation({
      name: 'jobs.list',
      access: { level: 'read', app: 'core' },
      output: pageSchema(jobSchema),
      handler: (ctx, { team }, query) => listJobs(ctx, team.id, query),
      http: {
        method: 'get',
        path: '/jobs',
        tag,
        summary:
          "List the team's jobs, newest first (filters: status, type); without progress, which GET /jobs/{jobId} adds",
        status: 200,
        answer: 'A page of jobs',
        query: jobListQuerySchema,
      },
    }),
    defineOperation({
      name: 'jobs.get',
      access: { level: 'read', app: 'core' },
      output: jobSchema,
      handler: (ctx, { team }, { jobId }) => getJob(ctx, team.id, jobId),
      http: {
        method: 'get',
        path: '/jobs/{jobId}',
        tag,
        summary: 'Read a job, with progress while it runs',
        status: 200,
        answer: 'The job',
        params: z.object({ jobId: z.string() }),
        errors: [503],
      },
    }),
  ],
};
