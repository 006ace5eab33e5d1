import { createHash, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { Db } from '../db/knex';
import { newId } from './ids';

const TOKEN_PREFIX = 'tap_';

/** Tokens carry 256 random bits, so a fast hash is enough; only the hash is stored. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export interface IssuedApiToken {
  id: string;
  token: string;
}

export async function issueApiToken(db: Db, userId: string, name: string): Promise<IssuedApiToken> {
  const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const id = newId('tok');
  await db('api_tokens').insert({
    id,
    user_id: userId,
    name,
    token_hash: hashToken(token),
    token_prefix: token.slice(0, TOKEN_PREFIX.length + 6),
  });
  return { id, token };
}

export interface ApiTokenOwner {
  tokenId: string;
  userId: string;
}

/**
 * The `api_tokens` row of `token` if it is live (not revoked, not expired); null for anything
 * that is not one of our tokens. Callers join what else they need onto it.
 */
export function liveApiToken(db: Db, token: string): Knex.QueryBuilder | null {
  if (!token.startsWith(TOKEN_PREFIX)) return null;
  return db('api_tokens')
    .where('api_tokens.token_hash', hashToken(token))
    .whereNull('api_tokens.revoked_at')
    .where((q) => q.whereNull('api_tokens.expires_at').orWhere('api_tokens.expires_at', '>', db.fn.now()));
}

/** The user behind a live API token, or null for an unknown, revoked or expired one. */
export async function findApiTokenOwner(db: Db, token: string): Promise<ApiTokenOwner | null> {
  const row = await liveApiToken(db, token)?.first('id', 'user_id');
  return row ? { tokenId: row.id, userId: row.user_id } : null;
}
