import express, { Router } from 'express';
import helmet from 'helmet';
import { errorPage, layoutPage } from '../../auth/pages';
import type { AppContext } from '../../services/context';
import {
  approvalEditsSchema, createApprovalLink, declineExecution, declineSchema, deliveryListQuerySchema, executionForLink, approveExecution,
  getExecution, listDeliveries, listOutbox, useApprovalLink,
} from '../../services/deliveries';
import { AppError, parseOrThrow } from '../../services/errors';
import { pageQuerySchema } from '../../services/pagination';
import { approvalSummary } from '../../services/warps';
import { authOf, teamAccess } from '../auth';
import { jsonBody, requireObjectBody } from '../http';

/** Warp executions (approval-then-run), their delivery records, and the sandbox outbox. */
export function warpExecutionsRouter(ctx: AppContext): Router {
  const router = Router();
  const body = jsonBody(ctx.config.BODY_LIMIT);
  const optionalBody = (req: express.Request) => (req.body === undefined ? {} : requireObjectBody(req));

  router.get('/warp-executions/:executionId', teamAccess(ctx, 'read'), async (req, res) => {
    res.json(await getExecution(ctx, authOf(req).team.id, String(req.params.executionId)));
  });

  router.post('/warp-executions/:executionId/approve', teamAccess(ctx, 'write'), ...body, async (req, res) => {
    const edits = parseOrThrow(approvalEditsSchema, optionalBody(req), 'body');
    const { team, principal } = authOf(req);
    res.json(await approveExecution(ctx, team.id, String(req.params.executionId), edits, principal));
  });

  router.post('/warp-executions/:executionId/decline', teamAccess(ctx, 'write'), ...body, async (req, res) => {
    const input = parseOrThrow(declineSchema, optionalBody(req), 'body');
    const { team, principal } = authOf(req);
    res.json(await declineExecution(ctx, team.id, String(req.params.executionId), input, principal));
  });

  router.post('/warp-executions/:executionId/approval-link', teamAccess(ctx, 'write'), async (req, res) => {
    const { team, principal } = authOf(req);
    res.status(201).json(await createApprovalLink(ctx, team.id, String(req.params.executionId), principal));
  });

  // The signed link: a page to look at the draft and decide, no sign-in. GET never decides
  // (mail scanners open links); the page's form POSTs.
  const linkPages = Router();
  linkPages.use(helmet({ contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], styleSrc: ["'unsafe-inline'"], formAction: ["'self'"], frameAncestors: ["'none'"] } }, referrerPolicy: { policy: 'no-referrer' } }));
  linkPages.use((_req, res, next) => { res.setHeader('Cache-Control', 'no-store'); next(); });
  linkPages.get('/warp-executions/:executionId/approval', async (req, res) => {
    const row = await executionForLink(ctx, String(req.params.executionId), req.query.expires, req.query.sig);
    if (!row) return res.status(403).send(errorPage('This link is not valid', 'The approval link is wrong or has expired.'));
    const { noun, lines } = approvalSummary(row);
    if (row.status !== 'pending_approval' || row.approval_link_used_at) {
      return res.status(409).send(errorPage('Already decided', `This ${noun} is ${row.status.replace('_', ' ')}.`));
    }
    res.send(layoutPage(`Approve ${noun}`, `Approve this ${noun}?`, lines, {
      action: req.originalUrl,
      buttons: [{ name: 'decision', value: 'approve', label: noun === 'delivery' ? 'Approve and send' : 'Approve', primary: true }, { name: 'decision', value: 'decline', label: 'Decline' }],
    }));
  });
  linkPages.post('/warp-executions/:executionId/approval', express.urlencoded({ extended: false, limit: '2kb' }), async (req, res) => {
    const row = await executionForLink(ctx, String(req.params.executionId), req.query.expires, req.query.sig);
    if (!row) return res.status(403).send(errorPage('This link is not valid', 'The approval link is wrong or has expired.'));
    const decision = req.body?.decision === 'approve' ? 'approve' : req.body?.decision === 'decline' ? 'decline' : null;
    if (!decision) throw new AppError(400, 'validation_error', 'decision must be approve or decline');
    try {
      const execution = await useApprovalLink(ctx, row, decision);
      res.send(errorPage(decision === 'approve' ? 'Approved' : 'Declined', `The ${approvalSummary(row).noun} is now ${execution.status.replace('_', ' ')}.`));
    } catch (err) {
      if (err instanceof AppError && err.status === 409) return res.status(409).send(errorPage('Already decided', err.message));
      throw err;
    }
  });
  router.use(linkPages);

  router.get('/deliveries', teamAccess(ctx, 'read'), async (req, res) => {
    res.json(await listDeliveries(ctx.db, authOf(req).team.id, parseOrThrow(deliveryListQuerySchema, req.query, 'query')));
  });

  router.get('/outbox', teamAccess(ctx, 'read'), async (req, res) => {
    res.json(await listOutbox(ctx.db, authOf(req).team.id, parseOrThrow(pageQuerySchema, req.query, 'query')));
  });

  return router;
}
