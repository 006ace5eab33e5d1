import type { Response } from 'express';
import { z } from 'zod';
import { approvalPage, noticePage } from '../../auth/pages';
import type { AppContext } from '../../services/platform/context';
import { executionForLink } from '../../services/deliveries/executionApproval';
import { AppError } from '../../services/platform/errors';
import {
  approvalView,
  decideWithLink,
  decidedWords,
  linkKindOf,
  linkDecisionSchema,
  parseLinkDecision,
} from '../../services/deliveries/approvalPages';
import { linkPageHeaders, unavailablePage } from '../linkPages';
import { defineRoute, html, Route } from '../routeTable';

const executionParams = z.object({ executionId: z.string() });
// A repeated parameter arrives as a list: the link is then malformed, and the person gets the 403
// page (executionForLink refuses anything but one string), not the API's JSON error.
const linkParam = z.union([z.string(), z.array(z.string())]).optional();
const signedLinkQuery = z.object({ expires: linkParam, sig: linkParam });
const single = (value: string | string[] | undefined) => (typeof value === 'string' ? value : undefined);

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

/**
 * The signed approval link's pages (HTML, no sign-in). They sit between the warp executions' JSON
 * operations (services/deliveries/executionOperations.ts) and the message log's in the API document.
 */
export function approvalPageRoutes(ctx: AppContext): Route[] {
  const invalidLink = noticePage({
    title: 'This link is not valid',
    paragraphs: ['This approval link is wrong, incomplete or has expired. Nothing was approved.'],
    kind: 'error',
  });
  return [
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
  ];
}
