import type { RequestHandler } from 'express';
import helmet from 'helmet';
import { noticePage } from '../auth/pages';
import { AppError } from '../services/platform/errors';

/**
 * Headers of a page reached from a link in a message (approval, unsubscribe): nothing but its own
 * form and inline style runs, it is never framed, its signed address leaves no referrer, and
 * no cache keeps the address or name it shows.
 */
export const linkPageHeaders: RequestHandler[] = [
  helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        styleSrc: ["'unsafe-inline'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    referrerPolicy: { policy: 'no-referrer' },
  }),
  (_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  },
];

/**
 * A person who clicked a button gets a page, not the API's JSON envelope, when a dependency is
 * down: the same status and `Retry-After`, in words. Anything else is thrown on.
 */
export function unavailablePage(
  err: unknown,
): { status: number; headers: Record<string, string>; page: string } | null {
  if (!(err instanceof AppError) || err.status !== 503) return null;
  return {
    status: 503,
    headers: err.headers ?? {},
    page: noticePage({
      title: 'Please try again in a moment',
      paragraphs: ['The service is busy or restarting, so nothing was changed. Reload this page in a few seconds.'],
      kind: 'error',
    }),
  };
}
