import { pageQuerySchema } from '../services/platform/pagination';
import { createSegment, listSegments, segmentCreateSchema } from '../services/contacts/segments';
import { PENDING_NOTE, sensitiveTool, tool, Tool } from './toolKit';

/** The Contacts app: segments. */
export const contactTools: Tool[] = [
  tool({
    name: 'list_segments',
    title: 'List segments',
    description:
      "The team's segments (saved audiences: tag, property, consent and activity conditions), a page at a time.",
    app: 'contacts',
    access: 'read',
    input: pageQuerySchema,
    chargeInRead: true,
    run: ({ ctx, team, rider }, page) => listSegments(ctx.db, team.id, page, rider),
  }),
  tool({
    name: 'create_segment',
    title: 'Create a segment',
    description:
      'Saves an audience: a name, and conditions combined with match "all" or "any". Segments cannot be ' +
      'updated; create a new one and delete the old.',
    app: 'contacts',
    access: 'write',
    input: segmentCreateSchema,
    run: ({ ctx, team }, input) => createSegment(ctx.db, team.id, input),
  }),
  sensitiveTool('segment-delete', {
    name: 'delete_segment',
    title: 'Delete a segment',
    description: `Deletes a segment that no unsent campaign uses. ${PENDING_NOTE}`,
    app: 'contacts',
  }),
];
