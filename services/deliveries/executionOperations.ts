import { z } from 'zod';
import { approvalViewJson, approvalViewSchema } from './approvalViewJson';
import {
  approvalEditsSchema,
  approvalLinkSchema,
  approveExecution,
  createApprovalLink,
  declineExecution,
  declineSchema,
} from './executionApproval';
import { getExecution, listExecutions, warpExecutionSchema } from './warpExecutions';
import { checkedExecutionsSchema, checkExecutions, executionListQuerySchema, executionsQuerySchema } from './warps';
import { defineOperation, Feature } from '../platform/operation';
import { pageSchema } from '../platform/pagination';

const tag = 'Warp executions';
const executionParams = z.object({ executionId: z.string() });

/**
 * Warp executions (approval-then-run): the approvals inbox and a person's decision. The signed
 * link's approval pages, which follow approval-link in the API document, are HTML and stay
 * hand-written (api/routes/approvalPages.ts).
 */
export const warpExecutions: Feature = {
  name: 'warpExecutions',
  operations: [
    defineOperation({
      name: 'warpExecutions.list',
      access: { level: 'read', app: 'core' },
      output: pageSchema(warpExecutionSchema),
      handler: (ctx, { team }, query) => listExecutions(ctx, team.id, query),
      http: {
        method: 'get',
        path: '/warp-executions',
        tag,
        summary:
          'List warp executions, newest first (filters: status, warp); status=pending_approval is the approvals inbox',
        status: 200,
        answer: 'A page of executions',
        query: executionListQuerySchema,
      },
    }),
    defineOperation({
      name: 'warpExecutions.get',
      access: { level: 'read', app: 'core' },
      output: warpExecutionSchema,
      handler: (ctx, { team }, { executionId }) => getExecution(ctx, team.id, executionId),
      http: {
        method: 'get',
        path: '/warp-executions/{executionId}',
        tag,
        summary: 'Read a warp execution (pending_approval, running, succeeded, failed, declined, expired)',
        status: 200,
        answer: 'The execution',
        params: executionParams,
      },
    }),
    defineOperation({
      name: 'warpExecutions.approvalView',
      access: { level: 'read', app: 'core' },
      output: approvalViewSchema,
      handler: (ctx, { team }, { executionId }) => approvalViewJson(ctx, team.id, executionId),
      http: {
        method: 'get',
        path: '/warp-executions/{executionId}/approval-view',
        tag,
        summary:
          "What approving would do, in words: the approval page's view (recipients, channel, agent, message, expiry)",
        status: 200,
        answer: 'The view',
        params: executionParams,
      },
    }),
    defineOperation({
      name: 'warpExecutions.approve',
      access: { level: 'write', app: 'core' },
      output: warpExecutionSchema,
      handler: (ctx, { team, principal }, { executionId, ...edits }) =>
        approveExecution(ctx, team.id, executionId, edits, principal),
      http: {
        method: 'post',
        path: '/warp-executions/{executionId}/approve',
        tag,
        summary: 'Approve, optionally editing message and subject (API tokens only: people approve)',
        status: 200,
        answer: 'The execution',
        params: executionParams,
        body: { schema: approvalEditsSchema, optional: true },
        errors: [409, 422, 503],
      },
    }),
    defineOperation({
      name: 'warpExecutions.decline',
      access: { level: 'write', app: 'core' },
      output: warpExecutionSchema,
      handler: (ctx, { team, principal }, { executionId, ...input }) =>
        declineExecution(ctx, team.id, executionId, input, principal),
      http: {
        method: 'post',
        path: '/warp-executions/{executionId}/decline',
        tag,
        summary: 'Decline',
        status: 200,
        answer: 'The execution',
        params: executionParams,
        body: { schema: declineSchema, optional: true },
        errors: [409, 503],
      },
    }),
    defineOperation({
      name: 'warpExecutions.approvalLink',
      access: { level: 'write', app: 'core' },
      output: approvalLinkSchema,
      handler: (ctx, { team, principal }, { executionId }) => createApprovalLink(ctx, team.id, executionId, principal),
      http: {
        method: 'post',
        path: '/warp-executions/{executionId}/approval-link',
        tag,
        summary: 'A signed, single-use, expiring link to approve or decline without signing in',
        status: 201,
        answer: 'The link',
        params: executionParams,
        errors: [409],
      },
    }),
    defineOperation({
      name: 'warpExecutions.check',
      access: { level: 'read', app: 'core' },
      input: executionsQuerySchema,
      output: checkedExecutionsSchema,
      handler: (ctx, { team }, query) => checkExecutions(ctx, team.id, query),
      mcp: {
        name: 'check_warp_executions',
        title: 'Check pending writes',
        description:
          'Where sensitive writes stand: pending_approval, running, succeeded (with result), failed (with error), ' +
          'declined or expired. Pass the executionIds that writes answered with; poll until none is ' +
          'pending_approval or running.',
      },
    }),
  ],
};
