import { z } from 'zod';
import type { AppContext } from '../../services/platform/context';
import { pageQuerySchema, pageSchema } from '../../services/platform/pagination';
import { executeAnswerSchema, executeBodySchema, executeWarp, warpCallFor } from '../../services/warps/execute';
import {
  createPrivateWarp,
  listPrivateWarps,
  privateWarpCreateSchema,
  privateWarpSchema,
} from '../../services/warps/privateWarps';
import { stepCatalog } from '../../mcp/warpTools';
import { authOf } from '../auth';
import { defineRoute, json, locationHeader, Route } from '../routeTable';

/** Warps over HTTP: run one by name, and the team's private warps (docs/WARPS.md). */
export function warpsRoutes(ctx: AppContext): Route[] {
  return [
    defineRoute({
      method: 'post',
      path: '/warps/{name}/execute',
      tag: 'Warps',
      access: 'write',
      summary: 'Run a warp (built-in or private) by name with its inputs, as an agent',
      description:
        'Answers 200 with the result of a warp that ran at once, or 202 (Location: the execution) for one that ' +
        'waits for approval (`pending: true`, agent in manual mode) or runs in the background (private warps, ' +
        '`svc-campaign-send-contact`, `artifact-deliver`). Every run is a warp execution. Unknown name: 404 ' +
        '`unknown_warp` listing the known ones; bad inputs: 400 `validation_error` with the schema issues; ' +
        '`svc-automation-enroll`: 422 `unknown_automation` (not an automation of the team) or `automation_disabled`.',
      params: z.object({ name: z.string().min(1).max(100) }),
      body: { kind: 'json', schema: executeBodySchema },
      responses: {
        200: json(executeAnswerSchema, 'The warp ran: its execution and result'),
        202: json(executeAnswerSchema, 'Waiting for approval, or running in the background', locationHeader),
      },
      errors: [404, 409, 422, 503],
      handler: async ({ req, params, body }) => {
        const { team, principal } = authOf(req);
        const answer = await executeWarp(
          await warpCallFor(ctx, team, principal, body.agentId),
          params.name,
          body.inputs,
        );
        return answer.status === 'succeeded' || answer.status === 'failed'
          ? { status: 200, body: answer }
          : { status: 202, body: answer, headers: { Location: answer.statusUrl } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/warps/private',
      tag: 'Warps',
      access: 'write',
      summary: "Create a private warp: the team's own procedure of tool, wait, if and prompt steps",
      description:
        'Refused with 422 `invalid_private_warp` (`details.issues`) when a step names an unknown tool or a ' +
        'reference names an undeclared input or no earlier step; 409 `conflict` when the name is taken.',
      body: { kind: 'json', schema: privateWarpCreateSchema },
      responses: { 201: json(privateWarpSchema, 'The private warp') },
      errors: [409, 422],
      handler: async ({ req, body }) => {
        const { team, principal } = authOf(req);
        return { status: 201, body: await createPrivateWarp(ctx, team, principal.userId, body, stepCatalog) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/warps/private',
      tag: 'Warps',
      access: 'read',
      summary: "List the team's private warps, newest first",
      query: pageQuerySchema,
      responses: { 200: json(pageSchema(privateWarpSchema), 'A page of private warps') },
      handler: async ({ req, query }) => ({
        status: 200,
        body: await listPrivateWarps(ctx, authOf(req).team.id, query),
      }),
    }),
  ];
}
