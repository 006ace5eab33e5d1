import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { privateWebhookUrlsAllowed } from '../../config';
import type { Db } from '../../db/knex';
import { eventTypeSchema } from '../events/outbox';
import type { AppContext } from '../platform/context';
import { notFound } from '../platform/errors';
import { keysetPage, Page, PageQuery } from '../platform/pagination';
import { checkWebhookUrl } from './urlGuard';

/** A team's outbound webhook endpoints (the spec's Webhooks integration; docs/EVENTS.md). */

const RESERVED_HEADERS = new Set([
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
  'content-type',
  'content-length',
  'host',
  'transfer-encoding',
  'connection',
]);

const headersSchema = z
  .record(
    z
      .string()
      .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/, 'not an HTTP header name')
      .refine((name) => !RESERVED_HEADERS.has(name.toLowerCase()), 'a header the platform sets itself'),
    z
      .string()
      .max(2000)
      .regex(/^[^\r\n\0]*$/, 'no line breaks in a header value'),
  )
  .refine((headers) => Object.keys(headers).length <= 20, 'at most 20 extra headers');

const secretSchema = z
  .string()
  .regex(/^whsec_[A-Za-z0-9+/]{24,}={0,2}$/, 'a Standard Webhooks secret: whsec_ and at least 18 bytes in base64');

export const webhookEndpointCreateSchema = z.strictObject({
  url: z.string().trim().min(1).max(2000),
  description: z.string().trim().max(500).optional(),
  /** Set your own; omitted: one is generated (shown in this response only). */
  secret: secretSchema.optional(),
  headers: headersSchema.optional(),
  /** The event types the endpoint receives; omitted or empty: every type. */
  eventTypes: z.array(eventTypeSchema).max(50).optional(),
  enabled: z.boolean().optional(),
});
export type WebhookEndpointCreate = z.infer<typeof webhookEndpointCreateSchema>;

export const webhookEndpointUpdateSchema = z
  .strictObject({
    url: webhookEndpointCreateSchema.shape.url,
    description: z.string().trim().max(500).nullable(),
    /** A new secret, or `"rotate"` for a generated one (shown in this response only). */
    secret: z.union([secretSchema, z.literal('rotate')]),
    headers: headersSchema,
    eventTypes: z.array(eventTypeSchema).max(50),
    enabled: z.boolean(),
  })
  .partial();
export type WebhookEndpointUpdate = z.infer<typeof webhookEndpointUpdateSchema>;

export const webhookEndpointSchema = z.object({
  id: z.string(),
  url: z.string(),
  description: z.string().nullable(),
  headers: z.record(z.string(), z.string()),
  eventTypes: z.array(z.string()),
  enabled: z.boolean(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type WebhookEndpointJson = z.infer<typeof webhookEndpointSchema>;

/** The endpoint with its signing secret: the answer of a create or a secret change only. */
export const webhookEndpointWithSecretSchema = webhookEndpointSchema.extend({ secret: z.string() });
/** The answer of a change: the secret only when it changed (a rotation shows the new one this once). */
export const webhookEndpointUpdatedSchema = webhookEndpointWithSecretSchema.partial({ secret: true });

export interface WebhookEndpointRow {
  seq: number;
  id: string;
  team_id: string;
  url: string;
  description: string | null;
  secret_encrypted: string;
  headers: Record<string, string>;
  event_types: string[];
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

export function presentEndpoint(row: WebhookEndpointRow): WebhookEndpointJson {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    headers: row.headers,
    eventTypes: row.event_types,
    enabled: row.enabled,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;
const newEndpointId = () => `whe_${randomBytes(12).toString('hex')}`;

const allowPrivate = (ctx: AppContext) => privateWebhookUrlsAllowed(ctx.config);

export async function createWebhookEndpoint(
  ctx: AppContext,
  teamId: string,
  input: WebhookEndpointCreate,
): Promise<z.infer<typeof webhookEndpointWithSecretSchema>> {
  await checkWebhookUrl(input.url, { allowPrivate: allowPrivate(ctx) });
  const secret = input.secret ?? newSecret();
  const [row] = await ctx
    .db('webhook_endpoints')
    .insert({
      id: newEndpointId(),
      team_id: teamId,
      url: input.url,
      description: input.description ?? null,
      secret_encrypted: ctx.secretBox.encrypt(secret),
      headers: JSON.stringify(input.headers ?? {}),
      event_types: [...new Set(input.eventTypes ?? [])],
      enabled: input.enabled ?? true,
    })
    .returning('*');
  return { ...presentEndpoint(row), secret };
}

export async function findEndpointRow(db: Db, teamId: string, id: string): Promise<WebhookEndpointRow> {
  // A web hook's own endpoint (hook_id set) is managed through its hook, not here.
  const row = await db('webhook_endpoints').where({ team_id: teamId, id }).whereNull('hook_id').first();
  if (!row) throw notFound('Webhook endpoint');
  return row;
}

export async function getWebhookEndpoint(db: Db, teamId: string, id: string): Promise<WebhookEndpointJson> {
  return presentEndpoint(await findEndpointRow(db, teamId, id));
}

export async function listWebhookEndpoints(
  db: Db,
  teamId: string,
  page: PageQuery,
): Promise<Page<WebhookEndpointJson>> {
  return keysetPage(db('webhook_endpoints').where({ team_id: teamId }).whereNull('hook_id'), page, presentEndpoint);
}

export async function updateWebhookEndpoint(
  ctx: AppContext,
  teamId: string,
  id: string,
  input: WebhookEndpointUpdate,
): Promise<z.infer<typeof webhookEndpointUpdatedSchema>> {
  await findEndpointRow(ctx.db, teamId, id);
  if (input.url !== undefined) await checkWebhookUrl(input.url, { allowPrivate: allowPrivate(ctx) });
  const secret = input.secret === 'rotate' ? newSecret() : input.secret;
  const changes: Record<string, unknown> = { updated_at: ctx.db.fn.now() };
  if (input.url !== undefined) changes.url = input.url;
  if (input.description !== undefined) changes.description = input.description;
  if (secret !== undefined) changes.secret_encrypted = ctx.secretBox.encrypt(secret);
  if (input.headers !== undefined) changes.headers = JSON.stringify(input.headers);
  if (input.eventTypes !== undefined) changes.event_types = [...new Set(input.eventTypes)];
  if (input.enabled !== undefined) changes.enabled = input.enabled;
  const [row] = await ctx
    .db('webhook_endpoints')
    .where({ team_id: teamId, id })
    .whereNull('hook_id')
    .update(changes)
    .returning('*');
  if (!row) throw notFound('Webhook endpoint');
  return { ...presentEndpoint(row), ...(secret !== undefined ? { secret } : {}) };
}

/** Deletes the endpoint with its deliveries and attempts; deliveries still retrying stop at their next attempt. */
export async function deleteWebhookEndpoint(db: Db, teamId: string, id: string): Promise<void> {
  const deleted = await db('webhook_endpoints').where({ team_id: teamId, id }).whereNull('hook_id').delete();
  if (!deleted) throw notFound('Webhook endpoint');
}

/** For routes: a body that is not an endpoint id of this shape is simply not found. */
export const endpointIdSchema = z.string().min(1).max(100);
