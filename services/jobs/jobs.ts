import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { WorkflowExecutionStatusName, WorkflowNotFoundError } from '@temporalio/client';
import { z } from 'zod';
import { jobStart, jobWorkflowId, progress as progressQuery } from '../../workflows/contracts/job';
import { jobProgressSchema, type JobProgress } from '../../workflows/contracts/schemas';
import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import { firstRow, runStatement, statement, statementOf, type SqlPart } from '../../db/statement';
import type { AppContext, TeamRef } from '../platform/context';
import { AppError, ErrorBody, errorBodySchema, notFound } from '../platform/errors';
import { newId } from '../../db/ids';
import { JobType, jobTypeNames, prepareJobInput } from './jobTypes';
import { keysetPage, Page, pageQuerySchema } from '../platform/pagination';

/** A job to start; `input` is checked by its type's schema (services/jobs/jobTypes.ts › jobRequestSchema). */
export interface CreateJob {
  type: string;
  input?: unknown;
}

export const jobStatusSchema = z.enum(['queued', 'running', 'succeeded', 'failed']);
export type JobStatus = z.infer<typeof jobStatusSchema>;

/** A job's `error` is the spec's Error resource. */
export type JobError = ErrorBody;

export const jobAcceptedSchema = z.object({ jobId: z.string(), status: jobStatusSchema, statusUrl: z.url() });

export { jobProgressSchema, type JobProgress };

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
  seq: number;
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

export { jobWorkflowId };

export function jobStatusUrl(ctx: AppContext, jobId: string): string {
  return `${ctx.config.baseUrl}/jobs/${jobId}`;
}

/**
 * With an Idempotency-Key the job's id comes from the team and the key: a repeat after a 503 (whose
 * start may or may not have reached Temporal) finds the same job and starts `job-<jobId>` again,
 * which Temporal runs at most once, instead of opening a second job.
 */
const jobIdFor = (teamId: string, idempotencyKey?: string) =>
  idempotencyKey
    ? `job_k${createHash('sha256').update(`${teamId}\0${idempotencyKey}`).digest('hex').slice(0, 24)}`
    : newId('job');

/** Jobs this process has started, by type: what api/metrics.ts reports as `jobs_started_total`. */
const started = new Map<JobType, number>();
export const jobsStartedByType = (): ReadonlyMap<JobType, number> => started;

export async function createJob(
  ctx: AppContext,
  team: TeamRef,
  userId: string | null,
  request: CreateJob,
  idempotencyKey?: string,
) {
  const prepared = await prepareJobInput(ctx.db, team.id, request.type, request.input);
  const type = request.type as JobType;
  const jobId = jobIdFor(team.id, idempotencyKey);
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
  // A job without rows is one INSERT: no transaction (BEGIN and COMMIT would double its round trips).
  const write = async (db: Db | Knex.Transaction) => {
    const inserted = await runStatement(db, insertJob, [
      jobRow.id,
      jobRow.team_id,
      jobRow.type,
      jobRow.status,
      jobRow.input,
      jobRow.workflow_id,
      jobRow.created_by,
    ]);
    if (inserted.length === 0) {
      // The same key again after a failed answer: it must be the same job, not another one.
      const existing = await db('jobs').where({ id: jobId, team_id: team.id }).first('type', 'input');
      if (
        !existing ||
        existing.type !== type ||
        !isDeepStrictEqual(existing.input, JSON.parse(JSON.stringify(prepared.input ?? null)))
      ) {
        throw new AppError('conflict', 'This Idempotency-Key was used for another job', { jobId });
      }
      return;
    }
    if (prepared.rows) await storeJobRows(db, jobId, prepared.rows, ctx.config.IMPORT_BATCH_SIZE);
  };
  // With rows, the job and its input commit together: a job is never seen without its rows.
  await (prepared.rows ? ctx.db.transaction(write) : write(ctx.db));

  // A failed start leaves the row `queued`: the start may have reached Temporal even though the
  // answer was lost. Reading the job settles it (running, or `job_lost` once Temporal has no record).
  await ctx.temporal.startTracked(
    jobStart,
    {
      jobId,
      type,
      importBatchSize: ctx.config.IMPORT_BATCH_SIZE,
      ...(type === 'contacts.export' ? { onePageExportFirst: true } : {}),
    },
    {
      team,
      staticSummary: `${type} job ${jobId} for team ${team.slug}`,
      staticDetails: `Job **${jobId}** (\`${type}\`) of team **${team.slug}**. Status: GET ${jobStatusUrl(ctx, jobId)}`,
    },
    {
      onFailure: async (failure) => ctx.logger.error({ ...failure, jobId }, 'could not start the job workflow'),
      details: { jobId },
    },
  );
  started.set(type, (started.get(type) ?? 0) + 1);
  const accepted: z.infer<typeof jobAcceptedSchema> = { jobId, status: 'queued', statusUrl: jobStatusUrl(ctx, jobId) };
  return accepted;
}

/** One text for every job: prepared once per connection, not parsed and planned on each start. */
const insertJob = statement<{ id: string }>(
  `INSERT INTO jobs (id, team_id, type, status, input, workflow_id, created_by) VALUES (?, ?, ?, ?, ?, ?, ?)
   ON CONFLICT (id) DO NOTHING RETURNING id`,
);

