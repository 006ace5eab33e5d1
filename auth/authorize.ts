import OAuth2Server from '@node-oauth/oauth2-server';
import cookieParser from 'cookie-parser';
import express, { NextFunction, Request, Response, Router } from 'express';
import helmet from 'helmet';
import { agentsOfUser, createAgent } from '../services/agents/agents';
import type { AppContext } from '../services/platform/context';
import { checkLogin } from '../services/identity/passwords';
import { CONSOLE_SESSION_COOKIE, consoleSessionUser } from '../services/identity/consoleSession';
import {
  AuthorizeErrorPage,
  AuthorizeErrorRedirect,
  completeAuthorizationRequest,
  createAuthorizationRequest,
  findAnsweredAuthorizationRequest,
  loadAuthorizationRequest,
  PendingAuthorization,
  recordLogin,
  validateAuthorizationRequest,
} from '../services/identity/oauth/authorizationRequests';
import { findClient } from '../services/identity/oauth/clients';
import type { GrantSubject } from '../services/identity/oauth/model';
import { newSecret } from '../services/identity/secrets';
import { alreadyAnsweredPage, ClientView, consentPage, errorPage, loginPage } from './pages';
import { withQuery } from './oauthHttp';

const BROWSER_COOKIE = 'tap_oauth_browser';
const form = express.urlencoded({ extended: false, limit: '8kb', parameterLimit: 20 });

const expiredForm = (res: Response) =>
  res
    .status(403)
    .send(
      errorPage(
        'This page has expired',
        'The form was not sent from this sign-in page, or it is too old. Nothing was authorized.',
      ),
    );

/**
 * The CSP source for where a form's redirect may go: the origin of an http(s) redirect URI
 * (loopback ports included; see below for IPv6), or the bare scheme (`cursor:`) of a native app's private-use URI,
 * whose origin is opaque and cannot be named any other way.
 */
export function formActionSource(redirectUri: string): string | null {
  let url: URL;
  try {
    url = new URL(redirectUri);
  } catch {
    return null;
  }
  if (url.protocol === 'http:' || url.protocol === 'https:') {
    // Chromium ignores an IPv6 literal in a source ("invalid source"); a wildcard host on the
    // redirect's port is the narrowest source it matches for http://[::1]:<port> (RFC 8252 loopback).
    if (url.hostname.startsWith('[')) return `${url.protocol}//*:${url.port || (url.protocol === 'https:' ? 443 : 80)}`;
    return url.origin;
  }
  return /^[a-z][a-z0-9+.-]*:$/.test(url.protocol) ? url.protocol : null;
}

