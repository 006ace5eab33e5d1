import { z } from 'zod';
import type { AppSlug } from '../services/agents/apps';
import type { AppContext, TeamRef } from '../services/platform/context';
import type { Rider } from '../services/platform/pagination';
import type { Access, Principal } from '../services/identity/principal';
import { runSensitiveWrite, SensitiveWarp, warpArgsSchema } from '../services/deliveries/warps';

/** Who is calling a tool: the team, the agent the connection acts as, and the credential. */
export interface ToolCall {
  ctx: AppContext;
  team: TeamRef;
  principal: Principal;
  agentId: string;
  /** The apps the team has installed (read once per request). */
  installed: Set<AppSlug>;
  /** In an agent's turn: the tool call's id, the key a tool that starts durable work makes its start idempotent with. */
  idempotencyKey?: string;
  /** A caller of another team at a public agent's /mcp/agents/{uuid}: `team` is then the agent's. */
  callerTeamId?: string;
  /** For a tool with `chargeInRead`: the call's credit charge, for the tool's read to carry in its statement. */
  rider?: Rider;
}

/**
 * How an agent's turn may run a tool. `atomic` (the default): its writes commit in the transaction
 * of its tool-ledger row, so it happens exactly once. `startsWork`: it starts durable work in
 * Temporal (a job, a campaign run), which must not start before its rows commit: it runs after its
 * ledger row is marked running, keyed by the call id where it takes a key. `never`: not offered in
 * turns (minting credentials, an agent prompting itself, deliveries until a turn can wait on their
 * own approval).
 */
export type InTurns = 'atomic' | 'startsWork' | 'never';

export interface Tool<S extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  /** What a model reads to call it right: when to use it, what comes back, what to call next. */
  description: string;
  /** `core` tools are always listed; the others once the team installs their app. */
  app: 'core' | AppSlug;
  /** Reads cost 1 credit, writes 2 (and need scope mcp:write). */
  access: Access;
  input: S;
  /** A sensitive write: for an agent in manual mode it waits for a person (answers `pending: true`). */
  warp?: SensitiveWarp;
  /** How an agent's turn runs it (default `atomic`). */
  inTurns?: InTurns;
  /**
   * A read whose statement carries the call's credit charge (`ToolCall.rider`): one round trip,
   * not two. A call that fails before its statement, or in it, is charged on its own, as every
   * other call is.
   */
  chargeInRead?: true;
  run(call: ToolCall, args: z.infer<S>): Promise<unknown>;
}

export const tool = <S extends z.ZodType>(definition: Tool<S>): Tool => definition as unknown as Tool;

/** A sensitive write: its arguments and its effect are the warp's, one rule for MCP and approvals. */
export const sensitiveTool = (
  warp: SensitiveWarp,
  definition: Omit<Tool, 'input' | 'run' | 'warp' | 'access'>,
): Tool => ({
  // An approved write runs in its own execution workflow; run at once (auto mode), it may start a campaign run.
  inTurns: 'startsWork',
  ...definition,
  access: 'write',
  warp,
  input: warpArgsSchema(warp),
  run: (call, args) => runSensitiveWrite(call.ctx, caller(call), warp, args),
});

export const caller = (call: ToolCall) => ({ team: call.team, agentId: call.agentId, userId: call.principal.userId });

export const id = (what: string) => z.string().min(1).max(100).describe(`The ${what} id`);
export const PENDING_NOTE =
  'When the agent is in manual mode this answers { pending: true, executionId } instead: a person approves or ' +
  'declines it; poll check_warp_executions with the executionId and do not repeat the call.';
