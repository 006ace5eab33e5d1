import {
  WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, WorkflowUpdateFailedError, WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { z } from 'zod';
import type { Db } from '../db/knex';
import { BusinessIdKey, JobTypeKey, TeamSlugKey } from '../temporal/searchAttributes';
import type { deliveryWorkflow } from '../workflows/delivery';
import { approve as approveUpdate, decline as declineSignal } from '../workflows/deliveryMessages';
import type { AppContext, TeamRef } from './context';
import {
  DeliveryDraft, DeliveryInput, DeliveryJson, DeliveryOutcome, deliveryDraftSchema, deliverySchema, executionStatusSchema, ExecutionStatus,
} from './deliveryTypes';
import { AppError, ErrorBody, errorBodySchema, invalidState, notFound } from './errors';
import { newId } from './ids';
import { sendingAgent } from './agents';
import { hasActiveIntegration } from './integrations';
import { keysetPage, Page, PageQuery } from './pagination';
import type { Principal } from './principal';

/** POST /v1/artifacts/deliver, exactly the spec's body. */
export const deliverRequestSchema = z.strictObject({
  artifactIds: z.array(z.string().min(1).max(100)).min(1).max(50),
  message: z.string().trim().min(1).max(5000),
  integration: z.enum(['email', 'sms', 'whatsapp']),
  subject: z.string().trim().min(1).max(300).optional(),
  contactIds: z.array(z.string().min(1).max(100)).min(1).max(100).optional(),
  agentId: z.string().max(100).optional(),
});
export type DeliverRequest = z.infer<typeof deliverRequestSchema>;

export const approvalEditsSchema = z.strictObject({
  message: z.string().trim().min(1).max(5000).optional(),
  subject: z.string().trim().min(1).max(300).optional(),
});
export const declineSchema = z.strictObject({ reason: z.string().trim().max(1000).optional() });

export const warpExecutionSchema = z.object({
  id: z.string(),
  warp: z.string(),
  status: executionStatusSchema,
  agentId: z.string().nullable(),
  input: z.record(z.string(), z.unknown()),
  draft: deliveryDraftSchema.nullable(),
  /** A delivery's records, or what another approved write answered. */
  result: z.object({ deliveries: z.array(deliverySchema).optional() }).catchall(z.unknown()).nullable(),
  error: errorBodySchema.nullable(),
  approvalExpiresAt: z.iso.datetime().nullable(),
  statusUrl: z.url(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type WarpExecutionJson = z.infer<typeof warpExecutionSchema>;

interface ExecutionRow {
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
export const deliveryWorkflowId = (executionId: string) => `delivery-${executionId}`;

function presentExecution(row: ExecutionRow, baseUrl: string): WarpExecutionJson {
  return {
    id: row.id, warp: row.warp, status: row.status, agentId: row.agent_id, input: row.input, draft: row.draft, result: row.result,
    error: row.error, approvalExpiresAt: row.approval_expires_at?.toISOString() ?? null, statusUrl: executionUrl(baseUrl, row.id),
    createdAt: row.created_at.toISOString(), updatedAt: row.updated_at.toISOString(),
  };
}

const rule = (code: string, message: string, details?: Record<string, unknown>) => new AppError(422, code, message, details);

/** Where a contact is reached on a channel. */
function addressFor(channel: DeliverRequest['integration'], contact: { email: string | null; phone: string | null }): string | null {
  return channel === 'email' ? contact.email : contact.phone;
}

/**
 * Checks a deliver request against the rules, then starts the delivery workflow. Auto mode
 * answers 200 with the delivery records once sent (202 if the providers are slow); manual mode
 * answers 202 `{ pending: true, executionId, statusUrl }` and waits for an approval.
 */
export async function deliverArtifacts(ctx: AppContext, team: TeamRef, principal: Principal, request: DeliverRequest) {
  const { db } = ctx;
  const artifactIds = [...new Set(request.artifactIds)];
  const artifacts = await db('artifacts').where({ team_id: team.id }).whereIn('id', artifactIds).select('id', 'status', 'contact_id');
  const missing = artifactIds.filter((id) => !artifacts.some((a) => a.id === id));
  if (missing.length) throw new AppError(404, 'not_found', 'Artifact not found', { artifactIds: missing });
  const notReady = artifacts.filter((a) => a.status !== 'ready' && a.status !== 'sent');
  if (notReady.length) {
    throw invalidState('Only ready (or already sent) artifacts can be delivered; mark drafts ready first', {
      artifacts: notReady.map((a) => ({ id: a.id, status: a.status })),
    });
  }

  let contactIds = request.contactIds ? [...new Set(request.contactIds)] : [...new Set(artifacts.map((a) => a.contact_id))];
  if (!request.contactIds && contactIds.includes(null)) {
    throw rule('no_recipient', 'Some artifacts have no contact; name the recipients in contactIds', {
      artifactIds: artifacts.filter((a) => !a.contact_id).map((a) => a.id),
    });
  }
  contactIds = contactIds.filter(Boolean);
  const contacts = await db('contacts').where({ team_id: team.id }).whereIn('id', contactIds as string[]).select('id', 'email', 'phone');
  const unknown = contactIds.filter((id) => !contacts.some((c) => c.id === id));
  if (unknown.length) throw rule('unknown_contact', 'Some recipients are not contacts of this team', { contactIds: unknown });
  const unreachable = contacts.filter((c) => !addressFor(request.integration, c));
  if (unreachable.length) {
    throw rule('recipient_unreachable', `Some recipients have no ${request.integration === 'email' ? 'email address' : 'phone number'}`, {
      contactIds: unreachable.map((c) => c.id), integration: request.integration,
    });
  }

  const agent = await sendingAgent(db, team.id, request.agentId, principal.kind === 'oauth' ? principal.agentId : null);
  if (!(await hasActiveIntegration(db, team.id, agent.id, request.integration))) {
    throw rule('integration_inactive', `The agent has no active ${request.integration} integration`, { agentId: agent.id, integration: request.integration });
  }

  const mode: 'auto' | 'manual' = agent.mode === 'manual' ? 'manual' : 'auto';
  const recipients = contacts.map((c) => ({ contactId: c.id, address: addressFor(request.integration, c)! }));
  const stored = { ...request, artifactIds, agentId: agent.id, recipients };
  // The same request while its delivery is still open (a client's retry) finds that delivery.
  const claimed = await claimExecution(db, {
    id: newId('wx'), team_id: team.id, agent_id: agent.id, warp: 'artifact-deliver', status: mode === 'manual' ? 'pending_approval' : 'running',
    input: JSON.stringify(stored), created_by: principal.userId, dedupe_key: dedupeKey(agent.id, 'artifact-deliver', stored),
    approval_expires_at: mode === 'manual' ? db.raw(`now() + make_interval(secs => ?)`, [ctx.config.APPROVAL_TTL_SECONDS]) : null,
  }, deliveryWorkflowId);
  const executionId = claimed.id;
  const input: DeliveryInput = {
    executionId, teamId: team.id, agentId: agent.id, channel: request.integration, mode,
    approvalTimeoutMs: ctx.config.APPROVAL_TTL_SECONDS * 1000, message: request.message, subject: request.subject, artifactIds, recipients,
  };
  const workflowId = claimed.workflowId;

  const client = await ctx.temporal.client();
  let handle;
  try {
    handle = await client.workflow.start<typeof deliveryWorkflow>('deliveryWorkflow', {
      workflowId,
      taskQueue: ctx.temporal.taskQueue,
      args: [input],
      typedSearchAttributes: [
        { key: TeamSlugKey, value: team.slug }, { key: JobTypeKey, value: 'artifact-deliver' }, { key: BusinessIdKey, value: executionId },
      ],
      staticSummary: `artifact-deliver ${executionId} (${mode}) for team ${team.slug}: ${artifactIds.length} artifact(s) to ${contacts.length} contact(s) by ${request.integration}`,
      staticDetails: `Warp execution **${executionId}**. Status: GET ${executionUrl(ctx.config.baseUrl, executionId)}`,
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) {
      if (claimed.created) await db('warp_executions').where({ id: executionId }).update({ status: 'failed', error: JSON.stringify({ error: { code: 'temporal_unavailable', message: 'The workflow could not be started' } }) });
      throw new AppError(503, 'temporal_unavailable', 'The workflow service is unavailable; retry the request', { executionId }, { 'Retry-After': '5' });
    }
    handle = client.workflow.getHandle(workflowId);
  }
  const statusUrl = executionUrl(ctx.config.baseUrl, executionId);
  if (mode === 'manual') {
    // A retry may find the delivery already approved and running: it says so.
    const status = claimed.status === 'running' ? 'running' as const : 'pending_approval' as const;
    return { httpStatus: 202, pending: true, status, statusUrl, body: { pending: true, executionId, status, statusUrl } };
  }
  const result = await Promise.race([
    handle.result(),
    new Promise<null>((resolve) => setTimeout(() => resolve(null), ctx.config.DELIVERY_WAIT_SECONDS * 1000).unref()),
  ]);
  if (!result) {
    return { httpStatus: 202, pending: false, status: 'running' as const, statusUrl, body: { pending: false, executionId, status: 'running', statusUrl } };
  }
  return { httpStatus: 200, pending: false, status: result.status, statusUrl, body: { pending: false, executionId, status: result.status, statusUrl, deliveries: result.deliveries } };
}

interface DeliveryRow {
  seq: number;
  id: string;
  execution_id: string;
  contact_id: string;
  artifact_ids: string[];
  integration: string;
  provider: string;
  to_address: string;
  subject: string | null;
  message: string;
  status: 'sent' | 'failed';
  provider_message_id: string | null;
  error: ErrorBody | null;
  sent_at: Date | null;
  created_at: Date;
}

function presentDelivery(row: DeliveryRow & { seq?: number }): DeliveryJson {
  return {
    id: row.id, executionId: row.execution_id, contactId: row.contact_id, artifactIds: row.artifact_ids, integration: row.integration,
    provider: row.provider, to: row.to_address, subject: row.subject, message: row.message, status: row.status,
    providerMessageId: row.provider_message_id, error: row.error, sentAt: row.sent_at?.toISOString() ?? null, createdAt: row.created_at.toISOString(),
  };
}

/**
 * One recipient's delivery record: what went out (or why not). Written once per execution and
 * recipient; a `sent` record is never overwritten.
 */
export async function recordDelivery(
  db: Db,
  d: DeliveryInput & { recipient: { contactId: string; address: string }; subject?: string; body: string; provider: string;
    result: { status: 'sent'; providerMessageId: string } | { status: 'failed'; error: ErrorBody } },
): Promise<DeliveryOutcome> {
  const values = {
    status: d.result.status,
    provider: d.provider,
    provider_message_id: d.result.status === 'sent' ? d.result.providerMessageId : null,
    error: d.result.status === 'failed' ? JSON.stringify(d.result.error) : null,
    sent_at: d.result.status === 'sent' ? db.fn.now() : null,
    subject: d.subject ?? null,
    message: d.body,
  };
  const [row] = await db('deliveries')
    .insert({
      id: newId('dlv'), team_id: d.teamId, execution_id: d.executionId, contact_id: d.recipient.contactId, artifact_ids: d.artifactIds,
      integration: d.channel, to_address: d.recipient.address, ...values,
    })
    .onConflict(['execution_id', 'contact_id'])
    .merge(values)
    .where('deliveries.status', '<>', 'sent')
    .returning(['id', 'status']);
  if (row) return { contactId: d.recipient.contactId, status: row.status, deliveryId: row.id };
  const existing = await db('deliveries').where({ execution_id: d.executionId, contact_id: d.recipient.contactId }).first('id', 'status');
  return { contactId: d.recipient.contactId, status: existing.status, deliveryId: existing.id };
}

export async function deliveryRows(db: Db | Knex.Transaction, executionId: string): Promise<DeliveryJson[]> {
  return (await db('deliveries').where({ execution_id: executionId }).orderBy('seq')).map(presentDelivery);
}

export async function updateExecution(
  db: Db | Knex.Transaction,
  executionId: string,
  patch: { status: ExecutionStatus; draft?: DeliveryDraft; result?: unknown; error?: unknown },
): Promise<void> {
  await db('warp_executions').where({ id: executionId }).update({
    status: patch.status,
    ...(patch.draft ? { draft: JSON.stringify(patch.draft) } : {}),
    ...(patch.result ? { result: JSON.stringify(patch.result) } : {}),
    ...(patch.error ? { error: JSON.stringify(patch.error) } : {}),
    updated_at: db.fn.now(),
  });
}

/** The same caller, warp and arguments make the same key: what finds the open execution of a retried write. */
export function dedupeKey(agentId: string, warp: string, args: unknown): string {
  const canonical = (value: unknown): unknown => (Array.isArray(value)
    ? value.map(canonical)
    : value && typeof value === 'object'
      ? Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]))
      : value);
  return createHash('sha256').update(JSON.stringify([agentId, warp, canonical(args)])).digest('base64url');
}

/**
 * Opens an execution unless the same write is already open (pending approval or running): one
 * insert against a partial unique index, so concurrent retries find one execution between them.
 */
export async function claimExecution(
  db: Db,
  values: Record<string, unknown> & { id: string; team_id: string; dedupe_key: string },
  workflowIdOf: (executionId: string) => string,
): Promise<{ id: string; workflowId: string; status: ExecutionStatus; created: boolean }> {
  const row = { ...values, workflow_id: workflowIdOf(values.id) };
  for (;;) {
    const inserted: { id: string; workflow_id: string; status: ExecutionStatus }[] = await db('warp_executions').insert(row)
      .onConflict(db.raw("(team_id, dedupe_key) WHERE dedupe_key IS NOT NULL AND status IN ('pending_approval','running')"))
      .ignore()
      .returning(['id', 'workflow_id', 'status']);
    if (inserted.length) return { id: inserted[0].id, workflowId: inserted[0].workflow_id, status: inserted[0].status, created: true };
    const open = await db('warp_executions').where({ team_id: row.team_id, dedupe_key: row.dedupe_key }).whereIn('status', ['pending_approval', 'running']).first('id', 'workflow_id', 'status');
    // Settled between the two statements: the write is no longer open, so this one opens anew.
    if (open) return { id: open.id, workflowId: open.workflow_id, status: open.status, created: false };
  }
}

async function executionRow(db: Db, teamId: string, executionId: string): Promise<ExecutionRow> {
  const row = await db('warp_executions').where({ team_id: teamId, id: executionId }).first();
  if (!row) throw notFound('Warp execution');
  return row;
}

const OPEN: ExecutionStatus[] = ['pending_approval', 'running'];

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
    const ended = await (await ctx.temporal.client()).workflow.getHandle(row.workflow_id).describe()
      .then((d) => (['TERMINATED', 'CANCELLED', 'TIMED_OUT', 'FAILED'].includes(d.status.name) ? d.status.name : null))
      .catch((err) => (err instanceof WorkflowNotFoundError && startedLongAgo ? 'NOT_FOUND' : null));
    if (ended) {
      await ctx.db('warp_executions').where({ id: row.id }).whereIn('status', OPEN).update({
        status: 'failed', error: JSON.stringify({ error: { code: 'execution_ended', message: `The workflow ended without finishing (${ended.toLowerCase()})` } }), updated_at: ctx.db.fn.now(),
      });
      return executionRow(ctx.db, row.team_id, row.id);
    }
  }
  return row;
}

/** Executions by id, newest first, each settled as `getExecution` settles it; one query for the rows. */
export async function executionsOf(ctx: AppContext, teamId: string, query: (q: Knex.QueryBuilder) => Knex.QueryBuilder): Promise<WarpExecutionJson[]> {
  const rows: ExecutionRow[] = await query(ctx.db('warp_executions').where({ team_id: teamId }).orderBy('seq', 'desc'));
  return Promise.all(rows.map(async (row) => presentExecution(await settledRow(ctx, row), ctx.config.baseUrl)));
}

const notPending = (status: string) => invalidState(`The execution is not waiting for approval (status ${status})`, { status });

/** Approvals come from people: an API token (made by a human in the product) or a signed link, never an agent's OAuth token. */
function requirePerson(principal: Principal): void {
  if (principal.kind !== 'api_token') throw new AppError(403, 'forbidden', 'Approvals are given by people: use an API token or the approval link');
}

/** The `approve` Update: its validator refuses anything not pending, so a late or second approval is 409. */
export async function approveExecution(ctx: AppContext, teamId: string, executionId: string, edits: z.infer<typeof approvalEditsSchema>, principal?: Principal) {
  const row = await executionRow(ctx.db, teamId, executionId);
  if (principal) requirePerson(principal);
  if (row.status !== 'pending_approval') throw notPending(row.status);
  if (row.warp !== 'artifact-deliver' && Object.keys(edits).length) {
    throw new AppError(422, 'edits_not_accepted', `${row.warp} is approved as it is: only a delivery's message and subject can be edited`, { warp: row.warp });
  }
  try {
    await (await ctx.temporal.client()).workflow.getHandle(row.workflow_id).executeUpdate(approveUpdate, { args: [edits] });
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError) throw notPending((await executionRow(ctx.db, teamId, executionId)).status);
    if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError) throw new AppError(503, 'temporal_unavailable', 'The approval could not be delivered; retry', {}, { 'Retry-After': '2' });
    throw err;
  }
  return getExecution(ctx, teamId, executionId);
}

