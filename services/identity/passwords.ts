import { randomBytes, scrypt, ScryptOptions, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { Knex } from 'knex';
import type { Db } from '../../db/knex';

const SCRYPT: ScryptOptions & { N: number; r: number; p: number } = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_LENGTH = 32;

export const passwordSchema = z.string().min(10, 'at least 10 characters').max(200);

function derive(password: string, salt: Buffer, opts: typeof SCRYPT): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, opts, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** `scrypt$N$r$p$salt$key`: the parameters travel with the hash so they can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, SCRYPT);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const parts = (stored ?? '').split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') {
    // Same work as a real check, so a missing account is not told apart by timing.
    await derive(password, randomBytes(16), SCRYPT);
    return false;
  }
  const [, n, r, p, salt, key] = parts;
  const expected = Buffer.from(key, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: SCRYPT.maxmem,
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

export async function setUserPassword(db: Db | Knex.Transaction, userId: string, password: string): Promise<void> {
  await db('users')
    .where({ id: userId })
    .update({ password_hash: await hashPassword(passwordSchema.parse(password)) });
}

/** The user with this email and password, or null (unknown email and wrong password look alike). */
export async function checkLogin(
  db: Db,
  email: string,
  password: string,
): Promise<{ id: string; email: string; name: string } | null> {
  const user = await db('users')
    .whereRaw('lower(email) = lower(?)', [email])
    .first('id', 'email', 'name', 'password_hash');
  const ok = await verifyPassword(password, user?.password_hash);
  return ok && user ? { id: user.id, email: user.email, name: user.name } : null;
}
