import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import type { AppContext, TeamRef } from '../services/platform/context';
import { parseOrThrow } from '../services/platform/errors';
import { teamSlugSchema } from '../services/platform/teams';
import {
  Access,
  Audience,
  authenticateBearer,
  authenticateTeamRequest,
  Principal,
  requireAccess,
  requireUser,
} from '../services/identity/principal';
import { requirePlatformAdmin } from '../services/identity/platformAdmins';
import { RateDecision, rateLimitHeaders } from '../services/platform/rateLimits';

declare module 'express-serve-static-core' {
  interface Request {
    principal?: Principal;
    team?: TeamRef;
  }
}

const teamHeaderSchema = z.object({ 'x-team-slug': teamSlugSchema });

/** The HTTP API as an OAuth protected resource: tokens must be for {base_url} (or for any of ours). */
export function apiAudience(ctx: AppContext): Audience {
  return {
    resource: ctx.config.baseUrl,
    resourceMetadataUrl: `${ctx.config.authUrl}/.well-known/oauth-protected-resource${new URL(ctx.config.baseUrl).pathname}`,
  };
}

export function sendRateHeaders(res: Response, decision: RateDecision): void {
  for (const [name, value] of Object.entries(rateLimitHeaders(decision))) res.setHeader(name, value);
}

/**
 * The one gate of the team API: a bearer credential (API token or OAuth access token), the
 * access the operation needs (reads `mcp:read`, writes `mcp:write`, `mcp:use` both), the team
 * (`X-Team-Slug`, which an OAuth token may leave out: it names its team itself), and the team's
 * request quota.
 */
export function teamAccess(ctx: AppContext, access: Access): RequestHandler {
  const audience = apiAudience(ctx);
  return async (req: Request, res: Response, next: NextFunction) => {
    const slugHeader = teamHeaderSchema.safeParse(req.headers);
    if (!slugHeader.success && req.headers['x-team-slug'] !== undefined) {
      // The credential is judged first: a caller without one learns nothing about the header.
      await authenticateBearer(ctx.db, req.headers.authorization, audience);
      parseOrThrow(teamHeaderSchema, req.headers, 'header');
    }
    const { principal, team, rate } = await authenticateTeamRequest(
      ctx.db,
      ctx.rateLimits,
      req.headers.authorization,
      slugHeader.data?.['x-team-slug'],
      audience,
    );
    sendRateHeaders(res, rate);
    requireAccess(principal, access);
    req.principal = principal;
    req.team = team;
    next();
  };
}

/** The gate of a user's own resources (their API tokens): a user's credential, no team. */
export function userAccess(ctx: AppContext, access: Access): RequestHandler {
  const audience = apiAudience(ctx);
  return async (req: Request, res: Response, next: NextFunction) => {
    const principal = await authenticateBearer(ctx.db, req.headers.authorization, audience);
    const userId = requireUser(principal);
    sendRateHeaders(res, await ctx.rateLimits.consumeApiRequest({ id: `user:${userId}`, plan: 'free' }));
    requireAccess(principal, access);
    req.principal = principal;
    next();
  };
}

/**
 * The gate of platform administration (`/v1/admin/*`): a platform operator's API token, no team.
 * Anyone else, team owners included, gets 403 whatever the path names, so nothing is probed.
 */
export function platformAdminAccess(ctx: AppContext): RequestHandler {
  const audience = apiAudience(ctx);
  return async (req: Request, res: Response, next: NextFunction) => {
    const principal = await authenticateBearer(ctx.db, req.headers.authorization, audience);
    const userId = requireUser(principal);
    sendRateHeaders(res, await ctx.rateLimits.consumeApiRequest({ id: `user:${userId}`, plan: 'free' }));
    await requirePlatformAdmin(ctx.db, principal);
    req.principal = principal;
    next();
  };
}

/** The authenticated team and principal of a request that passed `teamAccess`. */
export function authOf(req: Request): { team: TeamRef; principal: Principal } {
  if (!req.team || !req.principal) throw new Error('teamAccess middleware missing on this route');
  return { team: req.team, principal: req.principal };
}

/** The user of a request that passed `userAccess`. */
export function userOf(req: Request): string {
  if (!req.principal?.userId) throw new Error('userAccess middleware missing on this route');
  return req.principal.userId;
}
