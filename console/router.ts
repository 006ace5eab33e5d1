import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import cookieParser from 'cookie-parser';
import express, { NextFunction, Request, Response, Router } from 'express';
import helmet from 'helmet';
import { agentsOfUser, TeamAgents } from '../services/agents/agents';
import { findApiTokenOwner, issueApiToken, revokeApiToken } from '../services/identity/apiTokens';
import { CONSOLE_SESSION_COOKIE, consoleUserEmail } from '../services/identity/consoleSession';
import { checkLogin } from '../services/identity/passwords';
import type { AppContext } from '../services/platform/context';
import { AppError } from '../services/platform/errors';
import { consoleErrorPage, consolePage, consoleLoginPage, CONSOLE_PAGES } from './pages';

/** The session: an API token of the signed-in person (people approve with API tokens), in an httpOnly cookie. */
export const SESSION_COOKIE = CONSOLE_SESSION_COOKIE;
const TEAM_COOKIE = 'tap_console_team';
const LOGIN_COOKIE = 'tap_console_login';
/** A console sign-in lasts this long; signing out revokes it at once. */
const SESSION_DAYS = 7;
export const CSRF_HEADER = 'x-csrf-token';

/** The CSRF token of a session: derived from its secret, so it needs no storage and no other page can know it. */
export const csrfTokenOf = (sessionToken: string) =>
  createHash('sha256').update(`console-csrf:${sessionToken}`).digest('base64url');

function sameSecret(a: unknown, b: string): boolean {
  if (typeof a !== 'string') return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The console's pages: its own script and styles from this origin, uPlot from node_modules, and
 * calls to this origin only. No inline script, no other host, never framed.
 */
const consoleHeaders = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
    },
  },
  referrerPolicy: { policy: 'same-origin' },
  strictTransportSecurity: false,
});

/** The charting library, from node_modules; every other asset is a file of console/assets. */
const LIBRARIES: Record<string, { file: () => string; type: string }> = {
  'uplot.js': { file: () => require.resolve('uplot/dist/uPlot.iife.min.js'), type: 'application/javascript' },
  'uplot.css': { file: () => require.resolve('uplot/dist/uPlot.min.css'), type: 'text/css' },
};
const ASSETS_DIR = path.join(__dirname, 'assets');
/** What is served from console/assets: its modules and its sheet (not its types, its tsconfig or anything else). */
const ASSET_TYPES: Record<string, string> = { '.js': 'text/javascript', '.css': 'text/css' };

/** A module or sheet of console/assets named by plain path segments (none starts with a dot: no way up, no dot file). */
function assetOf(segments: string[]): { file: string; type: string } | undefined {
  const name = segments.join('/');
  if (LIBRARIES[name]) return { file: LIBRARIES[name].file(), type: LIBRARIES[name].type };
  if (!segments.length || !segments.every((s) => /^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/.test(s))) return undefined;
  const type = ASSET_TYPES[path.extname(name)];
  const file = path.join(ASSETS_DIR, ...segments);
  return type && fs.existsSync(file) && fs.statSync(file).isFile() ? { file, type } : undefined;
}

interface Session {
  token: string;
  tokenId: string;
  userId: string;
  teams: TeamAgents[];
  team: TeamAgents | undefined;
}

/**
 * The web console at /app: sign in with the account of the OAuth sign-in (same passwords, same
 * sign-in limits), then pages that call the /v1 API through /app/api with the session's API token.
 * `v1` is the same router as /v1: every rule, check and error is the API's own.
 */
