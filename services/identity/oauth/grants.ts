import type { Knex } from 'knex';
import { z } from 'zod';
import type { Db } from '../../../db/knex';
import { newId } from '../../../db/ids';
import { canonicalScopes } from '../scopes';
import { hashSecret } from '../secrets';
import type { OAuthClient } from './clients';
import { invalidTarget } from './errors';

/** The lifetimes and identifiers of the authorization server, from configuration. */
export interface OAuthSettings {
  issuer: string;
  /** The resource identifiers (RFC 8707) this service accepts as token audiences. */
  resources: string[];
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  codeTtlSeconds: number;
}

/**
 * The audience of a token: the `resource` the client asked for, which must be one of ours and
 * within what the grant authorized. No `resource`: the grant's own (null means any of ours).
 */
/**
 * The MCP endpoint names a resource with its `agent` query (`{mcp_url}?agent=<uuid>`, from the
 * protected-resource metadata of `/mcp?agent=…`): the token is for the endpoint, the agent is
 * what the login preselects.
 */
export function agentOfResource(requested: unknown): string | undefined {
  if (typeof requested !== 'string') return undefined;
  try {
    return new URL(requested).searchParams.get('agent') ?? undefined;
  } catch {
    return undefined;
  }
}

function withoutAgent(requested: string): string {
  try {
    const url = new URL(requested);
    if ([...url.searchParams.keys()].every((k) => k === 'agent')) url.search = '';
    return url.href;
  } catch {
    return requested;
  }
}

export function resolveAudience(requested: unknown, authorized: string | null, resources: string[]): string | null {
  if (requested === undefined || requested === '') return authorized;
  if (typeof requested !== 'string') throw invalidTarget('Send one resource parameter');
  const resource = withoutAgent(requested).replace(/\/+$/, '');
  if (!resources.includes(resource))
    throw invalidTarget(`Unknown resource ${requested}; this server issues tokens for ${resources.join(', ')}`);
  if (authorized !== null && authorized !== resource)
    throw invalidTarget(`The grant was authorized for ${authorized}, not ${requested}`);
  return resource;
}

export interface NewGrant {
  clientId: string;
  userId: string | null;
  teamId: string;
  agentId: string | null;
  scope: string[];
  resource: string | null;
}

export async function createGrant(db: Db | Knex.Transaction, grant: NewGrant): Promise<string> {
  const id = newId('grt');
  await db('oauth_grants').insert({
    id,
    client_id: grant.clientId,
    user_id: grant.userId,
    team_id: grant.teamId,
    agent_id: grant.agentId,
    scope: canonicalScopes(grant.scope).join(' '),
    resource: grant.resource,
  });
  return id;
}

/** Ends a grant: every code and token issued from it stops working at once. */
export async function revokeGrant(db: Db, grantId: string, reason: string): Promise<void> {
  await db('oauth_grants')
    .where({ id: grantId })
    .whereNull('revoked_at')
    .update({ revoked_at: db.fn.now(), revoked_reason: reason });
  await db('oauth_tokens').where({ grant_id: grantId }).whereNull('revoked_at').update({ revoked_at: db.fn.now() });
}

export interface TokenToStore {
  kind: 'access' | 'refresh';
  token: string;
  scope: string[];
  resource: string | null;
  expiresAt: Date;
}

export async function storeTokens(db: Db, grantId: string, tokens: TokenToStore[]): Promise<void> {
  await db('oauth_tokens').insert(
    tokens.map((t) => ({
      token_hash: hashSecret(t.token),
      kind: t.kind,
      grant_id: grantId,
      scope: canonicalScopes(t.scope).join(' '),
      resource: t.resource,
      expires_at: t.expiresAt,
    })),
  );
}

/** The stored row of an OAuth token (either kind) with its grant, whatever its state. */
function tokenWithGrant(db: Db, token: string) {
  return db('oauth_tokens')
    .join('oauth_grants', 'oauth_grants.id', 'oauth_tokens.grant_id')
    .where('oauth_tokens.token_hash', hashSecret(token));
}

/**
 * The `oauth_tokens` row (joined to its grant) of a live access token; null for anything that is
 * not one. Callers join what else they need onto it.
 */
export function liveAccessToken(db: Db, token: string): Knex.QueryBuilder | null {
  if (!token.startsWith('oat_')) return null;
  return tokenWithGrant(db, token)
    .where('oauth_tokens.kind', 'access')
    .whereNull('oauth_tokens.revoked_at')
    .whereNull('oauth_grants.revoked_at')
    .where('oauth_tokens.expires_at', '>', db.fn.now());
}

/**
 * RFC 7009. Revoking a refresh token ends the grant (so its access tokens too); revoking an
 * access token ends that token. A token that is unknown, already revoked, or another client's
 * is left alone and the answer is the same, so the endpoint reveals nothing.
 */
export async function revokeToken(db: Db, client: OAuthClient, token: string): Promise<void> {
  const row = await tokenWithGrant(db, token)
    .where('oauth_grants.client_id', client.id)
    .first('oauth_tokens.token_hash as hash', 'oauth_tokens.kind as kind', 'oauth_grants.id as grantId');
  if (!row) return;
  if (row.kind === 'refresh') await revokeGrant(db, row.grantId, 'refresh_token_revoked');
  else
    await db('oauth_tokens')
      .where({ token_hash: row.hash })
      .whereNull('revoked_at')
      .update({ revoked_at: db.fn.now() });
}

export const introspectionSchema = z.union([
  z.object({ active: z.literal(false) }),
  z.object({
    active: z.literal(true),
    scope: z.string(),
    client_id: z.string(),
    token_type: z.enum(['access_token', 'refresh_token']),
    exp: z.number().int(),
    iat: z.number().int(),
    iss: z.string(),
    sub: z.string().optional(),
    aud: z.string().optional(),
    team: z.string(),
    agent_id: z.string().optional(),
  }),
]);
export type Introspection = z.infer<typeof introspectionSchema>;

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

/**
 * RFC 7662. A client learns about its own tokens only: any other token, and every dead one, is
 * `{ active: false }`, so the endpoint cannot be used to test stolen tokens.
 */
export async function introspectToken(
  db: Db,
  client: OAuthClient,
  token: string,
  settings: OAuthSettings,
): Promise<Introspection> {
  const row = await tokenWithGrant(db, token)
    .join('teams', 'teams.id', 'oauth_grants.team_id')
    .where('oauth_grants.client_id', client.id)
    .whereNull('oauth_tokens.revoked_at')
    .whereNull('oauth_tokens.rotated_at')
    .whereNull('oauth_grants.revoked_at')
    .where('oauth_tokens.expires_at', '>', db.fn.now())
    .first(
      'oauth_tokens.kind',
      'oauth_tokens.scope',
      'oauth_tokens.resource',
      'oauth_tokens.expires_at',
      'oauth_tokens.created_at',
      'oauth_grants.user_id',
      'oauth_grants.agent_id',
      'teams.slug',
    );
  if (!row) return { active: false };
  return {
    active: true,
    scope: row.scope,
    client_id: client.id,
    token_type: row.kind === 'access' ? 'access_token' : 'refresh_token',
    exp: seconds(row.expires_at),
    iat: seconds(row.created_at),
    iss: settings.issuer,
    ...(row.user_id ? { sub: row.user_id } : {}),
    ...(row.resource ? { aud: row.resource } : {}),
    team: row.slug,
    ...(row.agent_id ? { agent_id: row.agent_id } : {}),
  };
}
