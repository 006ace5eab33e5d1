import { WorkflowExecutionAlreadyStartedError, WorkflowExecutionStatusName, WorkflowNotFoundError } from '@temporalio/client';
import { z } from 'zod';
import { BusinessIdKey, JobTypeKey, TeamSlugKey } from '../temporal/searchAttributes';
import type { jobWorkflow } from '../workflows/job';
import type { Db } from '../db/knex';
import type { AppContext, TeamRef } from './context';
import { AppError, ErrorBody, errorBodySchema, notFound } from './errors';
import { newId } from './ids';
import { JobType, prepareJobInput } from './jobTypes';

export const createJobSchema = z.object({
  type: z.string().min(1).max(100),
  input: z.record(z.string(), z.unknown()).optional(),
});
export type CreateJob = z.infer<typeof createJobSchema>;

export const jobStatusSchema = z.enum(['queued', 'running', 'succeeded', 'failed']);
export type JobStatus = z.infer<typeof jobStatusSchema>;

/** A job's `error` is the spec's Error resource. */
export type JobError = ErrorBody;

export const jobAcceptedSchema = z.object({ jobId: z.string(), status: jobStatusSchema, statusUrl: z.url() });

export const jobProgressSchema = z.object({
  phase: z.enum(['starting', 'importing', 'exporting', 'ingesting', 'finishing']),
  completed: z.number().int(),
  total: z.number().int().nullable(),
});
export type JobProgress = z.infer<typeof jobProgressSchema>;

export const jobSchema = z.object({
  jobId: z.string(),
  type: z.string(),
  status: jobStatusSchema,
  result: z.record(z.string(), z.unknown()).optional(),
  error: errorBodySchema.optional(),
  progress: jobProgressSchema.optional(),
  createdAt: z.iso.datetime(),
  startedAt: z.iso.datetime().nullable(),
  finishedAt: z.iso.datetime().nullable(),
});
export type JobJson = z.infer<typeof jobSchema>;

interface JobRow {
  id: string;
  team_id: string;
  type: JobType;
  status: JobStatus;
  result: Record<string, unknown> | null;
  error: JobError | null;
  workflow_id: string;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

export const jobWorkflowId = (jobId: string) => `job-${jobId}`;

export function jobStatusUrl(ctx: AppContext, jobId: string): string {
  return `${ctx.config.baseUrl}/jobs/${jobId}`;
}

export async function createJob(ctx: AppContext, team: TeamRef, userId: string | null, request: CreateJob) {
  const prepared = await prepareJobInput(ctx.db, team.id, request.type, request.input);
  const type = request.type as JobType;
  const jobId = newId('job');
  const workflowId = jobWorkflowId(jobId);
  const jobRow = {
    id: jobId,
    team_id: team.id,
    type,
    status: 'queued',
    input: JSON.stringify(prepared.input),
    workflow_id: workflowId,
    created_by: userId,
  };
  if (prepared.rows) {
    const rows = prepared.rows;
    await ctx.db.transaction(async (trx) => {
      await trx('jobs').insert(jobRow);
      await storeJobRows(trx, jobId, rows, ctx.config.IMPORT_BATCH_SIZE);
    });
  } else {
    await ctx.db('jobs').insert(jobRow);
  }

  try {
    const client = await ctx.temporal.client();
    await client.workflow.start<typeof jobWorkflow>('jobWorkflow', {
      workflowId,
      taskQueue: ctx.temporal.taskQueue,
      args: [{ jobId, type, importBatchSize: ctx.config.IMPORT_BATCH_SIZE }],
      typedSearchAttributes: [
        { key: TeamSlugKey, value: team.slug },
        { key: JobTypeKey, value: type },
        { key: BusinessIdKey, value: jobId },
      ],
      staticSummary: `${type} job ${jobId} for team ${team.slug}`,
      staticDetails: `Job **${jobId}** (\`${type}\`) of team **${team.slug}**. Status: GET ${jobStatusUrl(ctx, jobId)}`,
    });
  } catch (err) {
    // Started already (a retried start whose first attempt did reach the server): that is success.
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) {
      // The row stays `queued`: the start may have reached Temporal even though the answer was
      // lost. Reading the job settles it (running, or `job_lost` once Temporal has no record).
      ctx.logger.error({ err, jobId }, 'could not start the job workflow');
      throw new AppError(503, 'temporal_unavailable', 'The workflow service is unavailable; retry the request', { jobId }, {
        'Retry-After': '5',
      });
    }
  }
  const accepted: z.infer<typeof jobAcceptedSchema> = { jobId, status: 'queued', statusUrl: jobStatusUrl(ctx, jobId) };
  return accepted;
}

