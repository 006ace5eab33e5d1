import type { Db } from '../../db/knex';
import { findApiTokenOwner } from './apiTokens';

/**
 * The web console's session cookie: an API token of the signed-in person (people approve with API
 * tokens). Path `/`, so the OAuth sign-in sees it too: a person signed in to the console is not
 * asked for their password again when an app asks to connect.
 */
export const CONSOLE_SESSION_COOKIE = 'tap_console';

/** The user whose live console session this cookie value is, or null. */
export async function consoleSessionUser(db: Db, cookie: unknown): Promise<string | null> {
  if (typeof cookie !== 'string' || !cookie) return null;
  return (await findApiTokenOwner(db, cookie))?.userId ?? null;
}

/** The address the console's header shows for the signed-in person ('' if the account is gone). */
export async function consoleUserEmail(db: Db, userId: string): Promise<string> {
  const user: { email: string } | undefined = await db('users').where({ id: userId }).first('email');
  return user?.email ?? '';
}
