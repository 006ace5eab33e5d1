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
} from '../../services/deliveries/artifacts';
import type { AppContext } from '../../services/platform/context';
import { deliverRequestSchema, deliverArtifacts } from '../../services/deliveries/deliver';
import { deliverySchema } from '../../services/deliveries/deliveryTypes';
import { pageSchema } from '../../services/platform/pagination';
import { authOf } from '../auth';
import { defineRoute, json, locationHeader, noContent, Route } from '../routeTable';

const artifactParams = z.object({ artifactId: z.string() });
const deliveryStarted = z.object({ executionId: z.string(), status: z.string(), statusUrl: z.url() });
const deliverySent = deliveryStarted.extend({ pending: z.literal(false), deliveries: z.array(deliverySchema) });
const deliveryWaiting = deliveryStarted.extend({ pending: z.boolean() });

/** Artifacts (client deliverables) and their delivery. Mounted once at /v1/artifacts. */
export function artifactsRoutes(ctx: AppContext): Route[] {
  const baseUrl = ctx.config.baseUrl;
  return [
    defineRoute({
      method: 'get',
      path: '/artifacts',
      tag: 'Artifacts',
      access: 'read',
      summary: 'List artifacts (filters: status, type, contactId, ids=a,b,c)',
      query: artifactListQuerySchema,
      responses: { 200: json(pageSchema(artifactSchema), 'A page of artifacts') },
      handler: async ({ req, query }) => ({
        status: 200,
        body: await listArtifacts(ctx.db, authOf(req).team.id, query, baseUrl),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/artifacts',
      tag: 'Artifacts',
      access: 'write',
      summary: 'Create an artifact (draft, or ready)',
      body: { kind: 'json', schema: artifactCreateSchema },
      responses: { 201: json(artifactSchema, 'The artifact', locationHeader) },
      errors: [422],
      handler: async ({ req, body }) => {
        const artifact = await createArtifact(ctx.db, authOf(req).team.id, body, baseUrl);
        return { status: 201, body: artifact, headers: { Location: `${baseUrl}/artifacts/${artifact.id}` } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/artifacts/deliver',
      tag: 'Artifacts',
      access: 'write',
      summary: 'Deliver artifacts: one message per recipient covering all of them, after the approval step',
      description:
        'Rejected before anything starts: an unknown artifact 404 (`details.artifactIds`), one not ready or ' +
        'sent 409 `invalid_state`, and the 422 rules `no_recipient`, `unknown_contact`, ' +
        '`recipient_unreachable`, `unknown_agent`, `no_agent`, `integration_inactive`.',
      body: { kind: 'json', schema: deliverRequestSchema },
      responses: {
        200: json(deliverySent, 'Auto mode, sent: the deliveries'),
        202: json(
          deliveryWaiting,
          'Manual mode: pending approval (or auto mode still sending); Location is the execution',
          locationHeader,
        ),
      },
      errors: [404, 409, 422, 503],
      handler: async ({ req, body }) => {
        const { team, principal } = authOf(req);
        const outcome = await deliverArtifacts(ctx, team, principal, body);
        const headers: Record<string, string> =
          outcome.pending || outcome.status !== 'succeeded' ? { Location: outcome.statusUrl } : {};
        return { status: outcome.httpStatus, body: outcome.body, headers };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/artifacts/{artifactId}',
      tag: 'Artifacts',
      access: 'read',
      summary: 'Read an artifact',
      params: artifactParams,
      responses: { 200: json(artifactSchema, 'The artifact') },
      handler: async ({ req, params }) => ({
        status: 200,
        body: await getArtifact(ctx.db, authOf(req).team.id, params.artifactId, baseUrl),
      }),
    }),
    defineRoute({
      method: 'patch',
      path: '/artifacts/{artifactId}',
      tag: 'Artifacts',
      access: 'write',
      summary: 'Edit fields or status (draft→ready, any→archived; sent only by a delivery)',
      params: artifactParams,
      body: { kind: 'json', schema: artifactUpdateSchema },
      responses: { 200: json(artifactSchema, 'The artifact') },
      errors: [409, 422],
      handler: async ({ req, params, body }) => ({
        status: 200,
        body: await updateArtifact(ctx.db, authOf(req).team.id, params.artifactId, body, baseUrl),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/artifacts/{artifactId}',
      tag: 'Artifacts',
      access: 'write',
      summary: 'Delete an artifact for good',
      params: artifactParams,
      responses: { 204: noContent('Deleted') },
      handler: async ({ req, params }) => {
        await deleteArtifact(ctx.db, authOf(req).team.id, params.artifactId);
        return { status: 204 };
      },
    }),
  ];
}