/** Stores a job's rows in slices of `batchSize`: slice n holds rows [n*batchSize, (n+1)*batchSize). */
export async function storeJobRows(db: Db, jobId: string, rows: unknown[], batchSize: number): Promise<void> {
  const slices = [];
  for (let position = 0; position * batchSize < rows.length; position++) {
    slices.push({ job_id: jobId, position, rows: JSON.stringify(rows.slice(position * batchSize, (position + 1) * batchSize)) });
  }
  // A few slices per statement keeps each statement a few MB at most.
  for (let i = 0; i < slices.length; i += 8) await db('job_input_chunks').insert(slices.slice(i, i + 8));
}

/** queued → running; a no-op for a job that already moved on. */
export async function markJobRunning(db: Db, jobId: string): Promise<void> {
  await db('jobs').where({ id: jobId, status: 'queued' }).update({ status: 'running', started_at: db.fn.now() });
}

export type JobOutcome = { status: 'succeeded'; result: Record<string, unknown> } | { status: 'failed'; error: JobError };

/**
 * A job's final state. Only a job still in flight is settled, so the first outcome wins: a late
 * writer (the read side reconciling, a retried activity) never overwrites it.
 */
export async function settleJob(db: Db, jobId: string, outcome: JobOutcome): Promise<void> {
  await db('jobs')
    .where({ id: jobId })
    .whereIn('status', ['queued', 'running'])
    .update({
      status: outcome.status,
      ...(outcome.status === 'succeeded' ? { result: JSON.stringify(outcome.result) } : { error: JSON.stringify(outcome.error) }),
      finished_at: db.fn.now(),
    });
}

/** How a workflow that ended without the job's own bookkeeping reads to the API client. */
const closedWithoutOutcome: Partial<Record<WorkflowExecutionStatusName, JobError>> = {
  TERMINATED: { error: { code: 'job_terminated', message: 'The job was terminated by an operator before it finished' } },
  CANCELLED: { error: { code: 'job_cancelled', message: 'The job was cancelled by an operator before it finished' } },
  TIMED_OUT: { error: { code: 'job_timed_out', message: 'The job ran past its time limit' } },
  FAILED: { error: { code: 'job_failed', message: 'The job failed' } },
};

const LOST_AFTER_MS = 60_000;
const PROGRESS_QUERY_TIMEOUT_MS = 2_000;

/**
 * The job as the API reports it. The database row is the read model; while it says the job is in
 * flight, Temporal (the source of truth) is asked, so a workflow that an operator terminated or
 * cancelled reads `failed`, and a running one reports its progress.
 */
export async function getJob(ctx: AppContext, teamId: string, jobId: string) {
  let row: JobRow | undefined = await ctx.db('jobs').where({ team_id: teamId, id: jobId }).first();
  if (!row) throw notFound('Job');
  let progress: JobProgress | undefined;

  if (row.status === 'queued' || row.status === 'running') {
    let settled = false;
    try {
      const handle = (await ctx.temporal.client()).workflow.getHandle(row.workflow_id);
      const description = await handle.describe();
      const status = description.status.name;
      settled = status !== 'RUNNING';
      if (!settled) {
        progress = await Promise.race([
          handle.query<JobProgress>('progress'),
          new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), PROGRESS_QUERY_TIMEOUT_MS).unref()),
        ]).catch(() => undefined);
      } else if (closedWithoutOutcome[status]) {
        await settleJob(ctx.db, jobId, { status: 'failed', error: closedWithoutOutcome[status]! });
      }
    } catch (err) {
      if (err instanceof WorkflowNotFoundError && Date.now() - row.created_at.getTime() > LOST_AFTER_MS) {
        settled = true;
        await settleJob(ctx.db, jobId, {
          status: 'failed',
          error: { error: { code: 'job_lost', message: 'The workflow service has no record of this job (its history was lost)' } },
        });
      } else {
        ctx.logger.warn({ err, jobId }, 'could not read the job workflow; answering from the database');
      }
    }
    // The workflow ended: its own bookkeeping or the reconciliation above changed the row.
    if (settled) row = await ctx.db('jobs').where({ team_id: teamId, id: jobId }).first();
  }
  return presentJob(ctx, row!, progress);
}

/** A result that names a media file also carries its download URL, in this API's own address space. */
function presentResult(ctx: AppContext, result: Record<string, unknown>): Record<string, unknown> {
  return typeof result.mediaId === 'string' ? { ...result, url: `${ctx.config.baseUrl}/media/${result.mediaId}/content` } : result;
}

function presentJob(ctx: AppContext, row: JobRow, progress?: JobProgress): JobJson {
  return {
    jobId: row.id,
    type: row.type,
    status: row.status,
    ...(row.result ? { result: presentResult(ctx, row.result) } : {}),
    ...(row.error ? { error: row.error } : {}),
    ...(progress && row.status !== 'succeeded' && row.status !== 'failed' ? { progress } : {}),
    createdAt: row.created_at.toISOString(),
    startedAt: row.started_at?.toISOString() ?? null,
    finishedAt: row.finished_at?.toISOString() ?? null,
  };
}