/** The `decline` signal; answers once the execution reads declined (or after a few seconds, as it stands). */
export async function declineExecution(ctx: AppContext, teamId: string, executionId: string, input: z.infer<typeof declineSchema>, principal?: Principal) {
  const row = await executionRow(ctx.db, teamId, executionId);
  if (principal) requirePerson(principal);
  if (row.status !== 'pending_approval') throw notPending(row.status);
  try {
    await (await ctx.temporal.client()).workflow.getHandle(row.workflow_id).signal(declineSignal, input);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw notPending('ended');
    throw err;
  }
  for (let waited = 0; waited < 5000; waited += 100) {
    const current = await executionRow(ctx.db, teamId, executionId);
    if (current.status !== 'pending_approval') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return getExecution(ctx, teamId, executionId);
}

/** A signed, single-use link a person can approve or decline with, without signing in. */
export async function createApprovalLink(ctx: AppContext, teamId: string, executionId: string, principal: Principal) {
  const row = await executionRow(ctx.db, teamId, executionId);
  requirePerson(principal);
  if (row.status !== 'pending_approval' || !row.approval_expires_at) throw notPending(row.status);
  if (row.approval_link_used_at) throw invalidState('The approval link of this execution was already used');
  const expires = String(Math.floor(Math.min(row.approval_expires_at.getTime(), Date.now() + 7 * 86400_000) / 1000));
  const sig = ctx.secretBox.sign('approval', executionId, expires);
  return { url: `${executionUrl(ctx.config.baseUrl, executionId)}/approval?expires=${expires}&sig=${sig}`, expiresAt: new Date(Number(expires) * 1000).toISOString() };
}

/** The execution a signed link names, if the signature holds and it has not expired. */
export async function executionForLink(ctx: AppContext, executionId: string, expires: unknown, sig: unknown): Promise<ExecutionRow | null> {
  if (typeof expires !== 'string' || typeof sig !== 'string' || !/^\d+$/.test(expires)) return null;
  if (Number(expires) * 1000 < Date.now() || !ctx.secretBox.verify(sig, 'approval', executionId, expires)) return null;
  return (await ctx.db('warp_executions').where({ id: executionId }).first()) ?? null;
}

/** Uses a link once: of two clicks, one acts. */
export async function useApprovalLink(ctx: AppContext, row: ExecutionRow, decision: 'approve' | 'decline') {
  const claimed = await ctx.db('warp_executions').where({ id: row.id }).whereNull('approval_link_used_at').update({ approval_link_used_at: ctx.db.fn.now() });
  if (claimed !== 1) throw invalidState('This approval link was already used');
  try {
    return decision === 'approve' ? await approveExecution(ctx, row.team_id, row.id, {}) : await declineExecution(ctx, row.team_id, row.id, { reason: 'declined by approval link' });
  } catch (err) {
    // Only a decision that was made (or can no longer be) spends the link; a passing outage does not.
    if (!(err instanceof AppError && err.code === 'invalid_state')) {
      await ctx.db('warp_executions').where({ id: row.id }).update({ approval_link_used_at: null });
    }
    throw err;
  }
}

export const deliveryListQuerySchema = z.object({
  cursor: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(100).default(25),
  executionId: z.string().max(100).optional(),
  contactId: z.string().max(100).optional(),
  artifactId: z.string().max(100).optional(),
});

export function listDeliveries(db: Db, teamId: string, query: z.infer<typeof deliveryListQuerySchema>): Promise<Page<DeliveryJson>> {
  const q = db('deliveries').where({ team_id: teamId });
  if (query.executionId) q.where({ execution_id: query.executionId });
  if (query.contactId) q.where({ contact_id: query.contactId });
  if (query.artifactId) q.whereRaw('? = ANY(artifact_ids)', [query.artifactId]);
  return keysetPage(q.select('*'), query, presentDelivery);
}

export const outboxMessageSchema = z.object({
  id: z.string(), channel: z.string(), from: z.string().nullable(), to: z.string(), subject: z.string().nullable(), body: z.string(), createdAt: z.iso.datetime(),
});

/** What the sandbox provider "sent" for the team, oldest first. */
export function listOutbox(db: Db, teamId: string, page: PageQuery): Promise<Page<z.infer<typeof outboxMessageSchema>>> {
  return keysetPage(db('outbox').where({ team_id: teamId }).select('*'), page, (row: { seq: number; id: string; channel: string; from_address: string | null; to_address: string; subject: string | null; body: string; created_at: Date }) => ({
    id: row.id, channel: row.channel, from: row.from_address, to: row.to_address, subject: row.subject, body: row.body, createdAt: row.created_at.toISOString(),
  }));
}
