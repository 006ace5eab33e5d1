import { z } from 'zod';
import type { AppContext } from '../platform/context';
import { defineOperation, Feature } from '../platform/operation';
import { pageQuerySchema, pageSchema } from '../platform/pagination';
import {
  deliveryListQuerySchema,
  listWebhookAttempts,
  listWebhookDeliveries,
  webhookAttemptSchema,
  webhookDeliverySchema,
} from './deliveries';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookEndpoints,
  updateWebhookEndpoint,
  webhookEndpointCreateSchema,
  webhookEndpointSchema,
  webhookEndpointUpdatedSchema,
  webhookEndpointUpdateSchema,
  webhookEndpointWithSecretSchema,
} from './endpoints';
import {
  getWebhookSettings,
  resetWebhookSettings,
  updateWebhookSettings,
  webhookSettingsSchema,
  webhookSettingsUpdateSchema,
} from './settings';

const endpointParams = z.object({ endpointId: z.string().min(1).max(100) });
const attemptParams = endpointParams.extend({ deliveryId: z.string().min(1).max(100) });
const tag = 'Outbound webhooks';
const access = { level: 'read', app: 'webhooks' } as const;
const writes = { level: 'write', app: 'webhooks' } as const;
const endpointUrl = (endpoint: { id: string }, ctx: AppContext) =>
  `${ctx.config.baseUrl}/webhooks/endpoints/${endpoint.id}`;

