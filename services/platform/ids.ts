import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/** An opaque, random, prefixed public id such as `ct_4k2j...` (about 103 bits of randomness). */
export function newId(
  prefix:
    'ct' | 'job' | 'med' | 'kd' | 'tok' | 'seg' | 'cmp' | 'art' | 'dlv' | 'hk' | 'wx' | 'grt' | 'oar' | 'msg' | 'ord',
): string {
  const bytes = randomBytes(20);
  let out = '';
  for (const byte of bytes) out += ALPHABET[byte % 36];
  return `${prefix}_${out}`;
}
