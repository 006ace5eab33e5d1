import { z } from 'zod';
import {
  artifactCreateSchema,
  artifactListQuerySchema,
  artifactSchema,
  artifactUpdateSchema,
  createArtifact,
  deleteArtifact,
  getArtifact,
  listArtifacts,
  updateArtifact,
} from './artifacts';
import {
  DeliverAnswer,
  deliverAnswerSchema,
  deliverArtifacts,
  deliverRequestSchema,
  deliverySentSchema,
  deliveryWaitingSchema,
} from './deliver';
import { defineOperation, Feature, id, PENDING_NOTE } from '../platform/operation';
import { pageSchema } from '../platform/pagination';

const tag = 'Artifacts';
const artifactParams = z.object({ artifactId: z.string() });

/** Artifacts (client deliverables) and their delivery (the Artifacts app on MCP). */
export const artifacts: Feature = {
  name: 'artifacts',
  operations: [
    defineOperation({
      name: 'artifacts.list',
      access: { level: 'read', app: 'artifacts' },
      input: artifactListQuerySchema,
      output: pageSchema(artifactSchema),
      handler: (ctx, { team }, query) => listArtifacts(ctx.db, team.id, query, ctx.config.baseUrl),
      http: {
        method: 'get',
        path: '/artifacts',
        tag,
        summary: 'List artifacts (filters: status, type, contactId, ids=a,b,c)',
        status: 200,
        answer: 'A page of artifacts',
        query: artifactListQuerySchema,
      },
      mcp: {
        name: 'list_artifacts',
        title: 'List artifacts',
        description:
          "The team's artifacts, filtered by status, type, contactId or ids (comma-separated), a page at a time.",
      },
    }),
    defineOperation({
      name: 'artifacts.create',
      access: { level: 'write', app: 'artifacts' },
      input: artifactCreateSchema,
      output: artifactSchema,
      handler: (ctx, { team }, input) => createArtifact(ctx.db, team.id, input, ctx.config.baseUrl),
      http: {
        method: 'post',
        path: '/artifacts',
        tag,
        summary: 'Create an artifact (draft, or ready)',
        status: 201,
        answer: 'The artifact',
        body: { schema: artifactCreateSchema },
        location: (artifact, ctx) => `${ctx.config.baseUrl}/artifacts/${artifact.id}`,
        errors: [422],
      },
      mcp: {
        name: 'create_artifact',
        title: 'Create an artifact',
        description:
          'Creates a client deliverable (agreement, offer, concept, update, demo, file, other) with an optional ' +
          'url, password, extra link, contact and media (ids from media_upload; url and media are both optional). ' +
          'It is a draft unless status "ready"; only ready artifacts can be delivered.',
      },
    }),
    defineOperation({
      name: 'artifacts.deliver',
      // Not offered in turns until a turn can wait on the delivery's own approval. A private warp's
      // tool step still runs it as one that starts work (its delivery workflow reads its rows).
      access: { level: 'write', app: 'artifacts', inTurns: 'never', startsWork: true },
      input: deliverRequestSchema,
      output: deliverAnswerSchema,
      // On MCP a request without agentId is the connected agent's; on HTTP the sending agent is resolved.
      handler: (ctx, { team, principal, agentId }, request) =>
        deliverArtifacts(ctx, team, principal, { ...request, agentId: request.agentId ?? agentId }),
      http: {
        method: 'post',
        path: '/artifacts/deliver',
        tag,
        summary: 'Deliver artifacts: one message per recipient covering all of them, after the approval step',
        description:
          'Rejected before anything starts: an unknown artifact 404 (`details.artifactIds`), one not ready or ' +
          'sent 409 `invalid_state`, and the 422 rules `no_recipient`, `unknown_contact`, ' +
          '`recipient_unreachable`, `unknown_agent`, `no_agent`, `integration_inactive`.',
        status: 202,
        answer: 'Manual mode: pending approval (or auto mode still sending); Location is the execution',
        body: { schema: deliverRequestSchema },
        answerSchema: deliveryWaitingSchema,
        // Documents the 202's Location; `reply` sets it (and the status) from the outcome.
        location: (outcome) => outcome.statusUrl,
        reply: (outcome) => ({
          status: outcome.httpStatus,
          body: outcome.body,
          ...(outcome.pending || outcome.status !== 'succeeded' ? { headers: { Location: outcome.statusUrl } } : {}),
        }),
        otherAnswers: { 200: [deliverySentSchema, 'Auto mode, sent: the deliveries'] },
        errors: [404, 409, 422, 503],
      },
      mcp: {
        name: 'deliver_artifacts',
        title: 'Deliver artifacts',
        description:
          "The only way to send artifacts to people: one message per recipient (the artifacts' contacts, or " +
          "contactIds) by email, sms or whatsapp, through the agent's integration. Artifacts must be ready. Auto " +
          'mode answers the delivery records; manual mode answers { pending: true, executionId }: poll ' +
          'check_warp_executions and do not repeat the call.',
        result: (outcome: DeliverAnswer) => outcome.body,
      },
    }),
    defineOperation({
      name: 'artifacts.get',
      access: { level: 'read', app: 'artifacts' },
      input: z.strictObject({ artifactId: id('artifact') }),
      output: artifactSchema,
      handler: (ctx, { team }, { artifactId }) => getArtifact(ctx.db, team.id, artifactId, ctx.config.baseUrl),
      http: {
        method: 'get',
        path: '/artifacts/{artifactId}',
        tag,
        summary: 'Read an artifact',
        status: 200,
        answer: 'The artifact',
        params: artifactParams,
      },
      mcp: {
        name: 'get_artifact',
        title: 'Get an artifact',
        description: 'One artifact with its media, status and delivery time.',
      },
    }),
    defineOperation({
      name: 'artifacts.update',
      access: { level: 'write', app: 'artifacts' },
      input: artifactUpdateSchema.extend({ artifactId: id('artifact') }),
      output: artifactSchema,
      handler: (ctx, { team }, { artifactId, ...changes }) =>
        updateArtifact(ctx.db, team.id, artifactId, changes, ctx.config.baseUrl),
      http: {
        method: 'patch',
        path: '/artifacts/{artifactId}',
        tag,
        summary: 'Edit fields or status (draft→ready, any→archived; sent only by a delivery)',
        status: 200,
        answer: 'The artifact',
        params: artifactParams,
        body: { schema: artifactUpdateSchema },
        errors: [409, 422],
      },
      mcp: {
        name: 'update_artifact',
        title: 'Update an artifact',
        description:
          'Changes any field of an artifact (null clears an optional one); status draft→ready makes it ' +
          'deliverable, any→archived retires it. "sent" is reached only by deliver_artifacts.',
      },
    }),
    defineOperation({
      name: 'artifacts.delete',
      access: { level: 'write', app: 'artifacts', sensitive: 'artifact-delete' },
      handler: (ctx, { team }, { artifactId }) => deleteArtifact(ctx.db, team.id, artifactId),
      http: {
        method: 'delete',
        path: '/artifacts/{artifactId}',
        tag,
        summary: 'Delete an artifact for good',
        status: 204,
        answer: 'Deleted',
        params: artifactParams,
      },
      mcp: {
        name: 'delete_artifact',
        title: 'Delete an artifact',
        description: `Deletes an artifact for good. ${PENDING_NOTE}`,
      },
    }),
  ],
};
