import { z } from 'zod';
import { contactSchema } from './contacts';
import { defineOperation, Feature, PENDING_NOTE } from '../platform/operation';
import { pageQuerySchema, pageSchema } from '../platform/pagination';
import {
  createSegment,
  deleteSegment,
  getSegment,
  listSegments,
  segmentContacts,
  segmentCreateSchema,
  segmentSchema,
} from './segments';

const segmentParams = z.object({ segmentId: z.string() });

/** Segments: saved audiences (the Contacts app on MCP). */
export const segments: Feature = {
  name: 'segments',
  operations: [
    defineOperation({
      name: 'segments.list',
      access: { level: 'read', app: 'contacts' },
      input: pageQuerySchema,
      output: pageSchema(segmentSchema),
      handler: (ctx, { team }, page) => listSegments(ctx.db, team.id, page),
      http: {
        method: 'get',
        path: '/segments',
        tag: 'Segments',
        summary: 'List segments',
        status: 200,
        answer: 'A page of segments',
        query: pageQuerySchema,
      },
      mcp: {
        name: 'list_segments',
        title: 'List segments',
        description:
          "The team's segments (saved audiences: tag, property, consent and activity conditions), a page at a time.",
      },
    }),
    defineOperation({
      name: 'segments.create',
      access: { level: 'write', app: 'contacts' },
      input: segmentCreateSchema,
      output: segmentSchema,
      handler: (ctx, { team }, input) => createSegment(ctx.db, team.id, input),
      http: {
        method: 'post',
        path: '/segments',
        tag: 'Segments',
        summary: 'Create a segment: groups of conditions, each all/any (no update exists)',
        status: 201,
        answer: 'The segment',
        body: { schema: segmentCreateSchema },
        errors: [422],
      },
      mcp: {
        name: 'create_segment',
        title: 'Create a segment',
        description:
          'Saves an audience: a name, and conditions combined with match "all" or "any". Segments cannot be ' +
          'updated; create a new one and delete the old.',
      },
    }),
    defineOperation({
      name: 'segments.get',
      access: { level: 'read', app: 'contacts' },
      output: segmentSchema,
      handler: (ctx, { team }, { segmentId }) => getSegment(ctx.db, team.id, segmentId),
      http: {
        method: 'get',
        path: '/segments/{segmentId}',
        tag: 'Segments',
        summary: 'Read a segment',
        status: 200,
        answer: 'The segment',
        params: segmentParams,
      },
    }),
    defineOperation({
      name: 'segments.contacts',
      access: { level: 'read', app: 'contacts' },
      output: pageSchema(contactSchema),
      handler: (ctx, { team }, { segmentId, ...page }) => segmentContacts(ctx.db, team.id, segmentId, page),
      http: {
        method: 'get',
        path: '/segments/{segmentId}/contacts',
        tag: 'Segments',
        summary: 'The contacts a segment holds now',
        status: 200,
        answer: 'A page of contacts',
        params: segmentParams,
        query: pageQuerySchema,
      },
    }),
    defineOperation({
      name: 'segments.delete',
      access: { level: 'write', app: 'contacts', sensitive: 'segment-delete' },
      handler: (ctx, { team }, { segmentId }) => deleteSegment(ctx.db, team.id, segmentId),
      http: {
        method: 'delete',
        path: '/segments/{segmentId}',
        tag: 'Segments',
        summary: 'Delete a segment no unsent campaign uses',
        status: 204,
        answer: 'Deleted',
        params: segmentParams,
        errors: [409],
      },
      mcp: {
        name: 'delete_segment',
        title: 'Delete a segment',
        description: `Deletes a segment that no unsent campaign uses. ${PENDING_NOTE}`,
      },
    }),
  ],
};
