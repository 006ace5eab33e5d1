import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import type { AppContext, TeamRef } from '../services/context';
import { parseOrThrow } from '../services/errors';
import { teamSlugSchema } from '../services/teams';
import { Access, authenticateBearer, authenticateForTeam, Principal, requireAccess } from '../services/principal';

declare module 'express-serve-static-core' {
  interface Request {
    principal?: Principal;
    team?: TeamRef;
  }
}

const teamHeaderSchema = z.object({ 'x-team-slug': teamSlugSchema });

/**
 * The one authentication gate of the team API: a bearer credential, the access the operation
 * needs (reads `mcp:read`, writes `mcp:write`, `mcp:use` both), and the team of `X-Team-Slug`.
 */
export function teamAccess(ctx: AppContext, access: Access): RequestHandler {
  return async (req: Request, _res: Response, next: NextFunction) => {
    const slugHeader = teamHeaderSchema.safeParse(req.headers);
    if (!slugHeader.success) {
      // The credential is judged first: a caller without one learns nothing about the header.
      await authenticateBearer(ctx.db, req.headers.authorization);
      parseOrThrow(teamHeaderSchema, req.headers, 'header');
    }
    const { principal, team } = await authenticateForTeam(ctx.db, req.headers.authorization, slugHeader.data!['x-team-slug']);
    requireAccess(principal, access);
    req.principal = principal;
    req.team = team;
    next();
  };
}

/** The authenticated team and principal of a request that passed `teamAccess`. */
export function authOf(req: Request): { team: TeamRef; principal: Principal } {
  if (!req.team || !req.principal) throw new Error('teamAccess middleware missing on this route');
  return { team: req.team, principal: req.principal };
}
