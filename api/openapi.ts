import { OpenApiGeneratorV3, OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { agentSchema, agentUpdateSchema } from '../services/agents';
import { artifactCreateSchema, artifactListQuerySchema, artifactSchema, artifactUpdateSchema } from '../services/artifacts';
import {
  approvalEditsSchema, declineSchema, deliverRequestSchema, deliveryListQuerySchema, outboxMessageSchema, warpExecutionSchema,
} from '../services/deliveries';
import { deliverySchema } from '../services/deliveryTypes';
import { integrationInputSchema, integrationSchema } from '../services/integrations';
import { mediaSchema } from '../services/media';
import { apiTokenCreatedSchema, apiTokenCreateSchema, apiTokenSchema } from '../services/apiTokens';
import {
  audiencePreviewSchema, campaignCreateSchema, cardDecisionSchema, campaignListQuerySchema, campaignRetrySchema, campaignSchema, campaignSendSchema, campaignTestSendSchema,
  campaignUpdateSchema, recipientQuerySchema, recipientSchema,
} from '../services/campaigns';
import { contactCreateSchema, contactSchema, contactUpdateSchema, orderCreateSchema } from '../services/contacts';
import { segmentCreateSchema, segmentSchema } from '../services/segments';
import { errorBodySchema } from '../services/errors';
import { idempotencyKeySchema } from '../services/idempotency';
import { createJobSchema, jobAcceptedSchema, jobSchema } from '../services/jobs';
import { jobTypeNames } from '../services/jobTypes';
import { pageQuerySchema, pageSchema } from '../services/pagination';
import { secretKeySchema, secretSetSchema, secretStatusSchema } from '../services/agentSecrets';
import { appSchema, appSlugSchema } from '../services/apps';
import { creditUsageSchema } from '../services/credits';
import { teamSchema, teamUpdateSchema } from '../services/teams';

/**
 * The API's description document (OpenAPI 3.0, version 1.0.0 as the spec says), built from the
 * same zod schemas that validate requests and type the responses.
 */
export function buildOpenApiDocument(baseUrl: string, authUrl: string) {
  const registry = new OpenAPIRegistry();
  const bearer = registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'An API token (`npm run cli -- bootstrap`, or POST /api-tokens); the team comes from X-Team-Slug.',
  });
  const oauth = registry.registerComponent('securitySchemes', 'oauth2', {
    type: 'oauth2',
    description: 'OAuth 2 access token; it acts for the one team it was granted for (X-Team-Slug must name it).',
    flows: {
      authorizationCode: {
        authorizationUrl: `${authUrl}/oauth/authorize`,
        tokenUrl: `${authUrl}/oauth/token`,
        refreshUrl: `${authUrl}/oauth/token`,
        scopes: { 'mcp:read': 'read', 'mcp:write': 'write', 'mcp:use': 'read and write' },
      },
      clientCredentials: { tokenUrl: `${authUrl}/oauth/token`, scopes: { 'mcp:read': 'read', 'mcp:write': 'write', 'mcp:use': 'read and write' } },
    },
  });
  const readSecurity = [{ [bearer.name]: [] }, { [oauth.name]: ['mcp:read'] }, { [oauth.name]: ['mcp:use'] }];
  const writeSecurity = [{ [bearer.name]: [] }, { [oauth.name]: ['mcp:write'] }, { [oauth.name]: ['mcp:use'] }];
  const teamHeader = z.object({ 'x-team-slug': z.string().describe('The team the request acts for') });
  const writeHeaders = teamHeader.extend({ 'idempotency-key': idempotencyKeySchema.optional() });
  // Schemas are inlined rather than registered as named components: naming needs zod's
  // `.openapi()` extension installed before the services define their schemas.
  const error = errorBodySchema;
  const errorResponses = Object.fromEntries(
    [
      [400, 'validation_error'], [401, 'unauthorized'], [403, 'forbidden / insufficient_scope'], [404, 'not_found'],
      [409, 'conflict (Idempotency-Key reused with another body)'], [413, 'payload_too_large'], [415, 'unsupported_media_type'],
      [429, 'rate_limited (headers Retry-After, RateLimit-Limit, RateLimit-Remaining)'],
    ].map(([status, description]) => [status, { description: String(description), content: { 'application/json': { schema: error } } }]),
  );
  const agent = agentSchema;
  const contact = contactSchema;
  const job = jobSchema;

  registry.registerPath({
    method: 'get', path: '/agents', summary: "List the team's agents", security: readSecurity,
    request: { headers: teamHeader, query: pageQuerySchema },
    responses: { 200: { description: 'A page of agents', content: { 'application/json': { schema: pageSchema(agent) } } }, ...errorResponses },
  });
  registry.registerPath({
    method: 'get', path: '/contacts', summary: "List the team's contacts", security: readSecurity,
    request: { headers: teamHeader, query: pageQuerySchema },
    responses: { 200: { description: 'A page of contacts', content: { 'application/json': { schema: pageSchema(contact) } } }, ...errorResponses },
  });
  registry.registerPath({
    method: 'post', path: '/contacts', summary: 'Create a contact (first name = first word of name, last name = the rest)', security: writeSecurity,
    request: { headers: writeHeaders, body: { required: true, content: { 'application/json': { schema: contactCreateSchema } } } },
    responses: { 201: { description: 'The contact', content: { 'application/json': { schema: contact } } }, ...errorResponses },
  });
  registry.registerPath({
    method: 'get', path: '/contacts/{contactId}', summary: 'Read one contact', security: readSecurity,
    request: { headers: teamHeader, params: z.object({ contactId: z.string() }) },
    responses: { 200: { description: 'The contact', content: { 'application/json': { schema: contact } } }, ...errorResponses },
  });
  registry.registerPath({
    method: 'post', path: '/jobs', summary: `Start a job (types: ${jobTypeNames.join(', ')})`, security: writeSecurity,
    request: { headers: writeHeaders, body: { required: true, content: { 'application/json': { schema: createJobSchema } } } },
    responses: {
      202: {
        description: 'Accepted; poll statusUrl',
        headers: z.object({ location: z.url() }),
        content: { 'application/json': { schema: jobAcceptedSchema } },
      },
      503: { description: 'temporal_unavailable', content: { 'application/json': { schema: error } } },
      ...errorResponses,
    },
  });
  registry.registerPath({
    method: 'get', path: '/jobs/{jobId}', summary: 'Read a job, with progress while it runs', security: readSecurity,
    request: { headers: teamHeader, params: z.object({ jobId: z.string() }) },
    responses: { 200: { description: 'The job', content: { 'application/json': { schema: job } } }, ...errorResponses },
  });
  registry.registerPath({
    method: 'get', path: '/media/{mediaId}/content', summary: 'Download a media file (e.g. a contacts.export result)', security: readSecurity,
    request: { headers: teamHeader, params: z.object({ mediaId: z.string() }) },
    responses: { 200: { description: 'The file' }, ...errorResponses },
  });

  const tokenId = z.object({ tokenId: z.string() });
  registry.registerPath({
    method: 'get', path: '/api-tokens', summary: "List the caller's own API tokens (no team header)", security: readSecurity,
    request: { query: pageQuerySchema },
    responses: { 200: { description: 'A page of tokens (never the token itself)', content: { 'application/json': { schema: pageSchema(apiTokenSchema) } } }, ...errorResponses },
  });
  registry.registerPath({
    method: 'post', path: '/api-tokens', summary: 'Create an API token for the caller; the token is in this response only', security: writeSecurity,
    request: { body: { required: true, content: { 'application/json': { schema: apiTokenCreateSchema } } } },
    responses: { 201: { description: 'The token', content: { 'application/json': { schema: apiTokenCreatedSchema } } }, ...errorResponses },
  });
  registry.registerPath({
    method: 'delete', path: '/api-tokens/{tokenId}', summary: 'Revoke one of the caller\'s API tokens (at once; repeating is harmless)', security: writeSecurity,
    request: { params: tokenId },
    responses: { 200: { description: 'The revoked token', content: { 'application/json': { schema: apiTokenSchema } } }, ...errorResponses },
  });

  const json = (schema: z.ZodType, description: string) => ({ description, content: { 'application/json': { schema } } });
  const artifactId = z.object({ artifactId: z.string() });
  const agentId = z.object({ agentId: z.string() });
  const executionId = z.object({ executionId: z.string() });
  const mediaId = z.object({ mediaId: z.string() });
  const campaignId = z.object({ campaignId: z.string() });
  const teamPaths: { method: 'get' | 'post' | 'patch' | 'put' | 'delete'; path: string; summary: string; params?: z.ZodObject; query?: z.ZodObject; body?: z.ZodType; responses: Record<number, unknown> }[] = [
    { method: 'get', path: '/artifacts', summary: 'List artifacts (filters: status, type, contactId, ids=a,b,c)', query: artifactListQuerySchema, responses: { 200: json(pageSchema(artifactSchema), 'A page of artifacts') } },
    { method: 'post', path: '/artifacts', summary: 'Create an artifact (draft, or ready)', body: artifactCreateSchema, responses: { 201: json(artifactSchema, 'The artifact') } },
    { method: 'get', path: '/artifacts/{artifactId}', summary: 'Read an artifact', params: artifactId, responses: { 200: json(artifactSchema, 'The artifact') } },
    { method: 'patch', path: '/artifacts/{artifactId}', summary: 'Edit fields or status (draft→ready, any→archived; sent only by a delivery)', params: artifactId, body: artifactUpdateSchema, responses: { 200: json(artifactSchema, 'The artifact') } },
    { method: 'delete', path: '/artifacts/{artifactId}', summary: 'Delete an artifact for good', params: artifactId, responses: { 204: { description: 'Deleted' } } },
    {
      method: 'post', path: '/artifacts/deliver', summary: 'Deliver artifacts: one message per recipient covering all of them, after the approval step', body: deliverRequestSchema,
      responses: { 200: { description: 'Auto mode, sent: { pending: false, executionId, status, statusUrl, deliveries }' }, 202: { description: 'Manual mode: { pending: true, executionId, status: "pending_approval", statusUrl } (or auto mode still sending)' } },
    },
    { method: 'post', path: '/media', summary: 'Upload a file (multipart/form-data, field "file")', responses: { 201: json(mediaSchema, 'The file') } },
    { method: 'get', path: '/media', summary: "List the team's files", query: pageQuerySchema, responses: { 200: json(pageSchema(mediaSchema), 'A page of files') } },
    { method: 'delete', path: '/media/{mediaId}', summary: 'Delete a file no artifact uses', params: mediaId, responses: { 204: { description: 'Deleted' } } },
    { method: 'patch', path: '/agents/{agentId}', summary: "Rename an agent or set its mode (auto | manual)", params: agentId, body: agentUpdateSchema, responses: { 200: json(agentSchema, 'The agent') } },
    { method: 'get', path: '/agents/{agentId}/integrations', summary: "An agent's channel integrations (secrets never shown)", params: agentId, responses: { 200: json(z.object({ data: z.array(integrationSchema) }), 'The integrations') } },
    { method: 'put', path: '/agents/{agentId}/integrations/{channel}', summary: "Set an agent's integration for email, sms, whatsapp or push", params: agentId.extend({ channel: z.string() }), body: integrationInputSchema, responses: { 200: json(integrationSchema, 'The integration') } },
    { method: 'get', path: '/agents/{agentId}/secrets', summary: "An agent's secrets: keys and status, never values", params: agentId, responses: { 200: json(z.object({ data: z.array(secretStatusSchema) }), 'The secrets') } },
    { method: 'put', path: '/agents/{agentId}/secrets/{key}', summary: 'Set (or replace) a secret; stored encrypted, never returned', params: agentId.extend({ key: secretKeySchema }), body: secretSetSchema.pick({ value: true }), responses: { 200: json(secretStatusSchema, 'The secret\'s status') } },
    { method: 'delete', path: '/agents/{agentId}/secrets/{key}', summary: 'Clear a secret (idempotent)', params: agentId.extend({ key: secretKeySchema }), responses: { 200: json(secretStatusSchema, 'The secret\'s status') } },
    { method: 'get', path: '/team', summary: 'The team of X-Team-Slug', responses: { 200: json(teamSchema, 'The team') } },
    { method: 'patch', path: '/team', summary: 'Rename the team, describe it, or list it publicly (list_public_teams)', body: teamUpdateSchema, responses: { 200: json(teamSchema, 'The team') } },
    { method: 'get', path: '/apps', summary: 'The native apps and which the team installed (each adds its MCP tools)', responses: { 200: json(z.object({ data: z.array(appSchema) }), 'The apps') } },
    { method: 'put', path: '/apps/{appSlug}', summary: 'Install an app: its tools join the team\'s MCP tools/list (idempotent)', params: z.object({ appSlug: appSlugSchema }), responses: { 200: json(appSchema, 'The app') } },
    { method: 'delete', path: '/apps/{appSlug}', summary: 'Uninstall an app: its tools leave tools/list', params: z.object({ appSlug: appSlugSchema }), responses: { 200: json(appSchema, 'The app') } },
    { method: 'get', path: '/credits', summary: 'MCP credits of the current billing cycle (reads cost 1, writes 2)', responses: { 200: json(creditUsageSchema, 'The usage') } },
    { method: 'get', path: '/warp-executions/{executionId}', summary: 'Read a warp execution (pending_approval, running, succeeded, failed, declined, expired)', params: executionId, responses: { 200: json(warpExecutionSchema, 'The execution') } },
    { method: 'post', path: '/warp-executions/{executionId}/approve', summary: 'Approve, optionally editing message and subject (API tokens only: people approve)', params: executionId, body: approvalEditsSchema, responses: { 200: json(warpExecutionSchema, 'The execution') } },
    { method: 'post', path: '/warp-executions/{executionId}/decline', summary: 'Decline', params: executionId, body: declineSchema, responses: { 200: json(warpExecutionSchema, 'The execution') } },
    { method: 'post', path: '/warp-executions/{executionId}/approval-link', summary: 'A signed, single-use, expiring link to approve or decline without signing in', params: executionId, responses: { 201: json(z.object({ url: z.url(), expiresAt: z.iso.datetime() }), 'The link') } },
    { method: 'get', path: '/deliveries', summary: 'Delivery records (filters: executionId, contactId, artifactId)', query: deliveryListQuerySchema, responses: { 200: json(pageSchema(deliverySchema), 'A page of delivery records') } },
    { method: 'patch', path: '/contacts/{contactId}', summary: 'Edit a contact (null clears; properties merge key by key; consent, opt-out, waiting state)', params: z.object({ contactId: z.string() }), body: contactUpdateSchema, responses: { 200: json(contactSchema, 'The contact') } },
    { method: 'post', path: '/contacts/{contactId}/orders', summary: 'Record an order of a contact (segments read orders)', params: z.object({ contactId: z.string() }), body: orderCreateSchema, responses: { 201: { description: 'The order' } } },
    { method: 'get', path: '/segments', summary: 'List segments', query: pageQuerySchema, responses: { 200: json(pageSchema(segmentSchema), 'A page of segments') } },
    { method: 'post', path: '/segments', summary: 'Create a segment: groups of conditions, each all/any (no update exists)', body: segmentCreateSchema, responses: { 201: json(segmentSchema, 'The segment') } },
    { method: 'get', path: '/segments/{segmentId}', summary: 'Read a segment', params: z.object({ segmentId: z.string() }), responses: { 200: json(segmentSchema, 'The segment') } },
    { method: 'get', path: '/segments/{segmentId}/contacts', summary: 'The contacts a segment holds now', params: z.object({ segmentId: z.string() }), query: pageQuerySchema, responses: { 200: json(pageSchema(contactSchema), 'A page of contacts') } },
    { method: 'delete', path: '/segments/{segmentId}', summary: 'Delete a segment no unsent campaign uses', params: z.object({ segmentId: z.string() }), responses: { 204: { description: 'Deleted' } } },
    { method: 'post', path: '/campaigns/audience-preview', summary: 'Sendable versus skipped counts with reasons, for a campaign or a channel with segmentId / tags / contactIds', body: audiencePreviewSchema, responses: { 200: { description: '{ channel, total, sendable, skipped: { pending_consent, opted_out, missing_channel } }' } } },
    { method: 'get', path: '/campaigns', summary: 'List campaigns (the active list; archived=true for the archived)', query: campaignListQuerySchema, responses: { 200: json(pageSchema(campaignSchema), 'A page of campaigns') } },
    { method: 'post', path: '/campaigns', summary: 'Create a campaign (Draft)', body: campaignCreateSchema, responses: { 201: json(campaignSchema, 'The campaign') } },
    { method: 'get', path: '/campaigns/{campaignId}', summary: 'Read a campaign', params: campaignId, responses: { 200: json(campaignSchema, 'The campaign') } },
    { method: 'patch', path: '/campaigns/{campaignId}', summary: 'Edit (Draft, Pending, Approved, Rejected only); sending an audience source replaces the audience', params: campaignId, body: campaignUpdateSchema, responses: { 200: json(campaignSchema, 'The campaign') } },
    { method: 'delete', path: '/campaigns/{campaignId}', summary: 'Delete (not while Sending)', params: campaignId, responses: { 204: { description: 'Deleted' } } },
    { method: 'post', path: '/campaigns/{campaignId}/send', summary: 'Send now, or at a future scheduledAt (Scheduled)', params: campaignId, body: campaignSendSchema, responses: { 200: json(campaignSchema, 'The campaign, Sending or Scheduled') } },
    { method: 'post', path: '/campaigns/{campaignId}/cancel-schedule', summary: 'Back to Draft, only while Scheduled', params: campaignId, responses: { 200: json(campaignSchema, 'The campaign') } },
    { method: 'post', path: '/campaigns/{campaignId}/cancel-send', summary: 'Stop sending, only while Sending: the rest fail with cancelled, the campaign ends Failed', params: campaignId, responses: { 200: json(campaignSchema, 'The campaign') } },
    { method: 'post', path: '/campaigns/{campaignId}/retry', summary: 'Send again to the retryable recipients (optionally only contactIds), only Completed or Failed', params: campaignId, body: campaignRetrySchema, responses: { 200: { description: '{ retried: <integer> }' } } },
    { method: 'post', path: '/campaigns/{campaignId}/archive', summary: 'Archive a Completed or Failed campaign', params: campaignId, responses: { 200: json(campaignSchema, 'The campaign') } },
    { method: 'post', path: '/campaigns/{campaignId}/unarchive', summary: 'Unarchive', params: campaignId, responses: { 200: json(campaignSchema, 'The campaign') } },
    { method: 'post', path: '/campaigns/{campaignId}/send-test', summary: 'Synchronous test send to one contact with an email ([TEST] subject; nothing changes)', params: campaignId, body: campaignTestSendSchema, responses: { 200: { description: '{ sent, to, subject, providerMessageId }' } } },
    { method: 'post', path: '/campaigns/{campaignId}/whatsapp/submit', summary: 'Submit the WhatsApp template for approval (Draft or Rejected → Pending)', params: campaignId, responses: { 200: json(campaignSchema, 'The campaign') } },
    { method: 'post', path: '/campaigns/{campaignId}/whatsapp/refresh', summary: 'Ask the provider for the template status now (Pending only)', params: campaignId, responses: { 200: json(campaignSchema, 'The campaign') } },
    { method: 'get', path: '/campaigns/{campaignId}/cards', summary: 'Open approval cards (a manual-mode agent sends nobody until a card is approved)', params: campaignId, query: recipientQuerySchema, responses: { 200: { description: 'A page of { contactId, address }' } } },
    { method: 'post', path: '/campaigns/{campaignId}/cards', summary: 'Approve or skip approval cards (contact ids or "all"); skipped ones end approval_skipped', params: campaignId, body: cardDecisionSchema, responses: { 200: { description: '{ approved, skipped }' } } },
    { method: 'get', path: '/campaigns/{campaignId}/recipients', summary: 'Recipients with status, skipReason and retryable (status filter, perPage)', params: campaignId, query: recipientQuerySchema, responses: { 200: json(pageSchema(recipientSchema), 'A page of recipients') } },
    { method: 'get', path: '/campaigns/{campaignId}/stats', summary: 'Live counts of a campaign', params: campaignId, responses: { 200: { description: '{ recipients, pending, sent, failed, skipped, skipReasons, opened, clicked }' } } },
    { method: 'get', path: '/outbox', summary: 'What the sandbox provider sent for the team', query: pageQuerySchema, responses: { 200: json(pageSchema(outboxMessageSchema), 'A page of messages') } },
  ];
  for (const op of teamPaths) {
    const writes = op.method !== 'get';
    registry.registerPath({
      method: op.method, path: op.path, summary: op.summary, security: writes ? writeSecurity : readSecurity,
      request: {
        headers: teamHeader,
        ...(op.params ? { params: op.params } : {}),
        ...(op.query ? { query: op.query } : {}),
        ...(op.body ? { body: { required: true, content: { 'application/json': { schema: op.body } } } } : {}),
      },
      responses: { ...(op.responses as Record<number, { description: string }>), ...errorResponses, 422: { description: 'a business rule, with its own code', content: { 'application/json': { schema: error } } } },
    });
  }

  return new OpenApiGeneratorV3(registry.definitions).generateDocument({
    openapi: '3.0.3',
    info: { title: 'Team Agent Platform API', version: '1.0.0' },
    servers: [{ url: baseUrl }],
  });
}