export function consoleRouter(ctx: AppContext, v1: Router): Router {
  const router = Router();
  const secure = ctx.config.siteUrl.startsWith('https:');
  const form = express.urlencoded({ extended: false, limit: '8kb', parameterLimit: 20 });

  router.use('/app', cookieParser(), (_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });

  async function sessionOf(req: Request): Promise<Session | null> {
    const token = req.cookies?.[SESSION_COOKIE];
    if (typeof token !== 'string' || !token) return null;
    const owner = await findApiTokenOwner(ctx.db, token);
    if (!owner) return null;
    const teams = await agentsOfUser(ctx.db, owner.userId);
    const wanted = req.cookies?.[TEAM_COOKIE];
    const team = teams.find((t) => t.teamSlug === wanted) ?? teams[0];
    return { token, tokenId: owner.tokenId, userId: owner.userId, teams, team };
  }

  const cookieOptions = (maxAgeMs?: number) => ({
    httpOnly: true,
    sameSite: 'lax' as const,
    secure,
    path: '/app',
    ...(maxAgeMs ? { maxAge: maxAgeMs } : {}),
  });

  // The API, as the signed-in person: the cookie gives the credential, the CSRF header proves the page is ours.
  router.use(
    '/app/api',
    async (req: Request, _res: Response, next: NextFunction) => {
      const token = req.cookies?.[SESSION_COOKIE];
      if (typeof token !== 'string' || !token)
        throw new AppError('unauthorized', 'Sign in to the console first: /app/login');
      if (!sameSecret(req.headers[CSRF_HEADER], csrfTokenOf(token)))
        throw new AppError('forbidden', 'The console request is missing its CSRF token; reload the page');
      req.headers.authorization = `Bearer ${token}`;
      const slug = req.cookies?.[TEAM_COOKIE];
      if (typeof slug === 'string' && slug) req.headers['x-team-slug'] = slug;
      else {
        const session = await sessionOf(req);
        if (session?.team) req.headers['x-team-slug'] = session.team.teamSlug;
      }
      next();
    },
    v1,
  );

  router.use('/app', consoleHeaders);

  router.get('/app/assets/*name', (req, res) => {
    const asset = assetOf((req.params as { name: string[] }).name);
    if (!asset) throw new AppError('not_found', 'No such console asset');
    res.setHeader('Cache-Control', 'no-cache');
    res.type(asset.type).send(fs.readFileSync(asset.file));
  });

  const safeNext = (raw: unknown) =>
    typeof raw === 'string' && /^\/app(\/[A-Za-z0-9_\-/]*)?$/.test(raw) ? raw : '/app/approvals';

  function loginForm(res: Response, status: number, view: { next: string; email?: string; error?: string }) {
    const csrf = randomBytes(24).toString('base64url');
    res.cookie(LOGIN_COOKIE, csrf, { ...cookieOptions(3600 * 1000), path: '/app/login', sameSite: 'strict' });
    res
      .status(status)
      .type('html')
      .send(consoleLoginPage({ ...view, csrfToken: csrf }));
  }

  router.get('/app/login', async (req, res) => {
    if (await sessionOf(req)) return res.redirect(303, safeNext(req.query.next));
    loginForm(res, 200, { next: safeNext(req.query.next) });
  });

  router.post('/app/login', form, async (req, res) => {
    const next = safeNext(req.body?.next);
    if (!sameSecret(req.body?.csrf_token, String(req.cookies?.[LOGIN_COOKIE] ?? '')) || !req.cookies?.[LOGIN_COOKIE])
      return loginForm(res, 403, { next, error: 'This sign-in form has expired. Sign in again.' });
    const email = String(req.body.email ?? '').trim();
    const password = String(req.body.password ?? '');
    const address = req.ip ?? 'unknown';
    const blockedFor = await ctx.rateLimits.loginBlockedFor(email, address);
    if (blockedFor > 0) {
      res.setHeader('Retry-After', String(blockedFor));
      return loginForm(res, 429, {
        next,
        email,
        error: `Too many failed sign-ins. Try again in ${Math.ceil(blockedFor / 60)} minute(s).`,
      });
    }
    const user = email && password ? await checkLogin(ctx.db, email, password) : null;
    if (!user) {
      await ctx.rateLimits.recordLoginFailure(email, address);
      return loginForm(res, 401, { next, email, error: 'Wrong email or password.' });
    }
    await ctx.rateLimits.recordLoginSuccess(email);
    const { token } = await issueApiToken(ctx.db, user.id, 'Console sign-in (browser)', SESSION_DAYS);
    res.clearCookie(LOGIN_COOKIE, { path: '/app/login' });
    // Path `/`: the OAuth sign-in at /oauth/authorize knows this person too (services/identity/consoleSession.ts).
    res.cookie(SESSION_COOKIE, token, { ...cookieOptions(SESSION_DAYS * 24 * 3600 * 1000), path: '/' });
    res.redirect(303, next);
  });

  router.post('/app/logout', form, async (req, res) => {
    const session = await sessionOf(req);
    if (session && sameSecret(req.body?.csrf_token, csrfTokenOf(session.token)))
      await revokeApiToken(ctx.db, session.userId, session.tokenId);
    else if (session) throw new AppError('forbidden', 'The sign-out form is missing its CSRF token');
    res.clearCookie(SESSION_COOKIE, { path: '/' });
    res.redirect(303, '/app/login');
  });

  router.post('/app/team', form, async (req, res) => {
    const session = await sessionOf(req);
    if (!session) return res.redirect(303, '/app/login');
    if (!sameSecret(req.body?.csrf_token, csrfTokenOf(session.token)))
      throw new AppError('forbidden', 'The team form is missing its CSRF token');
    const team = session.teams.find((t) => t.teamSlug === req.body?.team);
    if (!team) throw new AppError('not_found', 'Team not found');
    res.cookie(TEAM_COOKIE, team.teamSlug, cookieOptions(365 * 24 * 3600 * 1000));
    res.redirect(303, safeNext(req.body?.next));
  });

  router.get('/app', (_req, res) => res.redirect(303, '/app/approvals'));

  for (const page of CONSOLE_PAGES) {
    router.get(page.path, async (req, res) => {
      const session = await sessionOf(req);
      if (!session) {
        res.clearCookie(SESSION_COOKIE, { path: '/' });
        return res.redirect(303, `/app/login?next=${encodeURIComponent(req.path)}`);
      }
      if (!session.team) throw new AppError('forbidden', 'Your account is not a member of any team');
      const email = await consoleUserEmail(ctx.db, session.userId);
      res.type('html').send(
        consolePage({
          page: page.name,
          title: page.title,
          id: (req.params as { id?: string }).id,
          csrfToken: csrfTokenOf(session.token),
          email,
          team: session.team,
          teams: session.teams,
          path: req.path,
          apiBaseUrl: ctx.config.baseUrl,
          mediaMaxBytes: ctx.config.MEDIA_MAX_BYTES,
        }),
      );
    });
  }

  // A page or form of the console that fails answers a page with the same status; the API keeps its JSON envelope.
  router.use('/app', (err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (req.originalUrl.startsWith('/app/api') || req.path.startsWith('/assets/') || !(err instanceof AppError))
      return next(err);
    for (const [name, value] of Object.entries(err.headers ?? {})) res.setHeader(name, value);
    res
      .status(err.status)
      .type('html')
      .send(consoleErrorPage({ title: err.status === 404 ? 'Not found' : 'This did not work', message: err.message }));
  });

  return router;
}