/** Stores a job's rows in slices of `batchSize`: slice n holds rows [n*batchSize, (n+1)*batchSize). */
export async function storeJobRows(
  db: Db | Knex.Transaction,
  jobId: string,
  rows: unknown[],
  batchSize: number,
): Promise<void> {
  const slices = [];
  for (let position = 0; position * batchSize < rows.length; position++) {
    slices.push({
      job_id: jobId,
      position,
      rows: JSON.stringify(rows.slice(position * batchSize, (position + 1) * batchSize)),
    });
  }
  // A few slices per statement keeps each statement a few MB at most.
  for (let i = 0; i < slices.length; i += 8) await db('job_input_chunks').insert(slices.slice(i, i + 8));
}

const markRunning = (db: Db, jobId: string) =>
  db('jobs').where({ id: jobId, status: 'queued' }).update({ status: 'running', started_at: db.fn.now() });

/** What a job's activities read of it: its owner, type and input; undefined: no such job. */
export type JobWorkRow = { id: string; team_id: string; type: string; input: Record<string, unknown> };
export const findJobRow = (db: Db, jobId: string): Promise<JobWorkRow | undefined> =>
  db('jobs').where({ id: jobId }).first('id', 'team_id', 'type', 'input');

/** queued → running; a no-op for a job that already moved on. */
export async function markJobRunning(db: Db, jobId: string): Promise<void> {
  await markRunning(db, jobId);
}

/**
 * `markJobRunning`, and the job's owner and input read in the same statement (one round trip).
 * The read sees the row as it was before the update, which changes neither of them. Undefined: no
 * such job.
 */
export async function markJobRunningAndRead(db: Db, jobId: string): Promise<JobWorkRow | undefined> {
  return firstRow(db, markRunningAndRead, [jobId]);
}

// One text for every export: prepared once per connection (its planning cost more than its run).
const markRunningAndRead = statement<JobWorkRow>(
  `WITH marked AS (UPDATE jobs SET status = 'running', started_at = CURRENT_TIMESTAMP WHERE id = $1 AND status = 'queued')
   SELECT id, team_id, type, input FROM jobs WHERE id = $1`,
);

export type JobOutcome =
  { status: 'succeeded'; result: Record<string, unknown> } | { status: 'failed'; error: JobError };

/**
 * A job's final state. Only a job still in flight is settled, so the first outcome wins: a late
 * writer (the read side reconciling, a retried activity) never overwrites it.
 */
export async function settleJob(
  db: Db,
  jobId: string,
  outcome: JobOutcome,
  /** A write that commits with the outcome, in the same statement (a CTE), e.g. the job's output file. */
  together?: SqlPart,
): Promise<void> {
  const column = outcome.status === 'succeeded' ? 'result' : 'error';
  const settle = `UPDATE jobs SET status = ?, ${column} = ?, finished_at = CURRENT_TIMESTAMP
                  WHERE id = ? AND status IN ('queued', 'running')`;
  // A few texts (an outcome of each kind, with or without its write): prepared once per connection.
  await runStatement(db, statementOf(together ? `WITH together AS (${together.sql}) ${settle}` : settle), [
    ...(together?.values ?? []),
    outcome.status,
    JSON.stringify(outcome.status === 'succeeded' ? outcome.result : outcome.error),
    jobId,
  ]);
}

/** How a workflow that ended without the job's own bookkeeping reads to the API client. */
const closedWithoutOutcome: Partial<Record<WorkflowExecutionStatusName, JobError>> = {
  TERMINATED: {
    error: { code: 'job_terminated', message: 'The job was terminated by an operator before it finished' },
  },
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
      const workflowId = row.workflow_id;
      const handle = await ctx.temporal.call(async (client) => client.workflow.getHandle(workflowId));
      const description = await ctx.temporal.call(() => handle.describe());
      const status = description.status.name;
      settled = status !== 'RUNNING';
      if (!settled) {
        progress = await ctx.temporal
          .waitUpTo(() => handle.query(progressQuery), PROGRESS_QUERY_TIMEOUT_MS)
          .catch(() => undefined);
      } else if (closedWithoutOutcome[status]) {
        await settleJob(ctx.db, jobId, { status: 'failed', error: closedWithoutOutcome[status]! });
      }
    } catch (err) {
      if (err instanceof WorkflowNotFoundError && Date.now() - row.created_at.getTime() > LOST_AFTER_MS) {
        settled = true;
        await settleJob(ctx.db, jobId, {
          status: 'failed',
          error: {
            error: {
              code: 'job_lost',
              message: 'The workflow service has no record of this job (its history was lost)',
            },
          },
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

export const jobListQuerySchema = pageQuerySchema.extend({
  status: jobStatusSchema.optional(),
  type: z.enum(jobTypeNames as [JobType, ...JobType[]]).optional(),
});
export type JobListQuery = z.infer<typeof jobListQuerySchema>;

/**
 * The team's jobs, newest first, as the database has them: a page asks Temporal nothing, so a
 * running job carries no `progress` here (GET /jobs/{id} asks the workflow for it).
 */
export async function listJobs(ctx: AppContext, teamId: string, query: JobListQuery): Promise<Page<JobJson>> {
  const q = ctx.db('jobs').where({ team_id: teamId });
  if (query.status) q.where({ status: query.status });
  if (query.type) q.where({ type: query.type });
  return keysetPage(q.select('*'), query, (row: JobRow) => presentJob(ctx, row), { newestFirst: true });
}

/** A result that names a media file also carries its download URL, in this API's own address space. */
function presentResult(ctx: AppContext, result: Record<string, unknown>): Record<string, unknown> {
  return typeof result.mediaId === 'string'
    ? { ...result, url: `${ctx.config.baseUrl}/media/${result.mediaId}/content` }
    : result;
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
