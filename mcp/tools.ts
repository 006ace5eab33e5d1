import { z } from 'zod';
import { findAgent, listAgents, presentAgent } from '../services/agents/agents';
import {
  listSecrets,
  secretKeyInputSchema,
  secretSetSchema,
  secretStatus,
  setSecret,
} from '../services/agents/agentSecrets';
import { createApiToken, apiTokenCreateSchema } from '../services/identity/apiTokens';
import type { AppSlug } from '../services/agents/apps';
import {
  artifactCreateSchema,
  artifactListQuerySchema,
  artifactUpdateSchema,
  createArtifact,
  getArtifact,
  listArtifacts,
  updateArtifact,
} from '../services/deliveries/artifacts';
import { updateContact } from '../services/contacts/contacts';
import { creditUsage } from '../services/platform/credits';
import { deliverArtifacts, deliverRequestSchema } from '../services/deliveries/deliver';
import { notFound } from '../services/platform/errors';
import { listIntegrations } from '../services/agents/integrations';
import { ingestRequestSchema } from '../services/jobs/jobTypes';
import { createJob } from '../services/jobs/jobs';
import { fileTooLarge, listMedia, storeMedia } from '../services/media/media';
import { pageQuerySchema } from '../services/platform/pagination';
import { propertyValueSchema } from '../services/platform/additionalProperties';
import { requireUser } from '../services/identity/principal';
import { getTeam, listPublicTeams } from '../services/platform/teams';
import { checkExecutions, executionsQuerySchema } from '../services/deliveries/warps';
import { id, PENDING_NOTE, sensitiveTool, tool, Tool } from './toolKit';
import { agentKnowledgeTools } from './agentTools';
import { roomTools } from './roomTools';
import { warpTools } from './warpTools';
import { hookTools } from './hookTools';
import { automationTools } from './automationTools';
import { formTools } from './formTools';
import { shopTools } from './shopTools';
import { webhookTools } from './webhookTools';
import { inboxTools } from './inboxTools';
import { searchTool, teamTools } from './teamTools';
import { studioTools } from './studioTools';
import { catalogTools } from '../services/catalog/features';
import { createPrivateAppTool } from './privateAppTools';
export type { Tool, ToolCall } from './toolKit';
export { caller } from './toolKit';

