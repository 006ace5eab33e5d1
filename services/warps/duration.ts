import { z } from 'zod';
import { durationMs } from '../../workflows/contracts/privateWarp';

export { durationMs };

/** The longest wait a warp step or a delayed send may declare. */
export const MAX_DURATION_MS = 30 * 86_400_000;

/** `"90s"`, `"10m"`, `"2h"`, `"1d"`: a whole number and one unit (s, m, h, d), at most 30 days. */
export const durationSchema = z
  .string()
  .regex(/^[1-9][0-9]{0,6}[smhd]$/, 'a duration is a whole number and a unit s, m, h or d, e.g. "10m", "2h", "1d"')
  .refine((d) => durationMs(d) <= MAX_DURATION_MS, 'at most 30 days');
