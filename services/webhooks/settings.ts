import { z } from 'zod';
import type { Db } from '../../db/knex';
import { defaultWebhookRetryPolicy, type WebhookRetryPolicy } from '../../workflows/contracts/webhookDelivery';

/**
 * The Webhooks integration's settings of a team (docs/EVENTS.md › Retry settings): attempts in
 * all and the waits between them. A team without a row gets the defaults (10 attempts over about
 * 13 h 42 min), so endpoints made before the integration behave as they always did.
 */

export const MAX_WEBHOOK_ATTEMPTS = 25;
/** One day: a longer wait is no retry a receiver would expect. */
export const MAX_WEBHOOK_RETRY_DELAY_SECONDS = 86_400;

const maxAttemptsSchema = z.number().int().min(1).max(MAX_WEBHOOK_ATTEMPTS);
const retryDelaysSchema = z
  .array(z.number().int().min(1).max(MAX_WEBHOOK_RETRY_DELAY_SECONDS))
  .min(1)
  .max(MAX_WEBHOOK_ATTEMPTS - 1);

/** PUT: either field may be left out (it keeps its value); DELETE goes back to the defaults. */
export const webhookSettingsUpdateSchema = z
  .strictObject({
    maxAttempts: maxAttemptsSchema.optional(),
    /** Seconds before attempts 2, 3, …; shorter than the attempts: its last wait repeats. */
    retryDelaysSeconds: retryDelaysSchema.optional(),
  })
  .refine((body) => body.maxAttempts !== undefined || body.retryDelaysSeconds !== undefined, {
    message: 'name maxAttempts, retryDelaysSeconds or both',
  });
export type WebhookSettingsUpdate = z.infer<typeof webhookSettingsUpdateSchema>;

export const webhookSettingsSchema = z.object({
  maxAttempts: maxAttemptsSchema,
  retryDelaysSeconds: z.array(z.number().int()),
  /** false: no settings saved, these are the defaults. */
  custom: z.boolean(),
  updatedAt: z.iso.datetime().nullable(),
});
export type WebhookSettings = z.infer<typeof webhookSettingsSchema>;

interface SettingsRow {
  team_id: string;
  max_attempts: number;
  retry_delays_seconds: number[];
  updated_at: Date;
}

const policyOf = (row: SettingsRow): WebhookRetryPolicy => ({
  maxAttempts: row.max_attempts,
  retryDelaysSeconds: row.retry_delays_seconds,
});

export async function getWebhookSettings(db: Db, teamId: string): Promise<WebhookSettings> {
  const row: SettingsRow | undefined = await db('webhook_settings').where({ team_id: teamId }).first();
  if (!row) return { ...defaultWebhookRetryPolicy(), custom: false, updatedAt: null };
  return { ...policyOf(row), custom: true, updatedAt: row.updated_at.toISOString() };
}

/** Applies to deliveries that start from now on; those already retrying keep their schedule. */
export async function updateWebhookSettings(
  db: Db,
  teamId: string,
  update: WebhookSettingsUpdate,
  userId: string | null,
): Promise<WebhookSettings> {
  const current = await getWebhookSettings(db, teamId);
  const maxAttempts = update.maxAttempts ?? current.maxAttempts;
  const retryDelaysSeconds = update.retryDelaysSeconds ?? current.retryDelaysSeconds;
  const row = {
    team_id: teamId,
    max_attempts: maxAttempts,
    retry_delays_seconds: retryDelaysSeconds,
    updated_by: userId,
    updated_at: db.fn.now(),
  };
  await db('webhook_settings').insert(row).onConflict('team_id').merge();
  return getWebhookSettings(db, teamId);
}

/** Back to the defaults. */
export async function resetWebhookSettings(db: Db, teamId: string): Promise<WebhookSettings> {
  await db('webhook_settings').where({ team_id: teamId }).delete();
  return getWebhookSettings(db, teamId);
}

/** The policies of the teams named that have settings (the others: the defaults). */
export async function retryPoliciesOf(db: Db, teamIds: string[]): Promise<Map<string, WebhookRetryPolicy>> {
  if (!teamIds.length) return new Map();
  const rows: SettingsRow[] = await db('webhook_settings').whereIn('team_id', [...new Set(teamIds)]);
  return new Map(rows.map((row) => [row.team_id, policyOf(row)]));
}