const coreTools: Tool[] = [
  tool({
    name: 'svc_agent_info',
    title: 'About this agent',
    description:
      'The connected agent (uuid, name, slug, mode auto/manual), its team, its active channel integrations, ' +
      'the installed apps and the MCP credits left this billing cycle. Call it first to learn what you can do.',
    app: 'core',
    access: 'read',
    input: z.strictObject({}),
    run: async ({ ctx, team, agentId, installed }) => {
      const agent = await findAgent(ctx.db, team.id, agentId);
      if (!agent) throw notFound('Agent');
      // One per channel: four at most, so one page holds them all.
      const integrations = await listIntegrations(ctx.db, ctx.secretBox, team.id, agentId, { limit: 100 });
      return {
        agent: presentAgent(agent),
        team: await getTeam(ctx.db, team.id),
        integrations: integrations.data.map((i) => ({
          channel: i.channel,
          provider: i.provider,
          from: i.from,
          active: i.active,
        })),
        installedApps: [...installed],
        credits: await creditUsage(ctx.db, team, ctx.config.MCP_CREDITS),
      };
    },
  }),
  tool({
    name: 'svc_list_agents',
    title: "List the team's agents",
    description:
      'The agents of the team (uuid, name, slug, mode), a page at a time: pass pagination.nextCursor back as ' +
      'cursor for the next page.',
    app: 'core',
    access: 'read',
    input: pageQuerySchema,
    chargeInRead: true,
    run: ({ ctx, team, rider }, page) => listAgents(ctx.db, team.id, page, rider),
  }),
  tool({
    name: 'list_public_teams',
    title: 'List public teams',
    description: 'Teams that chose to be listed publicly (slug, name, description), a page at a time.',
    app: 'core',
    access: 'read',
    input: pageQuerySchema,
    run: ({ ctx }, page) => listPublicTeams(ctx.db, page),
  }),
  tool({
    name: 'create_api_token',
    title: 'Create an API token',
    description:
      'Creates an API token for the signed-in user (for the HTTP API: Authorization: Bearer <token> with ' +
      "X-Team-Slug). The token is shown once in this answer; it acts with all of the user's rights until " +
      'revoked at /v1/api-tokens.',
    app: 'core',
    inTurns: 'never',
    access: 'write',
    input: apiTokenCreateSchema,
    run: ({ ctx, principal }, input) => createApiToken(ctx.db, requireUser(principal), input),
  }),
  tool({
    name: 'ingest_knowledge',
    title: 'Ingest knowledge',
    description:
      "Queues a job that chunks a text into the agent's knowledge (the connected agent unless agentId is " +
      'given). Answers { jobId, status, statusUrl }; the job runs in the background.',
    app: 'core',
    inTurns: 'startsWork',
    access: 'write',
    input: ingestRequestSchema,
    run: ({ ctx, team, principal, agentId, idempotencyKey }, input) =>
      createJob(
        ctx,
        team,
        principal.userId,
        { type: 'knowledge.ingest', input: { ...input, agentId: input.agentId ?? agentId } },
        idempotencyKey,
      ),
  }),
  tool({
    name: 'set_contact_property',
    title: 'Set a contact property',
    description:
      'Sets one custom property of a contact (any JSON value: string, number, boolean, object or array); value ' +
      'null removes it. Answers the updated contact.',
    app: 'core',
    access: 'write',
    input: z.strictObject({
      contactId: id('contact'),
      key: z.string().trim().min(1).max(100).describe('The property name, e.g. "plan" or "lastOrderTotal"'),
      value: propertyValueSchema,
    }),
    run: ({ ctx, team }, { contactId, key, value }) =>
      updateContact(ctx.db, team.id, contactId, { properties: { [key]: value } }),
  }),
  tool({
    name: 'media_upload',
    title: 'Upload a file',
    description:
      "Stores a file in the team's media (PDF, text, images, office documents, zip, mp4, mp3) from base64 " +
      'content. Answers the media object; pass its id in create_artifact / update_artifact `media` to attach ' +
      'it.',
    app: 'core',
    access: 'write',
    input: z.strictObject({
      filename: z.string().trim().min(1).max(200),
      contentType: z.string().min(3).max(200).describe('The MIME type, e.g. application/pdf'),
      contentBase64: z.string().min(1).describe("The file's bytes, base64-encoded"),
    }),
    run: async ({ ctx, team }, input) => {
      const buffer = Buffer.from(input.contentBase64, 'base64');
      if (buffer.length > ctx.config.MEDIA_MAX_BYTES) throw fileTooLarge(ctx.config.MEDIA_MAX_BYTES);
      return storeMedia(
        ctx.db,
        ctx.storage,
        team.id,
        { originalname: input.filename, mimetype: input.contentType, buffer },
        ctx.config.baseUrl,
      );
    },
  }),
  tool({
    name: 'media_list',
    title: 'List files',
    description: "The team's media files (id, filename, contentType, size), a page at a time.",
    app: 'core',
    access: 'read',
    input: pageQuerySchema,
    chargeInRead: true,
    run: ({ ctx, team, rider }, page) => listMedia(ctx.db, team.id, page, ctx.config.baseUrl, rider),
  }),
  sensitiveTool('media-delete', {
    name: 'media_delete',
    title: 'Delete a file',
    description: `Deletes a media file that no artifact uses (detach it first). ${PENDING_NOTE}`,
    app: 'core',
  }),
  tool({
    name: 'secret_list',
    title: "List the agent's secrets",
    description:
      "The keys of the connected agent's secrets and when each was set, by key, a page at a time (pass " +
      'pagination.nextCursor back as cursor). Values are never returned.',
    app: 'core',
    access: 'read',
    input: pageQuerySchema,
    run: ({ ctx, team, agentId }, page) => listSecrets(ctx.db, team.id, agentId, page),
  }),
  tool({
    name: 'secret_status',
    title: 'Is a secret set?',
    description:
      'Whether the connected agent has a secret under this key, and when it was set. The value is never returned.',
    app: 'core',
    access: 'read',
    input: secretKeyInputSchema,
    run: ({ ctx, team, agentId }, { key }) => secretStatus(ctx.db, team.id, agentId, key),
  }),
  tool({
    name: 'secret_set',
    title: 'Set a secret',
    description:
      "Stores a secret for the connected agent (encrypted; an existing key is replaced). Answers the key's " +
      'status only; the value cannot be read back.',
    app: 'core',
    inTurns: 'never',
    access: 'write',
    input: secretSetSchema,
    run: ({ ctx, team, agentId, principal }, input) =>
      setSecret(ctx.db, ctx.secretBox, team.id, agentId, input, principal.userId),
  }),
  sensitiveTool('secret-clear', {
    name: 'secret_clear',
    title: 'Clear a secret',
    description: `Removes one of the connected agent's secrets. ${PENDING_NOTE}`,
    app: 'core',
  }),
  tool({
    name: 'check_warp_executions',
    title: 'Check pending writes',
    description:
      'Where sensitive writes stand: pending_approval, running, succeeded (with result), failed (with error), ' +
      'declined or expired. Pass the executionIds that writes answered with; poll until none is ' +
      'pending_approval or running.',
    app: 'core',
    access: 'read',
    input: executionsQuerySchema,
    run: ({ ctx, team }, query) => checkExecutions(ctx, team.id, query),
  }),
];

