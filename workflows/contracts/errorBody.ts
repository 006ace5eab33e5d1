import { z } from 'zod';

/**
 * The spec's Error resource. It lives with the contracts because workflow results carry it (a
 * delivery's failed records) and a contract imports nothing from services/; services/platform/errors.ts
 * re-exports it.
 */
export const errorBodySchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
  }),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;
