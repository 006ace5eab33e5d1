import { installedApps } from '../services/agents/apps';
import { requestApproval } from '../services/deliveries/warps';
import { AppError } from '../services/platform/errors';
import { pageQuerySchema } from '../services/platform/pagination';
import { executeSchema, executeWarp, runBuiltInWarp, warpCallFor } from '../services/warps/execute';
import {
  createPrivateWarp,
  listPrivateWarps,
  privateWarpCreateSchema,
  StepCatalog,
} from '../services/warps/privateWarps';
import { WARPS } from '../services/warps/registry';
import { PENDING_NOTE, tool, Tool } from './toolKit';
import { TOOLS } from './tools';

/**
 * MCP tools that start a workflow reading their own rows but say no `inTurns: 'startsWork'`
 * (deliver_artifacts is `never` in turns; a job's ingest_knowledge says `startsWork` itself).
 */
const STARTS_WORK = new Set(['deliver_artifacts']);

/**
 * What a private warp's tool step can call: every MCP tool (a sensitive one asks for approval in
 * manual mode, as over MCP) and every built-in warp. Read lazily: this file is part of TOOLS.
 */
export const stepCatalog: StepCatalog = {
  names: () => [...TOOLS.map((t) => t.name), ...WARPS.map((w) => w.name)],
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
    const t = TOOLS.find((x) => x.name === name);
    if (!t) return undefined;
    return {
      name,
      input: t.input,
      startsWork: Boolean(t.warp) || STARTS_WORK.has(name) || t.inTurns === 'startsWork',
      async run(call, args, idempotencyKey) {
        const installed = await installedApps(call.ctx.db, call.team.id);
        if (t.app !== 'core' && !installed.has(t.app))
          throw new AppError(
            403,
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

/** Warps over MCP: `execute` (built-in and private warps) and the team's private warps. */
export const warpTools: Tool[] = [
  tool({
    name: 'execute',
    title: 'Run a warp',
    description:
      'Runs a warp by name with its inputs, as the connected agent: a built-in warp (artifact-create, ' +
      'artifact-list, artifact-get, artifact-update, artifact-delete, artifact-deliver, svc-campaign-create, ' +
      'svc-campaign-audience-preview, svc-campaign-send, svc-campaign-list, svc-campaign-stats, ' +
      "svc-campaign-delete, svc-campaign-send-contact) or one of the team's private warps (list_private_warps). " +
      'Answers { executionId, status, result }; a warp that runs in the background answers status running: ' +
      `poll check_warp_executions. ${PENDING_NOTE}`,
    app: 'core',
    access: 'write',
    // It may start a workflow (a private warp, a send, a delivery): in a turn it runs after its ledger row.
    inTurns: 'startsWork',
    input: executeSchema,
    run: async ({ ctx, team, principal, agentId }, { warp, inputs }) =>
      executeWarp(await warpCallFor(ctx, team, principal, agentId), warp, inputs),
  }),
  tool({
    name: 'create_private_warp',
    title: 'Create a private warp',
    description:
      "Stores a team's own procedure: a name, typed inputs and steps, each one of { tool, input } (an MCP tool " +
      'or built-in warp; "$.inputs.<name>" and "$.steps.<stepId>.<field>" strings are replaced by the input or ' +
      'an earlier step\'s output), { wait: "10m" }, { if: { ref, equals | notEquals | exists }, then, else }, ' +
      '{ prompt: "<text>" }. Checked now: unknown tools and bad references are refused. Run it with execute.',
    app: 'core',
    access: 'write',
    input: privateWarpCreateSchema,
    run: ({ ctx, team, principal }, input) => createPrivateWarp(ctx, team, principal.userId, input, stepCatalog),
  }),
  tool({
    name: 'list_private_warps',
    title: 'List private warps',
    description: "The team's private warps (name, inputs, steps), newest first, a page at a time.",
    app: 'core',
    access: 'read',
    input: pageQuerySchema,
    run: ({ ctx, team }, page) => listPrivateWarps(ctx, team.id, page),
  }),
];