/** The authorization pages' CSP; `clientRedirectUri` lets their forms end at that client and nowhere else. */
export function authorizationPagePolicy(clientRedirectUri?: string): string {
  const clientSource = clientRedirectUri ? formActionSource(clientRedirectUri) : null;
  return [
    "default-src 'none'",
    "style-src 'unsafe-inline'",
    `form-action 'self'${clientSource ? ` ${clientSource}` : ''}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/**
 * GET /oauth/authorize and its pages: sign in, then allow or deny, then back to the client with
 * `code`, `state` and `iss` (RFC 9207). A pending request is bound to the browser by a cookie and
 * every form carries that request's CSRF token.
 */
export function authorizeEndpoints(ctx: AppContext, server: OAuth2Server, resources: string[]): Router {
  const router = Router();
  const issuer = ctx.config.authUrl;
  const secureCookie = issuer.startsWith('https:');

  router.use(
    '/oauth/authorize',
    cookieParser(),
    (req: Request, res: Response, next: NextFunction) => {
      res.setHeader('Cache-Control', 'no-store');
      // Until a page knows its client, its forms may only post here.
      res.setHeader('Content-Security-Policy', authorizationPagePolicy());
      next();
    },
    helmet({
      // Set above and by `renderConsent`: helmet computes its directives before the handler knows the client.
      contentSecurityPolicy: false,
      referrerPolicy: { policy: 'no-referrer' },
      strictTransportSecurity: secureCookie,
    }),
  );

  function browserSecret(req: Request, res: Response): string {
    const existing = req.cookies?.[BROWSER_COOKIE];
    if (typeof existing === 'string' && existing.startsWith('brw_')) return existing;
    const secret = newSecret('brw_');
    res.cookie(BROWSER_COOKIE, secret, {
      httpOnly: true,
      sameSite: 'lax',
      secure: secureCookie,
      path: '/oauth/authorize',
      maxAge: 24 * 3600 * 1000,
    });
    return secret;
  }

  async function clientView(pending: PendingAuthorization): Promise<ClientView> {
    return describeClient(pending.params.clientId, pending.params.redirectUri);
  }

  async function describeClient(clientId: string, redirectUri: string): Promise<ClientView> {
    const client = await findClient(ctx.db, clientId);
    const redirect = new URL(redirectUri);
    return { name: client?.name ?? 'An application', redirectHost: redirect.host || redirect.protocol };
  }

  /**
   * The answer to a form of a request this browser already answered (a second click, the back
   * button, a second tab): say so plainly instead of "expired". Nothing is issued again, because
   * a code is single use and the client may already hold one.
   */
  async function alreadyAnswered(req: Request, res: Response, requestId: unknown): Promise<boolean> {
    const answered = await findAnsweredAuthorizationRequest(ctx.db, requestId, req.cookies?.[BROWSER_COOKIE]);
    if (!answered) return false;
    res.status(409).send(alreadyAnsweredPage(await describeClient(answered.clientId, answered.redirectUri)));
    return true;
  }

  router.get('/oauth/authorize', async (req, res) => {
    let validated;
    try {
      validated = await validateAuthorizationRequest(ctx.db, req.query, resources);
    } catch (err) {
      if (err instanceof AuthorizeErrorPage)
        return res.status(400).send(errorPage('This sign-in link is not valid', err.message));
      if (err instanceof AuthorizeErrorRedirect) {
        return res.redirect(
          302,
          withQuery(err.redirectUri, {
            error: err.error,
            error_description: err.description,
            state: err.state,
            iss: issuer,
          }),
        );
      }
      throw err;
    }
    const pending = await createAuthorizationRequest(ctx.db, validated.params, browserSecret(req, res));
    // Signed in to the web console: the same person, no second password; the consent page still asks.
    const consoleUser = await consoleSessionUser(ctx.db, req.cookies?.[CONSOLE_SESSION_COOKIE]);
    if (consoleUser) {
      await recordLogin(ctx.db, pending.id, consoleUser);
      return res.redirect(303, `/oauth/authorize/consent?request_id=${encodeURIComponent(pending.id)}`);
    }
    res.send(loginPage({ requestId: pending.id, csrfToken: pending.csrfToken, client: await clientView(pending) }));
  });

  router.post('/oauth/authorize/login', form, async (req, res) => {
    const pending = await loadAuthorizationRequest(ctx.db, req.body?.request_id, req.cookies?.[BROWSER_COOKIE], {
      csrfToken: req.body?.csrf_token,
    });
    if (!pending) {
      if (await alreadyAnswered(req, res, req.body?.request_id)) return;
      return expiredForm(res);
    }
    const client = await clientView(pending);
    const email = String(req.body.email ?? '').trim();
    const password = String(req.body.password ?? '');
    const address = req.ip ?? 'unknown';
    const page = (status: number, error: string) =>
      res.status(status).send(loginPage({ requestId: pending.id, csrfToken: pending.csrfToken, client, email, error }));

    const blockedFor = await ctx.rateLimits.loginBlockedFor(email, address);
    if (blockedFor > 0) {
      res.setHeader('Retry-After', String(blockedFor));
      return page(429, `Too many failed sign-ins. Try again in ${Math.ceil(blockedFor / 60)} minute(s).`);
    }
    const user = email && password ? await checkLogin(ctx.db, email, password) : null;
    if (!user) {
      await ctx.rateLimits.recordLoginFailure(email, address);
      return page(401, 'Wrong email or password.');
    }
    await ctx.rateLimits.recordLoginSuccess(email);
    await recordLogin(ctx.db, pending.id, user.id);
    res.redirect(303, `/oauth/authorize/consent?request_id=${encodeURIComponent(pending.id)}`);
  });

  async function renderConsent(res: Response, pending: PendingAuthorization, status = 200, error?: string) {
    const teams = await agentsOfUser(ctx.db, pending.userId!);
    if (teams.length === 0)
      return res
        .status(403)
        .send(errorPage('No team', 'Your account is not a member of any team, so there is nothing to connect.'));
    // Allow and Deny both end in a redirect to the client, and browsers apply form-action to it.
    res.setHeader('Content-Security-Policy', authorizationPagePolicy(pending.params.redirectUri));
    res.status(status).send(
      consentPage({
        requestId: pending.id,
        csrfToken: pending.csrfToken,
        client: await clientView(pending),
        scopes: pending.params.scope,
        teams,
        preselectedAgent: pending.params.agent,
        error,
      }),
    );
  }

  router.get('/oauth/authorize/consent', async (req, res) => {
    const pending = await loadAuthorizationRequest(ctx.db, req.query.request_id, req.cookies?.[BROWSER_COOKIE]);
    if (!pending?.userId) {
      if (await alreadyAnswered(req, res, req.query.request_id)) return;
      return expiredForm(res);
    }
    await renderConsent(res, pending);
  });

  router.post('/oauth/authorize/consent', form, async (req, res) => {
    const pending = await loadAuthorizationRequest(ctx.db, req.body?.request_id, req.cookies?.[BROWSER_COOKIE], {
      csrfToken: req.body?.csrf_token,
    });
    if (!pending?.userId) {
      if (await alreadyAnswered(req, res, req.body?.request_id)) return;
      return expiredForm(res);
    }
    const { params } = pending;
    const back = (query: Record<string, string | undefined>) =>
      res.redirect(303, withQuery(params.redirectUri, { ...query, state: params.state, iss: issuer }));

    if (req.body.decision !== 'approve') {
      if (!(await completeAuthorizationRequest(ctx.db, pending.id)))
        return (await alreadyAnswered(req, res, pending.id)) || expiredForm(res);
      return back({ error: 'access_denied', error_description: 'The user denied access' });
    }
    const teams = await agentsOfUser(ctx.db, pending.userId);
    let teamId: string;
    let agentId: string;
    const choice = String(req.body.agent ?? 'new');
    if (choice === 'new') {
      const team =
        teams.find((t) => t.teamId === req.body.new_agent_team) ?? (teams.length === 1 ? teams[0] : undefined);
      const name = String(req.body.new_agent_name ?? '').trim();
      if (!team || !name || name.length > 100)
        return renderConsent(res, pending, 400, 'Choose a team and give the new agent a name (up to 100 characters).');
      teamId = team.teamId;
      agentId = (await createAgent(ctx.db, team.teamId, name)).uuid;
    } else {
      const [chosenTeam, chosenAgent] = choice.split(':');
      const team = teams.find((t) => t.teamId === chosenTeam && t.agents.some((a) => a.id === chosenAgent));
      if (!team) return renderConsent(res, pending, 400, 'Choose one of your agents.');
      teamId = team.teamId;
      agentId = chosenAgent;
    }
    if (!(await completeAuthorizationRequest(ctx.db, pending.id)))
      return (await alreadyAnswered(req, res, pending.id)) || expiredForm(res);

    const subject: GrantSubject = { id: pending.userId, teamId, agentId, resource: params.resource };
    const request = new OAuth2Server.Request({
      method: 'POST',
      headers: {},
      query: {},
      body: {
        response_type: 'code',
        client_id: params.clientId,
        redirect_uri: params.redirectUri,
        scope: params.scope.join(' '),
        state: params.state,
        code_challenge: params.codeChallenge,
        code_challenge_method: params.codeChallengeMethod,
      },
    });
    const response = new OAuth2Server.Response({ headers: {} });
    try {
      await server.authorize(request, response, { authenticateHandler: { handle: async () => subject } });
    } catch (err) {
      // Everything the client could get wrong was checked before login; what is left is ours.
      req.log?.error({ err }, 'issuing the authorization code failed');
      return back({
        error: 'server_error',
        error_description: 'The authorization could not be completed; start again',
      });
    }
    res.redirect(303, withQuery(response.get('location'), { iss: issuer }));
  });

  return router;
}
