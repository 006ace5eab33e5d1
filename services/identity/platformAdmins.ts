import type { Db } from '../../db/knex';
import { issueApiToken } from './apiTokens';
import { AppError } from '../platform/errors';
import type { Principal } from './principal';

/**
 * Platform operators are users marked by the CLI (`grant-admin`), which only someone with the
 * database can run. They act through their own API tokens: a person, revocable one token at a
 * time, and no secret shared between operators.
 */
export async function grantPlatformAdmin(
  db: Db,
  email: string,
): Promise<{ email: string; adminSince: string; token: string }> {
  return db.transaction(async (trx) => {
    await trx.raw('INSERT INTO users (email, name) VALUES (?, ?) ON CONFLICT ((lower(email))) DO NOTHING', [
      email,
      email.split('@')[0],
    ]);
    const [user] = await trx('users')
      .whereRaw('lower(email) = lower(?)', [email])
      .update({ platform_admin_since: trx.raw('coalesce(platform_admin_since, now())') })
      .returning(['id', 'email', 'platform_admin_since']);
    // Tokens are shown once, so each run issues a fresh one (as bootstrap does).
    const { token } = await issueApiToken(trx, user.id, 'platform-admin');
    return { email: user.email, adminSince: user.platform_admin_since.toISOString(), token };
  });
}

/** Unmarks an operator; their API tokens stay valid for their teams. False when no such user exists. */
export async function revokePlatformAdmin(db: Db, email: string): Promise<boolean> {
  const updated = await db('users').whereRaw('lower(email) = lower(?)', [email]).update({ platform_admin_since: null });
  return updated > 0;
}

/**
 * Only an operator's API token passes. An OAuth token is refused even when its user is an
 * operator: it was delegated to a client (an MCP host, an agent) for one team, not for the platform.
 */
export async function requirePlatformAdmin(db: Db, principal: Principal): Promise<void> {
  const admin =
    principal.kind === 'api_token'
      ? await db('users').where({ id: principal.userId }).whereNotNull('platform_admin_since').first('id')
      : undefined;
  if (!admin)
    throw new AppError(
      'forbidden',
      "This needs a platform operator's API token (see `npm run cli -- grant-admin`); team owners cannot change plans",
    );
}
