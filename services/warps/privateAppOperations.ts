import { z } from 'zod';
import { tool, Tool } from '../catalog/tool';
import type { AppContext } from '../platform/context';
import { defineOperation, Feature } from '../platform/operation';
import { pageSchema } from '../platform/pagination';
import { executeWarp, warpCallFor } from './execute';
import {
  createPrivateApp,
  deletePrivateApp,
  listPrivateApps,
  privateAppCreatedSchema,
  privateAppCreateSchema,
  privateAppListQuerySchema,
  privateAppSchema,
  privateAppWarps,
} from './privateApps';
import { inputsSchema } from './privateWarps';

const tag = 'Warps';

/** Private apps: a team's private warps bundled at {mcp_url}/apps/{appSlug} (their tools: `privateAppTools` below). */
export const privateApps: Feature = {
  name: 'privateApps',
  operations: [
    defineOperation({
      name: 'privateApps.list',
      access: { level: 'read', app: 'core' },
      output: pageSchema(privateAppSchema),
      handler: (ctx, { team }, page) => listPrivateApps(ctx, team.id, page),
      http: {
        method: 'get',
        path: '/private-apps',
        tag,
        summary: "The team's private apps (its private warps bundled at {mcp_url}/apps/{appSlug}), newest first",
        status: 200,
        answer: 'A page of private apps',
        query: privateAppListQuerySchema,
      },
    }),
    defineOperation({
      name: 'privateApps.create',
      access: { level: 'write', app: 'core' },
      input: privateAppCreateSchema,
      output: privateAppCreatedSchema,
      handler: (ctx, { team, principal }, input) => createPrivateApp(ctx, team, principal.userId, input),
      http: {
        method: 'post',
        path: '/private-apps',
        tag,
        summary: 'Bundle private warps as an app served at {mcp_url}/apps/{appSlug} (create_private_app)',
        status: 201,
        answer: 'The app and its MCP url',
        body: { schema: privateAppCreateSchema },
        reply: (answer) => ({ status: answer.created ? 201 : 200, body: answer }),
        otherAnswers: {
          200: [privateAppCreatedSchema, 'A retry: the app with this slug, name and warps already exists'],
        },
      },
      mcp: {
        name: 'create_private_app',
        title: 'Create a private app',
        description:
          "Bundles some of the team's private warps (list_private_warps) as an app: an MCP endpoint at the answer's " +
          'url ({mcp_url}/apps/<slug>) whose tools are those warps, for people or agents that should run only them. ' +
          'Creating it again with the same slug, name and warps answers the same app.',
      },
    }),
    defineOperation({
      name: 'privateApps.delete',
      access: { level: 'write', app: 'core' },
      handler: (ctx, { team }, { appSlug }) => deletePrivateApp(ctx, team.id, appSlug),
      http: {
        method: 'delete',
        path: '/private-apps/{appSlug}',
        tag,
        summary: 'Remove a private app (its warps stay); its MCP endpoint answers 404 from now on',
        status: 204,
        answer: 'Removed',
        params: z.object({ appSlug: z.string().max(100) }),
      },
    }),
  ],
};

const RUNS_IN_BACKGROUND =
  'It runs in the background: the answer is { executionId, status: "running", statusUrl }; poll ' +
  'check_warp_executions with the executionId for its result.';

/**
 * The tools of `{mcp_url}/apps/{slug}` for a private app, made per request: each warp a tool (its
 * inputs the arguments), run by `execute` as the connected agent, plus `checkExecutions`.
 * Undefined: the team has no such app.
 */
export async function privateAppTools(
  ctx: AppContext,
  teamId: string,
  slug: string,
  checkExecutions: Tool,
): Promise<Tool[] | undefined> {
  const warps = await privateAppWarps(ctx, teamId, slug);
  if (!warps) return undefined;
  return [
    ...warps.map((warp) =>
      tool({
        name: warp.name,
        title: warp.name,
        description: `${warp.description ?? `Runs the private warp ${warp.name}.`} ${RUNS_IN_BACKGROUND}`,
        app: 'core',
        access: 'write',
        inTurns: 'never',
        input: inputsSchema(warp),
        run: async (call, inputs) =>
          executeWarp(await warpCallFor(call.ctx, call.team, call.principal, call.agentId), warp.name, inputs),
      }),
    ),
    checkExecutions,
  ];
}
