import { z } from 'zod';
import type { AppSlug } from '../services/agents/apps';
import type { AppContext, TeamRef } from '../services/platform/context';
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
}

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
  run(call: ToolCall, args: z.infer<S>): Promise<unknown>;
}

export const tool = <S extends z.ZodType>(definition: Tool<S>): Tool => definition as unknown as Tool;

/** A sensitive write: its arguments and its effect are the warp's, one rule for MCP and approvals. */
export const sensitiveTool = (
  warp: SensitiveWarp,
  definition: Omit<Tool, 'input' | 'run' | 'warp' | 'access'>,
): Tool => ({
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
