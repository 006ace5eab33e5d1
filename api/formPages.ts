import express, { Request, Response, Router } from 'express';
import helmet from 'helmet';
import type { AppContext } from '../services/platform/context';
import { checkConfirmationLink, confirmSubmission, sendConfirmation } from '../services/forms/confirmation';
import { consumeSubmission } from '../services/forms/formLimits';
import { confirmFormPage, FORM_CSS, formNoticePage, formPage, HONEYPOT_FIELD } from '../services/forms/formPage';
import type { FormRow } from '../services/forms/forms';
import { acceptSubmission, publicForm, readSubmission } from '../services/forms/submit';
import { unavailablePage } from './linkPages';

/**
 * The public pages of the Forms app at {site_url}/forms (docs/FORMS.md): the form, its POST, the
 * double opt-in link, and the stylesheet. Plain HTML forms: nothing runs in the browser, the CSP
 * allows this origin's stylesheet and form posts only, and the pages are never framed or cached.
 */
const formHeaders = [
  helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        styleSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
      },
    },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: false,
  }),
  (_req: Request, res: Response, next: () => void) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  },
];

const notFoundPage = (cssHref: string) =>
  formNoticePage({
    title: 'Form not found',
    paragraphs: ['This form does not exist or is closed. Check the address, or ask whoever gave it to you.'],
    cssHref,
  });

const thanksPage = (form: FormRow) =>
  formNoticePage({
    title: 'Thank you',
    language: form.language,
    cssHref: 'assets/form.css',
    paragraphs: [
      form.thank_you ??
        (form.double_opt_in && form.consent_text
          ? 'Thank you for signing up. If you agreed to hear from us, check your inbox: we sent you a link to confirm.'
          : 'Thank you for signing up.'),
    ],
  });

export function formPagesRouter(ctx: AppContext): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '8kb', parameterLimit: 20 });

  router.get('/forms/assets/form.css', (_req, res) => {
    res.type('text/css').setHeader('Cache-Control', 'public, max-age=3600');
    res.send(FORM_CSS);
  });

  router.get('/forms/:formId', ...formHeaders, async (req, res) => {
    const found = await publicForm(ctx.db, String(req.params.formId));
    if (!found) return void res.status(404).send(notFoundPage('assets/form.css'));
    res.send(formPage(found));
  });

  router.post('/forms/:formId', ...formHeaders, form, async (req, res) => {
    const found = await publicForm(ctx.db, String(req.params.formId));
    if (!found) return void res.status(404).send(notFoundPage('assets/form.css'));
    const waitSeconds = await consumeSubmission(ctx.db, ctx.config, req.ip ?? 'unknown', found.id);
    if (waitSeconds)
      return void res
        .status(429)
        .setHeader('Retry-After', String(waitSeconds))
        .send(
          formNoticePage({
            title: 'Too many sign-ups',
            language: found.language,
            cssHref: 'assets/form.css',
            alert: true,
            paragraphs: [
              `Too many sign-ups came from your network or for this form just now, so nothing was saved. ` +
                `Please try again in ${Math.ceil(waitSeconds / 60)} minute${waitSeconds > 60 ? 's' : ''}.`,
            ],
          }),
        );
    const body = (req.body ?? {}) as Record<string, unknown>;
    // A filled honeypot is a bot: the same thank-you page, nothing stored, nothing sent.
    if (typeof body[HONEYPOT_FIELD] === 'string' && body[HONEYPOT_FIELD] !== '')
      return void res.send(thanksPage(found));
    const read = readSubmission(found, body);
    if ('invalid' in read) return void res.status(400).send(formPage(found, read.invalid));
    try {
      const { submission } = await acceptSubmission(ctx.db, found, read.values, read.consent);
      res.send(thanksPage(found));
      if (submission.consent === 'awaiting_confirmation') await sendConfirmation(ctx, found, submission);
    } catch (err) {
      const unavailable = unavailablePage(err);
      if (!unavailable) throw err;
      res.status(unavailable.status).set(unavailable.headers).send(unavailable.page);
    }
  });

  const confirmationRoute = '/forms/:formId/confirm';
  const linkRefused = (res: Response, reason: 'invalid' | 'expired', language = 'en') =>
    res.status(reason === 'expired' ? 410 : 403).send(
      formNoticePage({
        title: reason === 'expired' ? 'This link has expired' : 'This link is not valid',
        language,
        cssHref: '../assets/form.css',
        alert: true,
        paragraphs: [
          reason === 'expired'
            ? 'This confirmation link is too old, so nothing was changed. Sign up again to get a new one.'
            : 'This confirmation link is incomplete or was changed, so nothing was changed. Use the link exactly as it appears in the email.',
        ],
      }),
    );

  router.get(confirmationRoute, ...formHeaders, async (req, res) => {
    const found = await publicForm(ctx.db, String(req.params.formId));
    if (!found) return void res.status(404).send(notFoundPage('../assets/form.css'));
    const link = checkConfirmationLink(ctx.secretBox, found.id, req.query);
    if (!link.ok) return void linkRefused(res, link.reason, found.language);
    res.send(
      confirmFormPage({
        title: 'Confirm your subscription',
        language: found.language,
        question: `Do you want to receive news from us (${found.title})?`,
        action: req.originalUrl,
      }),
    );
  });

  router.post(confirmationRoute, ...formHeaders, form, async (req, res) => {
    const found = await publicForm(ctx.db, String(req.params.formId));
    if (!found) return void res.status(404).send(notFoundPage('../assets/form.css'));
    const link = checkConfirmationLink(ctx.secretBox, found.id, req.query);
    if (!link.ok) return void linkRefused(res, link.reason, found.language);
    const outcome = await confirmSubmission(ctx, found.id, link.submissionId);
    const words = {
      confirmed: ['Subscription confirmed', 'Thank you: your subscription is confirmed.'],
      already_confirmed: ['Already confirmed', 'Your subscription was already confirmed. Nothing else to do.'],
      gone: ['Nothing to confirm', 'This sign-up no longer exists, so nothing was changed.'],
    }[outcome];
    res.status(outcome === 'gone' ? 404 : 200).send(
      formNoticePage({
        title: words[0],
        language: found.language,
        cssHref: '../assets/form.css',
        paragraphs: [words[1], 'You can close this tab.'],
      }),
    );
  });

  return router;
}
