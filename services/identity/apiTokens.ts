import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import { z } from 'zod';
import { notFound } from '../platform/errors';
import { newId } from '../../db/ids';
import { keysetPage, Page, PageQuery } from '../platform/pagination';
import { hashSecret, newSecret } from './secrets';

const TOKEN_PREFIX = 'tap_';

export interface IssuedApiToken {
  id: string;
  token: string;
}

export async function issueApiToken(
  db: Db,
  userId: string,
  name: string,
  expiresInDays?: number,
): Promise<IssuedApiToken> {
  const token = newSecret(TOKEN_PREFIX);
  const id = newId('tok');
  await db('api_tokens').insert({
    id,
    user_id: userId,
    name,
    token_hash: hashSecret(token),
    token_prefix: token.slice(0, TOKEN_PREFIX.length + 6),
    expires_at: expiresInDays ? db.raw(`now() + make_interval(days => ?)`, [expiresInDays]) : null,
  });
  return { id, token };
}

export interface ApiTokenOwner {
  tokenId: string;
  userId: string;
}

/** Whether `token` is one of our API tokens by its form (not whether it is live). */
export const isApiToken = (token: string): boolean => token.startsWith(TOKEN_PREFIX);

/** What makes an API token live, over `api_tokens`, given its hash (`?`): not revoked, not expired. */
export const LIVE_API_TOKEN = `api_tokens.token_hash = ? AND api_tokens.revoked_at IS NULL
  AND (api_tokens.expires_at IS NULL OR api_tokens.expires_at > CURRENT_TIMESTAMP)`;

/**
 * The `api_tokens` row of `token` if it is live (not revoked, not expired); null for anything
 * that is not one of our tokens. Callers join what else they need onto it.
 */
export function liveApiToken(db: Db, token: string): Knex.QueryBuilder | null {
  if (!isApiToken(token)) return null;
  return db('api_tokens').whereRaw(LIVE_API_TOKEN, [hashSecret(token)]);
}

/** The user behind a live API token, or null for an unknown, revoked or expired one. */
export async function findApiTokenOwner(db: Db, token: string): Promise<ApiTokenOwner | null> {
  const row = await liveApiToken(db, token)?.first('id', 'user_id');
  return row ? { tokenId: row.id, userId: row.user_id } : null;
}

export const apiTokenSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** The first characters of the token, to recognise it; the token itself is shown only once. */
  prefix: z.string(),
  createdAt: z.iso.datetime(),
  lastUsedAt: z.iso.datetime().nullable(),
  expiresAt: z.iso.datetime().nullable(),
  revokedAt: z.iso.datetime().nullable(),
});
export type ApiTokenJson = z.infer<typeof apiTokenSchema>;

export const apiTokenCreateSchema = z.object({
  name: z.string().trim().min(1).max(100),
  /** Days until the token stops working; omitted: it works until revoked. */
  expiresInDays: z.number().int().min(1).max(3650).optional(),
});
export type ApiTokenCreate = z.infer<typeof apiTokenCreateSchema>;

export const apiTokenCreatedSchema = apiTokenSchema.extend({ token: z.string() });

interface ApiTokenRow {
  seq: number;
  id: string;
  name: string;
  token_prefix: string;
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function presentApiToken(row: ApiTokenRow): ApiTokenJson {
  return {
    id: row.id,
    name: row.name,
    prefix: row.token_prefix,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: iso(row.last_used_at),
    expiresAt: iso(row.expires_at),
    revokedAt: iso(row.revoked_at),
  };
}

/** The caller's own tokens, revoked ones included (they say when), oldest first. */
export function listApiTokens(db: Db, userId: string, page: PageQuery): Promise<Page<ApiTokenJson>> {
  return keysetPage(db('api_tokens').where({ user_id: userId }).select('*'), page, presentApiToken);
}

export async function createApiToken(
  db: Db,
  userId: string,
  input: ApiTokenCreate,
): Promise<z.infer<typeof apiTokenCreatedSchema>> {
  const { id, token } = await issueApiToken(db, userId, input.name, input.expiresInDays);
  const row = await db('api_tokens').where({ id }).first();
  return { ...presentApiToken(row), token };
}

/**
 * Revokes one of the caller's tokens; at once, since every request looks the token up. Revoking
 * a revoked token is a no-op (the call is safe to retry); another user's token is not found.
 */
export async function revokeApiToken(db: Db, userId: string, tokenId: string): Promise<ApiTokenJson> {
  const [row] = await db('api_tokens')
    .where({ id: tokenId, user_id: userId })
    .update({ revoked_at: db.raw('coalesce(revoked_at, now())') })
    .returning('*');
  if (!row) throw notFound('API token');
  return presentApiToken(row);
}

const lastTouched = new Map<string, number>();
const TOUCH_EVERY_MS = 60_000;

/**
 * Records when a token was last used, at most once a minute per token and process, after the
 * response path (a failed write costs nothing but the timestamp).
 */
export function touchApiToken(db: Db, tokenId: string): void {
  const now = Date.now();
  if ((lastTouched.get(tokenId) ?? 0) > now - TOUCH_EVERY_MS) return;
  lastTouched.set(tokenId, now);
  if (lastTouched.size > 10_000) lastTouched.clear();
  db('api_tokens')
    .where({ id: tokenId })
    .update({ last_used_at: db.fn.now() })
    .catch(() => lastTouched.delete(tokenId));
}
