import { WorkflowNotFoundError } from '@temporalio/client';
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { z } from 'zod';
import type { Db } from '../../db/knex';
import type { AppContext } from '../platform/context';
import { ErrorBody, errorBodySchema, notFound } from '../platform/errors';
import { keysetPage, Page, PageQuery } from '../platform/pagination';
import {
  DeliveryDraft,
  DeliveryJson,
  deliveryDraftSchema,
  deliverySchema,
  executionStatusSchema,
  ExecutionStatus,
} from './deliveryTypes';

/**
 * The warp execution (`wx_…`): the read model of every write that may wait for a person's approval
 * (a delivery, a sensitive MCP write). Opening one once per open write, its status, reading and listing.
 */
export const warpExecutionSchema = z.object({
  id: z.string(),
  warp: z.string(),
  status: executionStatusSchema,
  agentId: z.string().nullable(),
  input: z.record(z.string(), z.unknown()),
  draft: deliveryDraftSchema.nullable(),
  /** A delivery's records, or what another approved write answered. */
  result: z
    .object({ deliveries: z.array(deliverySchema).optional() })
    .catchall(z.unknown())
    .nullable(),
  error: errorBodySchema.nullable(),
  approvalExpiresAt: z.iso.datetime().nullable(),
  statusUrl: z.url(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type WarpExecutionJson = z.infer<typeof warpExecutionSchema>;

export interface ExecutionRow {
  id: string;
  team_id: string;
  agent_id: string | null;
  warp: string;
  status: ExecutionStatus;
  input: Record<string, unknown>;
  draft: DeliveryDraft | null;
  result: { deliveries?: DeliveryJson[] } | null;
  error: ErrorBody | null;
  workflow_id: string;
  approval_expires_at: Date | null;
  approval_link_used_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export const executionUrl = (baseUrl: string, id: string) => `${baseUrl}/warp-executions/${id}`;

function presentExecution(row: ExecutionRow, baseUrl: string): WarpExecutionJson {
  return {
    id: row.id,
    warp: row.warp,
    status: row.status,
    agentId: row.agent_id,
    input: row.input,
    draft: row.draft,
    result: row.result,
    error: row.error,
    approvalExpiresAt: row.approval_expires_at?.toISOString() ?? null,
    statusUrl: executionUrl(baseUrl, row.id),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export async function updateExecution(
  db: Db | Knex.Transaction,
  executionId: string,
  patch: { status: ExecutionStatus; draft?: DeliveryDraft; result?: unknown; error?: unknown },
): Promise<void> {
  await db('warp_executions')
    .where({ id: executionId })
    .update({
      status: patch.status,
      ...(patch.draft ? { draft: JSON.stringify(patch.draft) } : {}),
      ...(patch.result ? { result: JSON.stringify(patch.result) } : {}),
      ...(patch.error ? { error: JSON.stringify(patch.error) } : {}),
      updated_at: db.fn.now(),
    });
}

/** The same caller, warp and arguments make the same key: what finds the open execution of a retried write. */
export function dedupeKey(agentId: string, warp: string, args: unknown): string {
  const canonical = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(canonical)
      : value && typeof value === 'object'
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
          )
        : value;
  return createHash('sha256')
    .update(JSON.stringify([agentId, warp, canonical(args)]))
    .digest('base64url');
}

/**
 * Opens an execution unless the same write is already open (pending approval or running): one
 * insert against a partial unique index, so concurrent retries find one execution between them.
 * `keyed`: `values.id` was derived from the run's key, and a row with that id is this run's.
 */
export async function claimExecution(
  db: Db,
  values: Record<string, unknown> & { id: string; team_id: string; dedupe_key: string },
  workflowIdOf: (executionId: string) => string,
  keyed = false,
): Promise<{ id: string; workflowId: string; status: ExecutionStatus; created: boolean }> {
  const row = { ...values, workflow_id: workflowIdOf(values.id) };
  // A keyed id (a retried hook run, automation step or job) may have been opened by the first attempt.
  if (keyed) {
    const same = await db('warp_executions')
      .where({ id: values.id, team_id: values.team_id })
      .first('id', 'workflow_id', 'status');
    if (same) return { id: same.id, workflowId: same.workflow_id, status: same.status, created: false };
  }
  for (;;) {
    const inserted: { id: string; workflow_id: string; status: ExecutionStatus }[] = await db('warp_executions')
      .insert(row)
      .onConflict(
        db.raw("(team_id, dedupe_key) WHERE dedupe_key IS NOT NULL AND status IN ('pending_approval','running')"),
      )
      .ignore()
      .returning(['id', 'workflow_id', 'status']);
    if (inserted.length)
      return { id: inserted[0].id, workflowId: inserted[0].workflow_id, status: inserted[0].status, created: true };
    const open = await db('warp_executions')
      .where({ team_id: row.team_id, dedupe_key: row.dedupe_key })
      .whereIn('status', ['pending_approval', 'running'])
      .first('id', 'workflow_id', 'status');
    // Settled between the two statements: the write is no longer open, so this one opens anew.
    if (open) return { id: open.id, workflowId: open.workflow_id, status: open.status, created: false };
  }
}

export async function executionRow(db: Db, teamId: string, executionId: string): Promise<ExecutionRow> {
  const row = await db('warp_executions').where({ team_id: teamId, id: executionId }).first();
  if (!row) throw notFound('Warp execution');
  return row;
}

const OPEN: ExecutionStatus[] = ['pending_approval', 'running'];

/**
 * A start that failed leaves an execution this request created `failed` (a repeated request opens
 * a new one); one found open (an earlier request's) is left to that request's workflow.
 */
export async function failUnstartedExecution(db: Db, claimed: { id: string; created: boolean }): Promise<void> {
  if (claimed.created)
    await updateExecution(db, claimed.id, {
      status: 'failed',
      error: { error: { code: 'temporal_unavailable', message: 'The workflow could not be started' } },
    });
}

/**
 * An execution as the read model has it; one still open whose workflow an operator ended in the
 * Temporal UI is settled as failed, so it never reads pending forever.
 */
export async function getExecution(ctx: AppContext, teamId: string, executionId: string): Promise<WarpExecutionJson> {
  return presentExecution(await settledRow(ctx, await executionRow(ctx.db, teamId, executionId)), ctx.config.baseUrl);
}

/** A row that was opened this long ago and still has no workflow has lost it (not just: is being started). */
const START_GRACE_MS = 60_000;

async function settledRow(ctx: AppContext, row: ExecutionRow): Promise<ExecutionRow> {
  if (OPEN.includes(row.status)) {
    const startedLongAgo = Date.now() - row.created_at.getTime() > START_GRACE_MS;
    const ended = await ctx.temporal
      .call((client) => client.workflow.getHandle(row.workflow_id).describe())
      .then((d) => (['TERMINATED', 'CANCELLED', 'TIMED_OUT', 'FAILED'].includes(d.status.name) ? d.status.name : null))
      .catch((err) => (err instanceof WorkflowNotFoundError && startedLongAgo ? 'NOT_FOUND' : null));
    if (ended) {
      await ctx
        .db('warp_executions')
        .where({ id: row.id })
        .whereIn('status', OPEN)
        .update({
          status: 'failed',
          error: JSON.stringify({
            error: {
              code: 'execution_ended',
              message: `The workflow ended without finishing (${ended.toLowerCase()})`,
            },
          }),
          updated_at: ctx.db.fn.now(),
        });
      return executionRow(ctx.db, row.team_id, row.id);
    }
  }
  return row;
}

/** Executions by id, newest first, each settled as `getExecution` settles it; one query for the rows. */
export async function executionsOf(
  ctx: AppContext,
  teamId: string,
  query: (q: Knex.QueryBuilder) => Knex.QueryBuilder,
): Promise<WarpExecutionJson[]> {
  const rows: ExecutionRow[] = await query(ctx.db('warp_executions').where({ team_id: teamId }).orderBy('seq', 'desc'));
  return Promise.all(rows.map(async (row) => presentExecution(await settledRow(ctx, row), ctx.config.baseUrl)));
}

/**
 * The team's executions, newest first, filtered by status (`pending_approval` is the approvals
 * inbox) and warp. A page is read from the database alone: no Temporal call per row, so an
 * execution an operator ended in the Temporal UI reads settled once it is read by id.
 */
export function listExecutions(
  ctx: AppContext,
  teamId: string,
  query: PageQuery & { status?: ExecutionStatus; warp?: string },
): Promise<Page<WarpExecutionJson>> {
  const q = ctx.db('warp_executions').where({ team_id: teamId });
  if (query.status) q.where({ status: query.status });
  if (query.warp) q.where({ warp: query.warp });
  return keysetPage(
    q.select('*'),
    query,
    (row: ExecutionRow & { seq: number }) => presentExecution(row, ctx.config.baseUrl),
    { newestFirst: true },
  );
}
