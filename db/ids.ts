import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/** An opaque, random, prefixed public id such as `ct_4k2j...` (about 103 bits of randomness). */
export function newId(
  prefix:
    | 'ct'
    | 'job'
    | 'med'
    | 'kd'
    | 'tok'
    | 'seg'
    | 'cmp'
    | 'art'
    | 'dlv'
    | 'hk'
    | 'wx'
    | 'grt'
    | 'oar'
    | 'msg'
    | 'ord'
    | 'rm'
    | 'rk'
    | 'mem'
    | 'skl'
    | 'ss'
    | 'pa'
    | 'pay'
    | 'au'
    | 'enr'
    | 'frm'
    | 'fsb'
    | 'inm'
    | 'prd',
): string {
  return newIds(prefix, 1)[0];
}

/**
 * `count` ids that sort by creation time (a base-36 millisecond clock, then about 57 random bits):
 * for rows written in bulk (outbound messages), whose primary key index then grows at its right
 * edge instead of taking a random leaf page per row once it outgrows Postgres's buffers. As long
 * as `newId`'s: the clock takes 9 of its 20 characters.
 */
export function newTimeOrderedIds(prefix: Parameters<typeof newId>[0], count: number): string[] {
  const head = `${prefix}_${Date.now().toString(36).padStart(9, '0')}`;
  return randomTails(head, count, 11);
}

/**
 * `count` strings of `head` and `length` random characters of ALPHABET, from one buffer of
 * randomness written over with the characters: one string allocated an id.
 */
function randomTails(head: string, count: number, length: number): string[] {
  const chars = randomBytes(length * count);
  for (let i = 0; i < chars.length; i++) chars[i] = ALPHABET_CODES[chars[i] % 36];
  const ids: string[] = new Array(count);
  for (let i = 0; i < count; i++) ids[i] = head + chars.toString('latin1', i * length, (i + 1) * length);
  return ids;
}

const ALPHABET_CODES = Buffer.from(ALPHABET, 'latin1');

/** `count` ids at once: one call for the randomness of all of them (a bulk send records hundreds a statement). */
export function newIds(prefix: Parameters<typeof newId>[0], count: number): string[] {
  return randomTails(`${prefix}_`, count, 20);
}

/**
 * The warp execution id of a run that has its own key (a hook run, an automation step, a job):
 * the same key makes the same id, so a retry of that run finds the execution the first attempt
 * opened instead of running the warp a second time.
 */
export function executionIdFor(runKey: string): string {
  return `wx_${createHash('sha256').update(`execution\n${runKey}`).digest('hex').slice(0, 32)}`;
}
