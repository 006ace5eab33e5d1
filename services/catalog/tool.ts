import { z } from 'zod';
import type { AppSlug } from '../agents/apps';
import type { AppContext, TeamRef } from '../platform/context';
import type { Access, Principal } from '../identity/principal';
import type { Caller, InTurns, Operation } from '../platform/operation';
import { runSensitiveWrite } from '../deliveries/warps';
import { SensitiveWarp, warpArgsSchema } from './sensitiveWrites';

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
}

/** An operation as an agent calls it, on MCP or in a turn: one name, one argument object. */
export interface Tool<S extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
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
  /** See OperationAccess.startsWork. */
  startsWork?: true;
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

/** The operation's caller for a tool call. */
const callerOf = (call: ToolCall): Caller => ({
  team: call.team,
  principal: call.principal,
  agentId: call.agentId,
  installed: call.installed,
  idempotencyKey: call.idempotencyKey,
  callerTeamId: call.callerTeamId,
});

/** The MCP face of an operation, as a tool. */
export function toolOf(operation: Operation): Tool {
  const face = operation.mcp;
  if (!face) throw new Error(`${operation.name} has no MCP face`);
  const { access } = operation;
  const described = { name: face.name, title: face.title, description: face.description, app: access.app };
  if (access.sensitive) {
    return sensitiveTool(access.sensitive as SensitiveWarp, {
      ...described,
      ...(access.inTurns ? { inTurns: access.inTurns } : {}),
    });
  }
  const input = face.input ?? operation.input;
  if (!input) throw new Error(`${operation.name} has no MCP input schema`);
  const toInput = face.toInput as ((args: unknown, caller: Caller) => unknown) | undefined;
  const result = face.result as ((output: unknown) => unknown) | undefined;
  return {
    ...described,
    access: access.level,
    input,
    ...(access.inTurns ? { inTurns: access.inTurns } : {}),
    ...(access.startsWork ? { startsWork: true } : {}),
    run: async (call, args) => {
      const who = callerOf(call);
      const output = await operation.handler(call.ctx, who, toInput ? toInput(args, who) : args);
      return result ? result(output) : output;
    },
  };
}

// Weak: a private app's tools are made per request.
const jsonSchemas = new WeakMap<Tool, { type: 'object'; [key: string]: unknown }>();

/** The JSON Schema a client sees, generated (once per tool) from the zod schema the service (and the HTTP API) validates with. */
export function inputJsonSchema(t: Tool): { type: 'object'; [key: string]: unknown } {
  let schema = jsonSchemas.get(t);
  if (!schema) {
    const { $schema: _ignored, ...generated } = z.toJSONSchema(t.input, {
      io: 'input',
      unrepresentable: 'any',
    }) as Record<string, unknown>;
    schema = { ...generated, type: 'object' };
    jsonSchemas.set(t, schema);
  }
  return schema;
}
