import { z } from 'zod';
import { artifactTypeSchema } from '../deliveries/artifacts';

/**
 * A team's place and settings (docs/API.md › Team admin). The spec names the tools but not their
 * fields; these are ours. Both are stored as JSON on the team row and patched with JSON merge
 * patch semantics: a field given replaces, `null` removes, a field left out stays.
 */

const IANA_ZONES = new Set(Intl.supportedValuesOf('timeZone'));

const timezoneSchema = z
  .string()
  .max(64)
  .refine((zone) => zone === 'UTC' || IANA_ZONES.has(zone), 'an IANA time zone such as "Europe/Amsterdam"')
  .describe('IANA time zone, e.g. "Europe/Amsterdam"');

/** A BCP 47 tag, stored in its canonical form ("en-gb" → "en-GB"). */
const localeSchema = z
  .string()
  .max(35)
  .transform((tag, ctx) => {
    try {
      return Intl.getCanonicalLocales(tag)[0];
    } catch {
      ctx.addIssue({ code: 'custom', message: 'a BCP 47 language tag such as "en-GB" or "nl"' });
      return z.NEVER;
    }
  })
  .describe('BCP 47 language tag, e.g. "en-GB"');

const line = (max: number) => z.string().trim().min(1).max(max);

export const addressSchema = z.strictObject({
  line1: line(200).nullable().optional(),
  line2: line(200).nullable().optional(),
  city: line(100).nullable().optional(),
  region: line(100).nullable().optional(),
  postalCode: line(20).nullable().optional(),
  country: z
    .string()
    .regex(/^[A-Z]{2}$/, 'an ISO 3166-1 alpha-2 code such as "NL"')
    .nullable()
    .optional()
    .describe('ISO 3166-1 alpha-2, e.g. "NL"'),
});

/** `update_team_place` / `PATCH /team/place`: where the team is, in which language, in which time zone. */
export const placePatchSchema = z.strictObject({
  address: addressSchema.nullable().optional().describe('Postal address; null removes it'),
  locale: localeSchema.nullable().optional(),
  timezone: timezoneSchema.nullable().optional(),
});
export type PlacePatch = z.infer<typeof placePatchSchema>;

export const placeSchema = z.object({
  address: z
    .object({
      line1: z.string().optional(),
      line2: z.string().optional(),
      city: z.string().optional(),
      region: z.string().optional(),
      postalCode: z.string().optional(),
      country: z.string().optional(),
    })
    .optional(),
  locale: z.string().optional(),
  timezone: z.string().optional(),
});
export type Place = z.infer<typeof placeSchema>;

const hexColor = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'a colour as #rrggbb');

/**
 * `update_team_settings` / `PATCH /team/settings`. `studio.*` is read by studio_export; `brand.*`
 * is kept for the product's surfaces (the backend stores and validates it).
 */
export const settingsPatchSchema = z.strictObject({
  brand: z
    .strictObject({
      color: hexColor.nullable().optional().describe('The brand colour, #rrggbb'),
      logoMediaId: z.string().min(1).max(100).nullable().optional().describe('A media id of the team (media_upload)'),
    })
    .nullable()
    .optional(),
  studio: z
    .strictObject({
      artifactType: artifactTypeSchema
        .nullable()
        .optional()
        .describe('The type of the artifact studio_export creates (default "other")'),
      artifactStatus: z
        .enum(['draft', 'ready'])
        .nullable()
        .optional()
        .describe('The status of the artifact studio_export creates (default "draft")'),
    })
    .nullable()
    .optional(),
  rooms: z
    .strictObject({
      eventRetentionHours: z
        .number()
        .int()
        .min(24)
        .max(24 * 3650)
        .nullable()
        .optional()
        .describe(
          "How long the rooms' stream events are kept, in hours (at least 24; default ROOM_EVENT_RETENTION_HOURS)",
        ),
    })
    .nullable()
    .optional(),
});
export type SettingsPatch = z.infer<typeof settingsPatchSchema>;

export const settingsSchema = z.object({
  brand: z.object({ color: z.string().optional(), logoMediaId: z.string().optional() }).optional(),
  studio: z
    .object({ artifactType: artifactTypeSchema.optional(), artifactStatus: z.enum(['draft', 'ready']).optional() })
    .optional(),
  rooms: z.object({ eventRetentionHours: z.number().int().optional() }).optional(),
});
export type Settings = z.infer<typeof settingsSchema>;

/** RFC 7386 JSON merge patch: objects merge member by member, null removes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!patch || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const base: Record<string, unknown> =
    target && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null) delete base[key];
    else base[key] = mergePatch(base[key], value);
  }
  // An object left empty says nothing: drop it, so "removed" reads the same as "never set".
  for (const [key, value] of Object.entries(base))
    if (value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0)
      delete base[key];
  return base;
}
