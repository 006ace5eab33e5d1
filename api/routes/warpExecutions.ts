import type { Response } from 'express';
import { z } from 'zod';
import { approvalPage, noticePage } from '../../auth/pages';
import type { AppContext } from '../../services/platform/context';
import { deliveryListQuerySchema, listDeliveries } from '../../services/deliveries/deliveryRecords';
import {
  approvalEditsSchema,
  createApprovalLink,
  declineExecution,
  declineSchema,
  executionForLink,
  approveExecution,
} from '../../services/deliveries/executionApproval';
import { listOutbox, outboxMessageSchema } from '../../services/deliveries/outbox';
import {
  listOutboundMessages,
  messageListQuerySchema,
  outboundMessageSchema,
} from '../../services/deliveries/messageLog';
import {
  executionRow,
  getExecution,
  listExecutions,
  warpExecutionSchema,
} from '../../services/deliveries/warpExecutions';
import { deliverySchema } from '../../services/deliveries/deliveryTypes';
import { AppError } from '../../services/platform/errors';
import { pageQuerySchema, pageSchema } from '../../services/platform/pagination';
import {
  approvalView,
  decideWithLink,
  decidedWords,
  linkKindOf,
  linkDecisionSchema,
  parseLinkDecision,
} from '../../services/deliveries/approvalPages';
import { executionListQuerySchema } from '../../services/deliveries/warps';
import { authOf } from '../auth';
import { linkPageHeaders, unavailablePage } from '../linkPages';
import { defineRoute, html, json, Route } from '../routeTable';

const executionParams = z.object({ executionId: z.string() });
// A repeated parameter arrives as a list: the link is then malformed, and the person gets the 403
// page (executionForLink refuses anything but one string), not the API's JSON error.
const linkParam = z.union([z.string(), z.array(z.string())]).optional();
const signedLinkQuery = z.object({ expires: linkParam, sig: linkParam });
const single = (value: string | string[] | undefined) => (typeof value === 'string' ? value : undefined);

/** The approval link page's content as JSON, for the console's inbox. */
const approvalViewSchema = z.object({
  noun: z.enum(['delivery', 'request']),
  question: z.string(),
  summary: z.string(),
  facts: z.array(z.object({ label: z.string(), value: z.string() })),
  recipients: z.array(z.object({ name: z.string().nullable(), address: z.string() })),
  message: z.object({ subject: z.string().nullable(), body: z.string() }).nullable(),
  approveLabel: z.string(),
  expiresAt: z.iso.datetime().nullable(),
  decided: z.object({ heading: z.string(), sentence: z.string() }).nullable(),
});

const HANDLED = Symbol('answered with a page');

/** Answers a 503 with a page for the person who clicked; any other error is thrown on. */
const asPage =
  (res: Response) =>
  (err: unknown): typeof HANDLED => {
    const unavailable = unavailablePage(err);
    if (!unavailable) throw err;
    res.status(unavailable.status).set(unavailable.headers).send(unavailable.page);
    return HANDLED;
  };

