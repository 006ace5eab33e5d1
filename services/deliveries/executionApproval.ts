import {
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  WorkflowUpdateStage,
} from '@temporalio/client';
import { z } from 'zod';
import { approve as approveUpdate, decline as declineSignal } from '../../workflows/contracts/delivery';
import type { AppContext } from '../platform/context';
import { AppError, invalidState } from '../platform/errors';
import type { Principal } from '../identity/principal';
import { ExecutionRow, executionRow, executionUrl, getExecution } from './warpExecutions';

/** A person's decision on a pending warp execution: approve (with edits), decline, or a signed single-use link. */
export const approvalEditsSchema = z.strictObject({
  message: z.string().trim().min(1).max(5000).optional(),
  subject: z.string().trim().min(1).max(300).optional(),
});
export const declineSchema = z.strictObject({ reason: z.string().trim().max(1000).optional() });

/** An approval may wait for the draft it edits; that is seconds, not the default request deadline. */
const APPROVE_TIMEOUT_MS = 30_000;

const notPending = (status: string) =>
  invalidState(`The execution is not waiting for approval (status ${status})`, { status });

/** Approvals come from people: an API token (made by a human in the product) or a signed link, never an agent's OAuth token. */
function requirePerson(principal: Principal): void {
  if (principal.kind !== 'api_token')
    throw new AppError('forbidden', 'Approvals are given by people: use an API token or the approval link');
}

/** The `approve` Update: its validator refuses anything not pending, so a late or second approval is 409. */
export async function approveExecution(
  ctx: AppContext,
  teamId: string,
  executionId: string,
  edits: z.infer<typeof approvalEditsSchema>,
  principal?: Principal,
) {
  const row = await executionRow(ctx.db, teamId, executionId);
  if (principal) requirePerson(principal);
  if (row.status !== 'pending_approval') throw notPending(row.status);
  if (row.warp !== 'artifact-deliver' && Object.keys(edits).length) {
    throw new AppError(
      'edits_not_accepted',
      `${row.warp} is approved as it is: only a delivery's message and subject can be edited`,
      { warp: row.warp },
    );
  }
  try {
    // Accepted (or refused by the validator) within the request deadline, so Temporal being down is a
    // quick 503; then a longer wait, since the handler waits for the draft when a person is quicker
    // than the drafting step.
    const accepted = await ctx.temporal.call((client) =>
      client.workflow
        .getHandle(row.workflow_id)
        .startUpdate(approveUpdate, { args: [edits], waitForStage: WorkflowUpdateStage.ACCEPTED }),
    );
    await ctx.temporal.call(() => accepted.result(), APPROVE_TIMEOUT_MS);
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError)
      throw notPending((await executionRow(ctx.db, teamId, executionId)).status);
    if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError)
      throw new AppError(
        'temporal_unavailable',
        'The approval could not be delivered; retry',
        {},
        { 'Retry-After': '2' },
      );
    throw err;
  }
  return getExecution(ctx, teamId, executionId);
}

/** The `decline` signal; answers once the execution reads declined (or after a few seconds, as it stands). */
export async function declineExecution(
  ctx: AppContext,
  teamId: string,
  executionId: string,
  input: z.infer<typeof declineSchema>,
  principal?: Principal,
) {
  const row = await executionRow(ctx.db, teamId, executionId);
  if (principal) requirePerson(principal);
  if (row.status !== 'pending_approval') throw notPending(row.status);
  try {
    await ctx.temporal.call((client) => client.workflow.getHandle(row.workflow_id).signal(declineSignal, input));
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
export const approvalLinkSchema = z.object({ url: z.url(), expiresAt: z.iso.datetime() });

export async function createApprovalLink(
  ctx: AppContext,
  teamId: string,
  executionId: string,
  principal: Principal,
): Promise<z.input<typeof approvalLinkSchema>> {
  const row = await executionRow(ctx.db, teamId, executionId);
  requirePerson(principal);
  if (row.status !== 'pending_approval' || !row.approval_expires_at) throw notPending(row.status);
  if (row.approval_link_used_at) throw invalidState('The approval link of this execution was already used');
  const expires = String(Math.floor(Math.min(row.approval_expires_at.getTime(), Date.now() + 7 * 86400_000) / 1000));
  const sig = ctx.secretBox.sign('approval', executionId, expires);
  return {
    url: `${executionUrl(ctx.config.baseUrl, executionId)}/approval?expires=${expires}&sig=${sig}`,
    expiresAt: new Date(Number(expires) * 1000).toISOString(),
  };
}

/** The execution a signed link names, if the signature holds and it has not expired. */
export async function executionForLink(
  ctx: AppContext,
  executionId: string,
  expires: unknown,
  sig: unknown,
): Promise<ExecutionRow | null> {
  if (typeof expires !== 'string' || typeof sig !== 'string' || !/^\d+$/.test(expires)) return null;
  if (Number(expires) * 1000 < Date.now() || !ctx.secretBox.verify(sig, 'approval', executionId, expires)) return null;
  return (await ctx.db('warp_executions').where({ id: executionId }).first()) ?? null;
}

/** Uses a link once: of two clicks, one acts. */
export async function useApprovalLink(ctx: AppContext, row: ExecutionRow, decision: 'approve' | 'decline') {
  const claimed = await ctx
    .db('warp_executions')
    .where({ id: row.id })
    .whereNull('approval_link_used_at')
    .update({ approval_link_used_at: ctx.db.fn.now() });
  if (claimed !== 1) throw invalidState('This approval link was already used');
  try {
    return decision === 'approve'
      ? await approveExecution(ctx, row.team_id, row.id, {})
      : await declineExecution(ctx, row.team_id, row.id, { reason: 'declined by approval link' });
  } catch (err) {
    // Only a decision that was made (or can no longer be) spends the link; a passing outage does not.
    if (!(err instanceof AppError && err.code === 'invalid_state')) {
      await ctx.db('warp_executions').where({ id: row.id }).update({ approval_link_used_at: null });
    }
    throw err;
  }
}
