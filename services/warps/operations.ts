import { z } from 'zod';
import { connectedAgent, defineOperation, Feature, PENDING_NOTE } from '../platform/operation';
import { pageQuerySchema, pageSchema } from '../platform/pagination';
import { executeAnswerSchema, executeBodySchema, executeSchema, executeWarp, warpCallFor } from './execute';
import {
  createPrivateWarp,
  listPrivateWarps,
  privateWarpCreateSchema,
  privateWarpSchema,
  StepCatalog,
} from './privateWarps';

const tag = 'Warps';

/**
 * Warps: run one by name, and the team's private warps (docs/WARPS.md). `steps` is what a private
 * warp's tool step can call: every tool of the catalog, which holds these operations' tools too,
 * so the catalog hands it in (services/catalog/features.ts).
 */
export const warpsOf = (steps: StepCatalog): Feature => ({
  name: 'warps',
  operations: [
    defineOperation({
      name: 'warps.execute',
      // It may start a workflow (a private warp, a send, a delivery): in a turn it runs after its ledger row.
      access: { level: 'write', app: 'core', inTurns: 'startsWork' },
      output: executeAnswerSchema,
      // On HTTP the agent is the body's (default: the first agent); on MCP the connected one.
      handler: async (ctx, { team, principal }, { name, inputs, agentId }) =>
        executeWarp(await warpCallFor(ctx, team, principal, agentId), name, inputs),
      http: {
        method: 'post',
        path: '/warps/{name}/execute',
        tag,
        summary: 'Run a warp (built-in or private) by name with its inputs, as an agent',
        description:
          'Answers 200 with the result of a warp that ran at once, or 202 (Location: the execution) for one that ' +
          'waits for approval (`pending: true`, agent in manual mode) or runs in the background (private warps, ' +
          '`svc-campaign-send-contact`, `artifact-deliver`). Every run is a warp execution. Unknown name: 404 ' +
          '`unknown_warp` listing the known ones; bad inputs: 400 `validation_error` with the schema issues; ' +
          '`svc-automation-enroll`: 422 `unknown_automation` (not an automation of the team) or `automation_disabled`.',
        status: 202,
        answer: 'Waiting for approval, or running in the background',
        params: z.object({ name: z.string().min(1).max(100) }),
        body: { schema: executeBodySchema },
        location: (answer) => answer.statusUrl,
        reply: (answer) =>
          answer.status === 'succeeded' || answer.status === 'failed'
            ? { status: 200, body: answer }
            : { status: 202, body: answer, headers: { Location: answer.statusUrl } },
        otherAnswers: { 200: [executeAnswerSchema, 'The warp ran: its execution and result'] },
        errors: [404, 409, 422, 503],
      },
      mcp: {
        name: 'execute',
        title: 'Run a warp',
        description:
          'Runs a warp by name with its inputs, as the connected agent: a built-in warp (artifact-create, ' +
          'artifact-list, artifact-get, artifact-update, artifact-delete, artifact-deliver, svc-campaign-create, ' +
          'svc-campaign-audience-preview, svc-campaign-send, svc-campaign-list, svc-campaign-stats, ' +
          "svc-campaign-delete, svc-campaign-send-contact) or one of the team's private warps (list_private_warps). " +
          'Answers { executionId, status, result }; a warp that runs in the background answers status running: ' +
          `poll check_warp_executions. ${PENDING_NOTE}`,
        input: executeSchema,
        toInput: ({ warp, inputs }: z.infer<typeof executeSchema>, caller) => ({
          name: warp,
          inputs,
          agentId: connectedAgent(caller),
        }),
      },
    }),
    defineOperation({
      name: 'warps.createPrivate',
      access: { level: 'write', app: 'core' },
      input: privateWarpCreateSchema,
      output: privateWarpSchema,
      handler: (ctx, { team, principal }, input) => createPrivateWarp(ctx, team, principal.userId, input, steps),
      http: {
        method: 'post',
        path: '/warps/private',
        tag,
        summary: "Create a private warp: the team's own procedure of tool, wait, if and prompt steps",
        description:
          'Refused with 422 `invalid_private_warp` (`details.issues`) when a step names an unknown tool or a ' +
          'reference names an undeclared input or no earlier step; 409 `conflict` when the name is taken.',
        status: 201,
        answer: 'The private warp',
        body: { schema: privateWarpCreateSchema },
        errors: [409, 422],
      },
      mcp: {
        name: 'create_private_warp',
        title: 'Create a private warp',
        description:
          "Stores a team's own procedure: a name, typed inputs and steps, each one of { tool, input } (an MCP tool " +
          'or built-in warp; "$.inputs.<name>" and "$.steps.<stepId>.<field>" strings are replaced by the input or ' +
          'an earlier step\'s output), { wait: "10m" }, { if: { ref, equals | notEquals | exists }, then, else }, ' +
          '{ prompt: "<text>" }. Checked now: unknown tools and bad references are refused. Run it with execute.',
      },
    }),
    defineOperation({
      name: 'warps.listPrivate',
      access: { level: 'read', app: 'core' },
      input: pageQuerySchema,
      output: pageSchema(privateWarpSchema),
      handler: (ctx, { team }, page) => listPrivateWarps(ctx, team.id, page),
      http: {
        method: 'get',
        path: '/warps/private',
        tag,
        summary: "List the team's private warps, newest first",
        status: 200,
        answer: 'A page of private warps',
        query: pageQuerySchema,
      },
      mcp: {
        name: 'list_private_warps',
        title: 'List private warps',
        description: "The team's private warps (name, inputs, steps), newest first, a page at a time.",
      },
    }),
  ],
});
