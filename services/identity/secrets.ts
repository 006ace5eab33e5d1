import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Every credential this service issues is a random string with a prefix that says what it is
 * (`tap_` API token, `oat_` OAuth access token, `ort_` refresh token, `oac_` authorization code,
 * `ocs_` client secret), so a leaked one can be recognised by secret scanners and by us.
 */
export type SecretPrefix = 'tap_' | 'oat_' | 'ort_' | 'oac_' | 'ocs_' | 'cli_' | 'oar_' | 'brw_' | 'csrf_';

/** 256 random bits, base64url, after the prefix. */
export function newSecret(prefix: SecretPrefix): string {
  return prefix + randomBytes(32).toString('base64url');
}

/** Secrets carry 256 random bits, so a fast hash is enough; only the hash is ever stored. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Constant-time comparison of two strings (lengths may differ). */
export function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
