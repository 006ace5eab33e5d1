import { z } from 'zod';
import { connectedAgent, defineOperation, Feature } from '../platform/operation';
import { pageSchema } from '../platform/pagination';
import { createJob, getJob, jobAcceptedSchema, jobListQuerySchema, jobSchema, listJobs } from './jobs';
import { ingestRequestSchema } from './jobTypes';

const tag = 'Jobs';

/**
 * Jobs: durable work in Temporal, read back by id. `POST /jobs` answers idempotently (an
 * `Idempotency-Key` replays the first response), which only a hand-written route does
 * (api/routes/jobs.ts); `ingest_knowledge` starts one job type over MCP.
 */
export const jobs: Feature = {
  name: 'jobs',
  operations: [
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
    defineOperation({
      name: 'jobs.ingestKnowledge',
      access: { level: 'write', app: 'core', inTurns: 'startsWork' },
      input: ingestRequestSchema,
      output: jobAcceptedSchema,
      handler: (ctx, caller, input) =>
        createJob(
          ctx,
          caller.team,
          caller.principal.userId,
          { type: 'knowledge.ingest', input: { ...input, agentId: input.agentId ?? connectedAgent(caller) } },
          caller.idempotencyKey,
        ),
      mcp: {
        name: 'ingest_knowledge',
        title: 'Ingest knowledge',
        description:
          "Queues a job that chunks a text into the agent's knowledge (the connected agent unless agentId is " +
          'given). Answers { jobId, status, statusUrl }; the job runs in the background.',
      },
    }),
  ],
};
