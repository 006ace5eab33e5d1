import express, { Router } from 'express';
import helmet from 'helmet';
import { errorPage, layoutPage } from '../../auth/pages';
import type { AppContext } from '../../services/context';
import { optOut, verifyUnsubscribe } from '../../services/unsubscribe';

/**
 * The signed unsubscribe link of marketing email. GET shows a button (mail scanners open links);
 * POST opts out, and is also the RFC 8058 one-click target of `List-Unsubscribe-Post`.
 */
export function unsubscribeRouter(ctx: AppContext): Router {
  const router = Router();
  router.use('/unsubscribe', helmet({ contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], styleSrc: ["'unsafe-inline'"], formAction: ["'self'"], frameAncestors: ["'none'"] } } }));
  router.get('/unsubscribe/:contactId', (req, res) => {
    if (!verifyUnsubscribe(ctx.secretBox, String(req.params.contactId), req.query.sig)) return res.status(403).send(errorPage('This link is not valid', 'The unsubscribe link is incomplete.'));
    res.send(layoutPage('Unsubscribe', 'Unsubscribe from these emails?', ['You will no longer receive marketing messages from this sender.'], {
      action: req.originalUrl, buttons: [{ name: 'confirm', value: 'yes', label: 'Unsubscribe', primary: true }],
    }));
  });
  router.post('/unsubscribe/:contactId', express.urlencoded({ extended: false, limit: '1kb' }), async (req, res) => {
    if (!verifyUnsubscribe(ctx.secretBox, String(req.params.contactId), req.query.sig)) return res.status(403).send(errorPage('This link is not valid', 'The unsubscribe link is incomplete.'));
    await optOut(ctx.db, String(req.params.contactId));
    res.send(errorPage('Unsubscribed', 'You will not receive marketing messages from this sender again.'));
  });
  return router;
}