/** Warp executions (approval-then-run), their delivery records, and the sandbox outbox. */
export function warpExecutionsRoutes(ctx: AppContext): Route[] {
  const invalidLink = noticePage({
    title: 'This link is not valid',
    paragraphs: ['This approval link is wrong, incomplete or has expired. Nothing was approved.'],
    kind: 'error',
  });
  return [
    defineRoute({
      method: 'get',
      path: '/warp-executions',
      tag: 'Warp executions',
      access: 'read',
      summary:
        'List warp executions, newest first (filters: status, warp); status=pending_approval is the approvals inbox',
      query: executionListQuerySchema,
      responses: { 200: json(pageSchema(warpExecutionSchema), 'A page of executions') },
      handler: async ({ req, query }) => ({ status: 200, body: await listExecutions(ctx, authOf(req).team.id, query) }),
    }),
    defineRoute({
      method: 'get',
      path: '/warp-executions/{executionId}',
      tag: 'Warp executions',
      access: 'read',
      summary: 'Read a warp execution (pending_approval, running, succeeded, failed, declined, expired)',
      params: executionParams,
      responses: { 200: json(warpExecutionSchema, 'The execution') },
      handler: async ({ req, params }) => ({
        status: 200,
        body: await getExecution(ctx, authOf(req).team.id, params.executionId),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/warp-executions/{executionId}/approval-view',
      tag: 'Warp executions',
      access: 'read',
      summary:
        "What approving would do, in words: the approval page's view (recipients, channel, agent, message, expiry)",
      params: executionParams,
      responses: { 200: json(approvalViewSchema, 'The view') },
      handler: async ({ req, params }) => {
        const view = await approvalView(ctx, await executionRow(ctx.db, authOf(req).team.id, params.executionId));
        return { status: 200, body: { ...view, expiresAt: view.expiresAt?.toISOString() ?? null } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/warp-executions/{executionId}/approve',
      tag: 'Warp executions',
      access: 'write',
      summary: 'Approve, optionally editing message and subject (API tokens only: people approve)',
      params: executionParams,
      body: { kind: 'json', schema: approvalEditsSchema, optional: true },
      responses: { 200: json(warpExecutionSchema, 'The execution') },
      errors: [409, 422, 503],
      handler: async ({ req, params, body }) => {
        const { team, principal } = authOf(req);
        return { status: 200, body: await approveExecution(ctx, team.id, params.executionId, body, principal) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/warp-executions/{executionId}/decline',
      tag: 'Warp executions',
      access: 'write',
      summary: 'Decline',
      params: executionParams,
      body: { kind: 'json', schema: declineSchema, optional: true },
      responses: { 200: json(warpExecutionSchema, 'The execution') },
      errors: [409, 503],
      handler: async ({ req, params, body }) => {
        const { team, principal } = authOf(req);
        return { status: 200, body: await declineExecution(ctx, team.id, params.executionId, body, principal) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/warp-executions/{executionId}/approval-link',
      tag: 'Warp executions',
      access: 'write',
      summary: 'A signed, single-use, expiring link to approve or decline without signing in',
      params: executionParams,
      responses: { 201: json(z.object({ url: z.url(), expiresAt: z.iso.datetime() }), 'The link') },
      errors: [409],
      handler: async ({ req, params }) => {
        const { team, principal } = authOf(req);
        return { status: 201, body: await createApprovalLink(ctx, team.id, params.executionId, principal) };
      },
    }),

    // The signed link: a page to look at the draft and decide, no sign-in. GET never decides
    // (mail scanners open links); the page's form POSTs.
    defineRoute({
      method: 'get',
      path: '/warp-executions/{executionId}/approval',
      tag: 'Pages',
      access: 'public',
      summary: 'The approval page of a signed link (HTML, no sign-in): what is approved, then Approve / Decline',
      params: executionParams,
      query: signedLinkQuery,
      middleware: linkPageHeaders,
      responses: {
        200: html('The page (or, once decided, what happened)'),
        403: html('The link is wrong, incomplete or expired'),
      },
      handler: async ({ req, res, params, query }) => {
        const row = await executionForLink(ctx, params.executionId, single(query.expires), single(query.sig)).catch(
          asPage(res),
        );
        if (row === HANDLED) return;
        if (!row) return void res.status(403).send(invalidLink);
        const view = await approvalView(ctx, row).catch(asPage(res));
        if (view === HANDLED) return;
        // A decided execution is news to read, not a failed request: 200 with what happened.
        if (view.decided)
          return void res.send(
            noticePage({ title: view.decided.heading, paragraphs: [view.decided.sentence], kind: 'done' }),
          );
        res.send(approvalPage({ ...view, action: req.originalUrl }));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/warp-executions/{executionId}/approval',
      tag: 'Pages',
      access: 'public',
      summary: "The approval page's form: approve or decline once (HTML)",
      params: executionParams,
      query: signedLinkQuery,
      middleware: linkPageHeaders,
      body: { kind: 'form', schema: linkDecisionSchema, limit: '2kb' },
      responses: {
        200: html('What happened'),
        403: html('The link is wrong, incomplete or expired'),
        409: html('Already decided: what happened'),
      },
      handler: async ({ res, params, query, body }) => {
        const row = await executionForLink(ctx, params.executionId, single(query.expires), single(query.sig));
        if (!row) return void res.status(403).send(invalidLink);
        const decision = parseLinkDecision(body);
        try {
          const outcome = await decideWithLink(ctx, row, decision);
          res.send(
            noticePage({ title: outcome.heading, paragraphs: [outcome.sentence], kind: outcome.ok ? 'done' : 'error' }),
          );
        } catch (err) {
          // Decided meanwhile (the click raced another, or an outage hid an approval Temporal took):
          // the person reads what happened, not an error body.
          if (!(err instanceof AppError && err.status === 409)) return void asPage(res)(err);
          const current = (await executionForLink(ctx, row.id, single(query.expires), single(query.sig))) ?? row;
          const decided = decidedWords(linkKindOf(current.warp), {
            ...current,
            approval_link_used_at: current.approval_link_used_at ?? new Date(),
          });
          res.status(409).send(noticePage({ title: decided!.heading, paragraphs: [decided!.sentence], kind: 'done' }));
        }
      },
    }),

    defineRoute({
      method: 'get',
      path: '/deliveries',
      tag: 'Warp executions',
      access: 'read',
      summary: 'Delivery records (filters: executionId, contactId, artifactId)',
      query: deliveryListQuerySchema,
      responses: { 200: json(pageSchema(deliverySchema), 'A page of delivery records') },
      handler: async ({ req, query }) => ({
        status: 200,
        body: await listDeliveries(ctx.db, authOf(req).team.id, query),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/messages',
      tag: 'Warp executions',
      access: 'read',
      summary:
        'Every message a provider was asked to send for the team (campaign recipients, test sends, deliveries), newest first; filters status, channel, sourceKind, sourceId, contactId',
      query: messageListQuerySchema,
      responses: { 200: json(pageSchema(outboundMessageSchema), 'A page of messages') },
      handler: async ({ req, query }) => ({
        status: 200,
        body: await listOutboundMessages(ctx.db, authOf(req).team.id, query),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/outbox',
      tag: 'Warp executions',
      access: 'read',
      summary: 'What the sandbox provider sent for the team',
      query: pageQuerySchema,
      responses: { 200: json(pageSchema(outboxMessageSchema), 'A page of messages') },
      handler: async ({ req, query }) => ({ status: 200, body: await listOutbox(ctx.db, authOf(req).team.id, query) }),
    }),
  ];
}