/** The team's outbound webhook endpoints, their deliveries and attempts, and the retry settings (docs/EVENTS.md). */
export const webhooks: Feature = {
  name: 'webhooks',
  operations: [
    defineOperation({
      name: 'webhooks.createEndpoint',
      access: writes,
      output: webhookEndpointWithSecretSchema,
      handler: (ctx, { team }, input) => createWebhookEndpoint(ctx, team.id, input),
      http: {
        method: 'post',
        path: '/webhooks/endpoints',
        tag,
        summary: 'Add an endpoint that receives the signed platform events; its secret is in this response only',
        description:
          'An https URL (a host resolving to a private or loopback address is refused with 422 webhook_url_refused ' +
          'unless WEBHOOK_ALLOW_PRIVATE_URLS), extra headers, the event types (omitted: all). Payloads are signed per ' +
          'Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature).',
        status: 201,
        answer: 'The endpoint with its secret',
        body: { schema: webhookEndpointCreateSchema },
        location: endpointUrl,
        // The secret is in this answer only: no cache keeps it.
        reply: (created, ctx) => ({
          status: 201,
          body: created,
          headers: { Location: endpointUrl(created, ctx), 'Cache-Control': 'no-store' },
        }),
        errors: [422],
      },
    }),
    defineOperation({
      name: 'webhooks.listEndpoints',
      access,
      output: pageSchema(webhookEndpointSchema),
      handler: (ctx, { team }, page) => listWebhookEndpoints(ctx.db, team.id, page),
      http: {
        method: 'get',
        path: '/webhooks/endpoints',
        tag,
        summary: "The team's webhook endpoints (never their secrets)",
        status: 200,
        answer: 'A page of endpoints',
        query: pageQuerySchema,
      },
    }),
    defineOperation({
      name: 'webhooks.getEndpoint',
      access,
      output: webhookEndpointSchema,
      handler: (ctx, { team }, { endpointId }) => getWebhookEndpoint(ctx.db, team.id, endpointId),
      http: {
        method: 'get',
        path: '/webhooks/endpoints/{endpointId}',
        tag,
        summary: 'One webhook endpoint',
        status: 200,
        answer: 'The endpoint',
        params: endpointParams,
      },
    }),
    defineOperation({
      name: 'webhooks.updateEndpoint',
      access: writes,
      output: webhookEndpointUpdatedSchema,
      handler: (ctx, { team }, { endpointId, ...changes }) => updateWebhookEndpoint(ctx, team.id, endpointId, changes),
      http: {
        method: 'patch',
        path: '/webhooks/endpoints/{endpointId}',
        tag,
        summary:
          'Change an endpoint: URL, headers, event types, enabled; `"secret":"rotate"` returns a new secret once',
        status: 200,
        answer: 'The endpoint (secret only if changed)',
        params: endpointParams,
        body: { schema: webhookEndpointUpdateSchema },
        reply: (updated) => ({ status: 200, body: updated, headers: { 'Cache-Control': 'no-store' } }),
        errors: [422],
      },
    }),
    defineOperation({
      name: 'webhooks.deleteEndpoint',
      access: writes,
      handler: (ctx, { team }, { endpointId }) => deleteWebhookEndpoint(ctx.db, team.id, endpointId),
      http: {
        method: 'delete',
        path: '/webhooks/endpoints/{endpointId}',
        tag,
        summary: 'Delete an endpoint with its delivery history; deliveries still retrying stop',
        status: 204,
        answer: 'Deleted',
        params: endpointParams,
      },
    }),
    defineOperation({
      name: 'webhooks.deliveries',
      access,
      output: pageSchema(webhookDeliverySchema),
      handler: (ctx, { team }, { endpointId, ...query }) => listWebhookDeliveries(ctx.db, team.id, endpointId, query),
      http: {
        method: 'get',
        path: '/webhooks/endpoints/{endpointId}/deliveries',
        tag,
        summary: "An endpoint's deliveries, newest first (status, attempts, last answer, next attempt)",
        status: 200,
        answer: 'A page of deliveries',
        params: endpointParams,
        query: deliveryListQuerySchema,
      },
    }),
    defineOperation({
      name: 'webhooks.attempts',
      access,
      output: pageSchema(webhookAttemptSchema),
      handler: (ctx, { team }, { endpointId, deliveryId, ...page }) =>
        listWebhookAttempts(ctx.db, team.id, endpointId, deliveryId, page),
      http: {
        method: 'get',
        path: '/webhooks/endpoints/{endpointId}/deliveries/{deliveryId}/attempts',
        tag,
        summary: 'Every attempt of one delivery: status code, error, duration',
        status: 200,
        answer: 'A page of attempts, in order',
        params: attemptParams,
        query: pageQuerySchema,
      },
    }),
    defineOperation({
      name: 'webhooks.getSettings',
      access,
      input: z.strictObject({}),
      output: webhookSettingsSchema,
      handler: (ctx, { team }) => getWebhookSettings(ctx.db, team.id),
      http: {
        method: 'get',
        path: '/webhooks/settings',
        tag,
        summary:
          "The Webhooks integration's retry settings: maxAttempts and retryDelaysSeconds (custom false: the defaults)",
        status: 200,
        answer: 'The settings',
      },
      mcp: {
        name: 'get_webhook_settings',
        title: 'Get the webhook retry settings',
        description:
          "The team's outbound webhook retry settings: maxAttempts (attempts in all) and retryDelaysSeconds (the waits " +
          'before attempts 2, 3, …; the last repeats). custom false: nothing saved, the defaults (10 attempts, 5 s … 6 h).',
      },
    }),
    defineOperation({
      name: 'webhooks.setSettings',
      access: writes,
      input: webhookSettingsUpdateSchema,
      output: webhookSettingsSchema,
      handler: (ctx, { team, principal }, input) => updateWebhookSettings(ctx.db, team.id, input, principal.userId),
      http: {
        method: 'put',
        path: '/webhooks/settings',
        tag,
        summary: 'Change the retry settings; deliveries that start from now on follow them, those retrying keep theirs',
        description:
          'maxAttempts 1‥25 (attempts in all, the first included); retryDelaysSeconds: the waits in seconds before ' +
          'attempts 2, 3, … (1‥86400 each, at most 24), the last repeating when the list is shorter. A field left ' +
          'out keeps its value.',
        status: 200,
        answer: 'The settings',
        body: { schema: webhookSettingsUpdateSchema },
      },
      mcp: {
        name: 'set_webhook_settings',
        title: 'Change the webhook retry settings',
        description:
          'Set maxAttempts (1-25, the first attempt included; 1: no retry) and/or retryDelaysSeconds (1-24 waits of ' +
          '1-86400 s before attempts 2, 3, …; the last repeats). A field left out keeps its value. Deliveries that ' +
          'start from now on follow them; those already retrying keep their schedule. Answers the settings.',
      },
    }),
    defineOperation({
      name: 'webhooks.resetSettings',
      access: writes,
      output: webhookSettingsSchema,
      handler: (ctx, { team }) => resetWebhookSettings(ctx.db, team.id),
      http: {
        method: 'delete',
        path: '/webhooks/settings',
        tag,
        summary:
          'Back to the default retry schedule (10 attempts: 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 6 h)',
        status: 200,
        answer: 'The settings (the defaults)',
      },
    }),
  ],
};
