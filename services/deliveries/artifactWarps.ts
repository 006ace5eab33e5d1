import { z } from 'zod';
import {
  artifactCreateSchema,
  artifactListQuerySchema,
  artifactUpdateSchema,
  createArtifact,
  getArtifact,
  listArtifacts,
  updateArtifact,
} from './artifacts';
import { deliverArtifacts, deliverRequestSchema } from './deliver';
import { sensitiveWarp, warp, Warp, warpId } from '../warps/warpKit';

/** The artifact warps (spec, MCP-behaviour rule 6): the artifact tools' rules, by name. */
export const artifactWarps: Warp[] = [
  warp({
    name: 'artifact-create',
    description: 'Creates an artifact (a draft unless status "ready"); answers the artifact.',
    input: artifactCreateSchema,
    approval: 'none',
    run: async ({ ctx, team }, input) => ({
      artifact: await createArtifact(ctx.db, team.id, input, ctx.config.baseUrl),
    }),
  }),
  warp({
    name: 'artifact-list',
    description: "The team's artifacts, optionally only the given ids (a list, or comma-separated), a page at a time.",
    input: artifactListQuerySchema.extend({
      ids: z
        .union([z.array(warpId).max(100), artifactListQuerySchema.shape.ids.unwrap()])
        .optional()
        .describe('Only these artifacts (a list of ids, or a comma-separated string)'),
    }),
    approval: 'none',
    run: async ({ ctx, team }, query) => ({ ...(await listArtifacts(ctx.db, team.id, query, ctx.config.baseUrl)) }),
  }),
  warp({
    name: 'artifact-get',
    description: 'One artifact with its media, status and delivery time.',
    input: z.strictObject({ artifactId: warpId }),
    approval: 'none',
    run: async ({ ctx, team }, { artifactId }) => ({
      artifact: await getArtifact(ctx.db, team.id, artifactId, ctx.config.baseUrl),
    }),
  }),
  warp({
    name: 'artifact-update',
    description: 'Changes fields of an artifact (status draft→ready makes it deliverable); answers the artifact.',
    input: artifactUpdateSchema.extend({ artifactId: warpId }),
    approval: 'none',
    run: async ({ ctx, team }, { artifactId, ...changes }) => ({
      artifact: await updateArtifact(ctx.db, team.id, artifactId, changes, ctx.config.baseUrl),
    }),
  }),
  sensitiveWarp('artifact-delete', 'Deletes an artifact for good (waits for approval in manual mode).'),
  warp({
    name: 'artifact-deliver',
    description:
      'Delivers ready artifacts, one message per recipient, through the agent integration (its own workflow ' +
      'delivery-<executionId>; waits for approval in manual mode).',
    input: deliverRequestSchema.omit({ agentId: true }),
    approval: 'own-workflow',
    run: async ({ ctx, team, principal, agent, executionId }, request) =>
      (await deliverArtifacts(ctx, team, principal, { ...request, agentId: agent.id }, executionId)).body as Record<
        string,
        unknown
      >,
  }),
];
