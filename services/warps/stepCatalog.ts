import type { Tool } from '../catalog/tool';
import { installedApps } from '../agents/apps';
import { requestApproval } from '../deliveries/warps';
import { AppError } from '../platform/errors';
import { runBuiltInWarp } from './execute';
import type { StepCatalog } from './privateWarps';
import { WARPS } from '../catalog/warps';

/**
 * What a private warp's tool step can call: every tool of the catalog (a sensitive one asks for
 * approval in manual mode, as over MCP) and every built-in warp. `tools` is read at each call: the
 * catalog (services/catalog/features.ts) holds this file's warps' own tools too.
 */
export function stepCatalogOf(tools: () => readonly Tool[]): StepCatalog {
  return {
    names: () => [...tools().map((t) => t.name), ...WARPS.map((w) => w.name)],
    find(name) {
      const w = WARPS.find((x) => x.name === name);
      // A warp that ran at once answers its result (what "$.steps.<id>…" maps); one that waits or runs on, its execution.
      if (w)
        return {
          name,
          input: w.input,
          startsWork: w.approval !== 'none' || w.startsWork === true,
          run: async (call, args) => {
            const answer = await runBuiltInWarp(call, w, args);
            return answer.status === 'succeeded' ? answer.result : answer;
          },
        };
      const t = tools().find((x) => x.name === name);
      if (!t) return undefined;
      return {
        name,
        input: t.input,
        startsWork: Boolean(t.warp) || t.startsWork === true || t.inTurns === 'startsWork',
        async run(call, args, idempotencyKey) {
          const installed = await installedApps(call.ctx.db, call.team.id);
          if (t.app !== 'core' && !installed.has(t.app))
            throw new AppError(
              'app_not_installed',
              `Tool ${name} needs the ${t.app} app, which the team has not installed`,
            );
          const caller = { team: call.team, agentId: call.agent.id, userId: call.principal.userId };
          if (t.warp && call.agent.mode === 'manual') return requestApproval(call.ctx, caller, t.warp, args);
          return t.run(
            {
              ctx: call.ctx,
              team: call.team,
              principal: call.principal,
              agentId: call.agent.id,
              installed,
              idempotencyKey,
            },
            args,
          );
        },
      };
    },
  };
}