const artifactTools: Tool[] = [
  tool({
    name: 'create_artifact',
    title: 'Create an artifact',
    description:
      'Creates a client deliverable (agreement, offer, concept, update, demo, file, other) with an optional ' +
      'url, password, extra link, contact and media (ids from media_upload; url and media are both optional). ' +
      'It is a draft unless status "ready"; only ready artifacts can be delivered.',
    app: 'artifacts',
    access: 'write',
    input: artifactCreateSchema,
    run: ({ ctx, team }, input) => createArtifact(ctx.db, team.id, input, ctx.config.baseUrl),
  }),
  tool({
    name: 'list_artifacts',
    title: 'List artifacts',
    description:
      "The team's artifacts, filtered by status, type, contactId or ids (comma-separated), a page at a time.",
    app: 'artifacts',
    access: 'read',
    input: artifactListQuerySchema,
    run: ({ ctx, team }, query) => listArtifacts(ctx.db, team.id, query, ctx.config.baseUrl),
  }),
  tool({
    name: 'get_artifact',
    title: 'Get an artifact',
    description: 'One artifact with its media, status and delivery time.',
    app: 'artifacts',
    access: 'read',
    input: z.strictObject({ artifactId: id('artifact') }),
    run: ({ ctx, team }, { artifactId }) => getArtifact(ctx.db, team.id, artifactId, ctx.config.baseUrl),
  }),
  tool({
    name: 'update_artifact',
    title: 'Update an artifact',
    description:
      'Changes any field of an artifact (null clears an optional one); status draft→ready makes it ' +
      'deliverable, any→archived retires it. "sent" is reached only by deliver_artifacts.',
    app: 'artifacts',
    access: 'write',
    input: artifactUpdateSchema.extend({ artifactId: id('artifact') }),
    run: ({ ctx, team }, { artifactId, ...changes }) =>
      updateArtifact(ctx.db, team.id, artifactId, changes, ctx.config.baseUrl),
  }),
  sensitiveTool('artifact-delete', {
    name: 'delete_artifact',
    title: 'Delete an artifact',
    description: `Deletes an artifact for good. ${PENDING_NOTE}`,
    app: 'artifacts',
  }),
  tool({
    name: 'deliver_artifacts',
    title: 'Deliver artifacts',
    description:
      "The only way to send artifacts to people: one message per recipient (the artifacts' contacts, or " +
      "contactIds) by email, sms or whatsapp, through the agent's integration. Artifacts must be ready. Auto " +
      'mode answers the delivery records; manual mode answers { pending: true, executionId }: poll ' +
      'check_warp_executions and do not repeat the call.',
    app: 'artifacts',
    inTurns: 'never',
    access: 'write',
    input: deliverRequestSchema,
    run: async ({ ctx, team, principal, agentId }, request) =>
      (await deliverArtifacts(ctx, team, principal, { ...request, agentId: request.agentId ?? agentId })).body,
  }),
];

/** Every live tool. A tool that does not work yet is not here, so no client ever lists it. */
export const TOOLS: Tool[] = [
  ...coreTools,
  ...roomTools,
  ...warpTools,
  ...teamTools,
  searchTool,
  ...studioTools,
  createPrivateAppTool,
  ...agentKnowledgeTools,
  ...inboxTools,
  ...artifactTools,
  ...hookTools,
  ...automationTools,
  ...formTools,
  ...shopTools,
  ...webhookTools,
  ...catalogTools,
];

/** The tools a connection sees: the core ones and those of the installed apps (or of one app, at /mcp/apps/{slug}). */
export function toolsFor(installed: Set<AppSlug>, onlyApp?: AppSlug): Tool[] {
  return TOOLS.filter((t) =>
    onlyApp ? t.app === onlyApp || t.name === 'check_warp_executions' : t.app === 'core' || installed.has(t.app),
  );
}

// Weak: a private app's tools are made per request.
const jsonSchemas = new WeakMap<Tool, { type: 'object'; [key: string]: unknown }>();

/** The JSON Schema a client sees, generated (once per tool) from the zod schema the service (and the HTTP API) validates with. */
export function inputJsonSchema(t: Tool): { type: 'object'; [key: string]: unknown } {
  let schema = jsonSchemas.get(t);
  if (!schema) {
    const { $schema: _ignored, ...generated } = z.toJSONSchema(t.input, {
      io: 'input',
      unrepresentable: 'any',
    }) as Record<string, unknown>;
    schema = { ...generated, type: 'object' };
    jsonSchemas.set(t, schema);
  }
  return schema;
}
