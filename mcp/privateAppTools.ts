import type { AppContext } from '../services/platform/context';
import { executeWarp, warpCallFor } from '../services/warps/execute';
import { createPrivateApp, privateAppCreateSchema, privateAppWarps } from '../services/warps/privateApps';
import { inputsSchema } from '../services/warps/privateWarps';
import { tool, Tool } from './toolKit';

/** `create_private_app`: a core tool (the app's own endpoint is served by `privateAppTools`). */
export const createPrivateAppTool: Tool = tool({
  name: 'create_private_app',
  title: 'Create a private app',
  description:
    "Bundles some of the team's private warps (list_private_warps) as an app: an MCP endpoint at the answer's " +
    'url ({mcp_url}/apps/<slug>) whose tools are those warps, for people or agents that should run only them. ' +
    'Creating it again with the same slug, name and warps answers the same app.',
  app: 'core',
  access: 'write',
  input: privateAppCreateSchema,
  run: ({ ctx, team, principal }, input) => createPrivateApp(ctx, team, principal.userId, input),
});

const RUNS_IN_BACKGROUND =
  'It runs in the background: the answer is { executionId, status: "running", statusUrl }; poll ' +
  'check_warp_executions with the executionId for its result.';

/**
 * The tools of `{mcp_url}/apps/{slug}` for a private app: each warp a tool (its inputs the
 * arguments), run by `execute` as the connected agent, plus `check_warp_executions`. Undefined: the
 * team has no such app.
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
