import OAuth2Server from '@node-oauth/oauth2-server';
import cookieParser from 'cookie-parser';
import express, { NextFunction, Request, Response, Router } from 'express';
import helmet from 'helmet';
import { agentsOfUser, createAgent } from '../services/agents';
import type { AppContext } from '../services/context';
import { checkLogin } from '../services/passwords';
import {
  AuthorizeErrorPage,
  AuthorizeErrorRedirect,
  completeAuthorizationRequest,
  createAuthorizationRequest,
  loadAuthorizationRequest,
  PendingAuthorization,
  recordLogin,
  validateAuthorizationRequest,
} from '../services/oauth/authorizationRequests';
import { findClient } from '../services/oauth/clients';
import type { GrantSubject } from '../services/oauth/model';
import { newSecret } from '../services/secrets';
import { ClientView, consentPage, errorPage, loginPage } from './pages';
import { withQuery } from './oauthHttp';

const BROWSER_COOKIE = 'tap_oauth_browser';
const form = express.urlencoded({ extended: false, limit: '8kb', parameterLimit: 20 });

const expiredForm = (res: Response) =>
  res.status(403).send(errorPage('This page has expired', 'The form was not sent from this sign-in page, or it is too old. Nothing was authorized.'));

/**
 * GET /oauth/authorize and its pages: sign in, then allow or deny, then back to the client with
 * `code`, `state` and `iss` (RFC 9207). A pending request is bound to the browser by a cookie and
 * every form carries that request's CSRF token.
 */
export function authorizeEndpoints(ctx: AppContext, server: OAuth2Server, resources: string[]): Router {
  const router = Router();
  const issuer = ctx.config.publicUrl;
  const secureCookie = issuer.startsWith('https:');

  router.use('/oauth/authorize', cookieParser(), (req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  }, helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        styleSrc: ["'unsafe-inline'"],
        // The consent form ends in a redirect to the client; browsers apply form-action to it.
        formAction: ["'self'", (_req, res) => (res as Response).locals.clientOrigin ?? "'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
      },
    },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: secureCookie,
  }));

  function browserSecret(req: Request, res: Response): string {
    const existing = req.cookies?.[BROWSER_COOKIE];
    if (typeof existing === 'string' && existing.startsWith('brw_')) return existing;
    const secret = newSecret('brw_');
    res.cookie(BROWSER_COOKIE, secret, { httpOnly: true, sameSite: 'lax', secure: secureCookie, path: '/oauth/authorize', maxAge: 24 * 3600 * 1000 });
    return secret;
  }

  async function clientView(pending: PendingAuthorization, res: Response): Promise<ClientView> {
    const client = await findClient(ctx.db, pending.params.clientId);
    const redirect = new URL(pending.params.redirectUri);
    res.locals.clientOrigin = redirect.origin;
    return { name: client?.name ?? 'An application', redirectHost: redirect.host };
  }

  router.get('/oauth/authorize', async (req, res) => {
    let validated;
    try {
      validated = await validateAuthorizationRequest(ctx.db, req.query, resources);
    } catch (err) {
      if (err instanceof AuthorizeErrorPage) return res.status(400).send(errorPage('This sign-in link is not valid', err.message));
      if (err instanceof AuthorizeErrorRedirect) {
        return res.redirect(302, withQuery(err.redirectUri, { error: err.error, error_description: err.description, state: err.state, iss: issuer }));
      }
      throw err;
    }
    const pending = await createAuthorizationRequest(ctx.db, validated.params, browserSecret(req, res));
    res.send(loginPage({ requestId: pending.id, csrfToken: pending.csrfToken, client: await clientView(pending, res) }));
  });

  router.post('/oauth/authorize/login', form, async (req, res) => {
    const pending = await loadAuthorizationRequest(ctx.db, req.body?.request_id, req.cookies?.[BROWSER_COOKIE], { csrfToken: req.body?.csrf_token });
    if (!pending) return expiredForm(res);
    const client = await clientView(pending, res);
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
    if (teams.length === 0) return res.status(403).send(errorPage('No team', 'Your account is not a member of any team, so there is nothing to connect.'));
    res.status(status).send(consentPage({
      requestId: pending.id, csrfToken: pending.csrfToken, client: await clientView(pending, res), scopes: pending.params.scope,
      teams, preselectedAgent: pending.params.agent, error,
    }));
  }

  router.get('/oauth/authorize/consent', async (req, res) => {
    const pending = await loadAuthorizationRequest(ctx.db, req.query.request_id, req.cookies?.[BROWSER_COOKIE]);
    if (!pending?.userId) return expiredForm(res);
    await renderConsent(res, pending);
  });

  router.post('/oauth/authorize/consent', form, async (req, res) => {
    const pending = await loadAuthorizationRequest(ctx.db, req.body?.request_id, req.cookies?.[BROWSER_COOKIE], { csrfToken: req.body?.csrf_token });
    if (!pending?.userId) return expiredForm(res);
    const { params } = pending;
    await clientView(pending, res);
    const back = (query: Record<string, string | undefined>) => res.redirect(303, withQuery(params.redirectUri, { ...query, state: params.state, iss: issuer }));

    if (req.body.decision !== 'approve') {
      if (!(await completeAuthorizationRequest(ctx.db, pending.id))) return expiredForm(res);
      return back({ error: 'access_denied', error_description: 'The user denied access' });
    }
    const teams = await agentsOfUser(ctx.db, pending.userId);
    let teamId: string;
    let agentId: string;
    const choice = String(req.body.agent ?? 'new');
    if (choice === 'new') {
      const team = teams.find((t) => t.teamId === req.body.new_agent_team) ?? (teams.length === 1 ? teams[0] : undefined);
      const name = String(req.body.new_agent_name ?? '').trim();
      if (!team || !name || name.length > 100) return renderConsent(res, pending, 400, 'Choose a team and give the new agent a name (up to 100 characters).');
      teamId = team.teamId;
      agentId = (await createAgent(ctx.db, team.teamId, name)).uuid;
    } else {
      const [chosenTeam, chosenAgent] = choice.split(':');
      const team = teams.find((t) => t.teamId === chosenTeam && t.agents.some((a) => a.id === chosenAgent));
      if (!team) return renderConsent(res, pending, 400, 'Choose one of your agents.');
      teamId = team.teamId;
      agentId = chosenAgent;
    }
    if (!(await completeAuthorizationRequest(ctx.db, pending.id))) return expiredForm(res);

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
      return back({ error: 'server_error', error_description: 'The authorization could not be completed; start again' });
    }
    res.redirect(303, withQuery(response.get('location'), { iss: issuer }));
  });

  return router;
}
