import { z } from 'zod';
import type { Db } from '../db/knex';
import { findApiTokenOwner } from './apiTokens';
import { AppError } from './errors';
import type { TeamRef } from './context';

export const scopeSchema = z.enum(['mcp:read', 'mcp:write', 'mcp:use']);
export type Scope = z.infer<typeof scopeSchema>;

/** Who is calling. API tokens act with the full rights of their user; OAuth tokens add narrower scopes. */
export interface Principal {
  kind: 'api_token';
  userId: string;
  credentialId: string;
  scopes: Scope[];
}

export type Access = 'read' | 'write';

/** `mcp:use` implies both `mcp:read` and `mcp:write`. */
export function grants(scopes: Scope[], access: Access): boolean {
  return scopes.includes('mcp:use') || scopes.includes(access === 'read' ? 'mcp:read' : 'mcp:write');
}

export const unauthorized = (message = 'A valid bearer credential is required') =>
  new AppError(401, 'unauthorized', message, undefined, { 'WWW-Authenticate': 'Bearer realm="team-agent-platform"' });

export async function authenticateBearer(db: Db, authorization: string | undefined): Promise<Principal> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match) throw unauthorized();
  const owner = await findApiTokenOwner(db, match[1]);
  if (!owner) throw unauthorized('The bearer credential is unknown, expired or revoked');
  return { kind: 'api_token', userId: owner.userId, credentialId: owner.tokenId, scopes: ['mcp:use'] };
}

/**
 * The team named by `X-Team-Slug`, if the principal's user is a member. An unknown team answers
 * the same 403 as a team the user is not in, so slugs cannot be probed.
 */
export async function resolveTeam(db: Db, principal: Principal, slug: string): Promise<TeamRef> {
  const team = await db('teams')
    .join('memberships', 'memberships.team_id', 'teams.id')
    .where({ 'teams.slug': slug, 'memberships.user_id': principal.userId })
    .first('teams.id', 'teams.slug', 'teams.plan');
  if (!team) throw new AppError(403, 'forbidden', `You are not a member of team "${slug}"`);
  return team;
}

export function requireAccess(principal: Principal, access: Access): void {
  if (!grants(principal.scopes, access)) {
    const needed = access === 'read' ? 'mcp:read' : 'mcp:write';
    throw new AppError(403, 'insufficient_scope', `This operation needs scope ${needed} (or mcp:use)`, {
      requiredScope: needed,
    });
  }
}
