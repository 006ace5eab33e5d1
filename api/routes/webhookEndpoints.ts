import { z } from 'zod';
import type { AppContext } from '../../services/platform/context';
import { pageQuerySchema, pageSchema } from '../../services/platform/pagination';
import {
  deliveryListQuerySchema,
  listWebhookAttempts,
  listWebhookDeliveries,
  webhookAttemptSchema,
  webhookDeliverySchema,
} from '../../services/webhooks/deliveries';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookEndpoints,
  updateWebhookEndpoint,
  webhookEndpointCreateSchema,
  webhookEndpointSchema,
  webhookEndpointUpdateSchema,
  webhookEndpointWithSecretSchema,
} from '../../services/webhooks/endpoints';
import {
  getWebhookSettings,
  resetWebhookSettings,
  updateWebhookSettings,
  webhookSettingsSchema,
  webhookSettingsUpdateSchema,
} from '../../services/webhooks/settings';
import { authOf } from '../auth';
import { defineRoute, json, locationHeader, noContent, Route } from '../routeTable';

const endpointParams = z.object({ endpointId: z.string().min(1).max(100) });
const attemptParams = endpointParams.extend({ deliveryId: z.string().min(1).max(100) });
const TAG = 'Outbound webhooks';

/** The team's outbound webhook endpoints, their deliveries and attempts (docs/EVENTS.md). */
export function webhookEndpointsRoutes(ctx: AppContext): Route[] {
  return [
    defineRoute({
      method: 'post',
      path: '/webhooks/endpoints',
      tag: TAG,
      access: 'write',
      summary: 'Add an endpoint that receives the signed platform events; its secret is in this response only',
      description:
        'An https URL (a host resolving to a private or loopback address is refused with 422 webhook_url_refused ' +
        'unless WEBHOOK_ALLOW_PRIVATE_URLS), extra headers, the event types (omitted: all). Payloads are signed per ' +
        'Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature).',
      body: { kind: 'json', schema: webhookEndpointCreateSchema },
      responses: { 201: json(webhookEndpointWithSecretSchema, 'The endpoint with its secret', locationHeader) },
      errors: [422],
      handler: async ({ req, body }) => {
        const created = await createWebhookEndpoint(ctx, authOf(req).team.id, body);
        return {
          status: 201,
          body: created,
          headers: { Location: `${ctx.config.baseUrl}/webhooks/endpoints/${created.id}`, 'Cache-Control': 'no-store' },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/webhooks/endpoints',
      tag: TAG,
      access: 'read',
      summary: "The team's webhook endpoints (never their secrets)",
      query: pageQuerySchema,
      responses: { 200: json(pageSchema(webhookEndpointSchema), 'A page of endpoints') },
      handler: async ({ req, query }) => ({
        status: 200,
        body: await listWebhookEndpoints(ctx.db, authOf(req).team.id, query),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/webhooks/endpoints/{endpointId}',
      tag: TAG,
      access: 'read',
      summary: 'One webhook endpoint',
      params: endpointParams,
      responses: { 200: json(webhookEndpointSchema, 'The endpoint') },
      handler: async ({ req, params }) => ({
        status: 200,
        body: await getWebhookEndpoint(ctx.db, authOf(req).team.id, params.endpointId),
      }),
    }),
    defineRoute({
      method: 'patch',
      path: '/webhooks/endpoints/{endpointId}',
      tag: TAG,
      access: 'write',
      summary: 'Change an endpoint: URL, headers, event types, enabled; `"secret":"rotate"` returns a new secret once',
      params: endpointParams,
      body: { kind: 'json', schema: webhookEndpointUpdateSchema },
      responses: {
        200: json(webhookEndpointWithSecretSchema.partial({ secret: true }), 'The endpoint (secret only if changed)'),
      },
      errors: [422],
      handler: async ({ req, params, body }) => {
        const updated = await updateWebhookEndpoint(ctx, authOf(req).team.id, params.endpointId, body);
        return { status: 200, body: updated, headers: { 'Cache-Control': 'no-store' } };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/webhooks/endpoints/{endpointId}',
      tag: TAG,
      access: 'write',
      summary: 'Delete an endpoint with its delivery history; deliveries still retrying stop',
      params: endpointParams,
      responses: { 204: noContent('Deleted') },
      handler: async ({ req, params }) => {
        await deleteWebhookEndpoint(ctx.db, authOf(req).team.id, params.endpointId);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/webhooks/endpoints/{endpointId}/deliveries',
      tag: TAG,
      access: 'read',
      summary: "An endpoint's deliveries, newest first (status, attempts, last answer, next attempt)",
      params: endpointParams,
      query: deliveryListQuerySchema,
      responses: { 200: json(pageSchema(webhookDeliverySchema), 'A page of deliveries') },
      handler: async ({ req, params, query }) => ({
        status: 200,
        body: await listWebhookDeliveries(ctx.db, authOf(req).team.id, params.endpointId, query),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/webhooks/endpoints/{endpointId}/deliveries/{deliveryId}/attempts',
      tag: TAG,
      access: 'read',
      summary: 'Every attempt of one delivery: status code, error, duration',
      params: attemptParams,
      query: pageQuerySchema,
      responses: { 200: json(pageSchema(webhookAttemptSchema), 'A page of attempts, in order') },
      handler: async ({ req, params, query }) => ({
        status: 200,
        body: await listWebhookAttempts(ctx.db, authOf(req).team.id, params.endpointId, params.deliveryId, query),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/webhooks/settings',
      tag: TAG,
      access: 'read',
      summary:
        "The Webhooks integration's retry settings: maxAttempts and retryDelaysSeconds (custom false: the defaults)",
      responses: { 200: json(webhookSettingsSchema, 'The settings') },
      handler: async ({ req }) => ({ status: 200, body: await getWebhookSettings(ctx.db, authOf(req).team.id) }),
    }),
    defineRoute({
      method: 'put',
      path: '/webhooks/settings',
      tag: TAG,
      access: 'write',
      summary: 'Change the retry settings; deliveries that start from now on follow them, those retrying keep theirs',
      description:
        'maxAttempts 1‥25 (attempts in all, the first included); retryDelaysSeconds: the waits in seconds before ' +
        'attempts 2, 3, … (1‥86400 each, at most 24), the last repeating when the list is shorter. A field left ' +
        'out keeps its value.',
      body: { kind: 'json', schema: webhookSettingsUpdateSchema },
      responses: { 200: json(webhookSettingsSchema, 'The settings') },
      handler: async ({ req, body }) => {
        const { team, principal } = authOf(req);
        return { status: 200, body: await updateWebhookSettings(ctx.db, team.id, body, principal.userId) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/webhooks/settings',
      tag: TAG,
      access: 'write',
      summary: 'Back to the default retry schedule (10 attempts: 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 6 h)',
      responses: { 200: json(webhookSettingsSchema, 'The settings (the defaults)') },
      handler: async ({ req }) => ({ status: 200, body: await resetWebhookSettings(ctx.db, authOf(req).team.id) }),
    }),
  ];
}
