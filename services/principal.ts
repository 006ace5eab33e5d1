import { z } from 'zod';
import type { Db } from '../db/knex';
import { findApiTokenOwner, liveApiToken } from './apiTokens';
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

function bearerToken(authorization: string | undefined): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match) throw unauthorized();
  return match[1];
}

const unknownCredential = () => unauthorized('The bearer credential is unknown, expired or revoked');

export async function authenticateBearer(db: Db, authorization: string | undefined): Promise<Principal> {
  const owner = await findApiTokenOwner(db, bearerToken(authorization));
  if (!owner) throw unknownCredential();
  return apiTokenPrincipal(owner);
}

/** API tokens act with the full rights of their user. */
const apiTokenPrincipal = (owner: { tokenId: string; userId: string }): Principal => ({
  kind: 'api_token', userId: owner.userId, credentialId: owner.tokenId, scopes: ['mcp:use'],
});

/**
 * The token's user and the team named by `X-Team-Slug`, in one round trip (the hot path of every
 * team-scoped request). An unknown team answers the same 403 as a team the user is not in, so
 * slugs cannot be probed.
 */
export async function authenticateForTeam(db: Db, authorization: string | undefined, slug: string): Promise<{ principal: Principal; team: TeamRef }> {
  const row = await liveApiToken(db, bearerToken(authorization))
    ?.leftJoin('teams', 'teams.slug', db.raw('?', [slug]))
    .leftJoin('memberships', (j) => j.on('memberships.team_id', 'teams.id').andOn('memberships.user_id', 'api_tokens.user_id'))
    .first('api_tokens.id as tokenId', 'api_tokens.user_id as userId', 'memberships.team_id as teamId', 'teams.plan as plan');
  if (!row) throw unknownCredential();
  const principal = apiTokenPrincipal(row);
  if (!row.teamId) throw notAMember(slug);
  return { principal, team: { id: row.teamId, slug, plan: row.plan } };
}

const notAMember = (slug: string) => new AppError(403, 'forbidden', `You are not a member of team "${slug}"`);

export function requireAccess(principal: Principal, access: Access): void {
  if (!grants(principal.scopes, access)) {
    const needed = access === 'read' ? 'mcp:read' : 'mcp:write';
    throw new AppError(403, 'insufficient_scope', `This operation needs scope ${needed} (or mcp:use)`, {
      requiredScope: needed,
    });
  }
}
