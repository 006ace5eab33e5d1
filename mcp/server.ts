import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import {
  CallToolRequestSchema,
  CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { IncomingHttpHeaders } from 'node:http';
import { mcpToolCalls } from '../api/metrics';
import { OUTSIDE_CALLER_TOOLS } from '../services/agents/access';
import { AppSlug } from '../services/agents/apps';
import type { TeamRef } from '../services/platform/context';
import { PaymentRefused, takePayment, type PaymentGate } from '../services/payments/gate';
import { MCP_PAYMENT_RESPONSE_META } from '../services/payments/x402';
import { chargeCredits, CREDIT_COST, isMetered, refundCredits } from '../services/platform/credits';
import { outsideCallerRoom, promptAsOutsider, type PromptInput } from '../services/rooms/promptAgent';
import {
  AppError,
  databaseUnavailable,
  ErrorBody,
  unstorableValue,
  validationError,
} from '../services/platform/errors';
import { requestApproval } from '../services/deliveries/warps';
import { caller, inputJsonSchema, Tool, ToolCall } from '../services/catalog/tool';
import { TOOLS, toolsFor } from '../services/catalog/features';

export const SERVER_INFO = { name: 'team-agent-platform', title: 'Team Agent Platform', version: '1.0.0' };

const INSTRUCTIONS = [
  'Tools act for one team and one agent (svc_agent_info says which, and what is installed).',
  'A read costs 1 credit and a write 2; when credits run out, calls answer credits_exhausted until the next ' +
    'billing cycle.',
  'A write can answer { pending: true, executionId }: a person must approve it; poll check_warp_executions ' +
    'and do not repeat the write.',
  "Errors carry the HTTP API's codes (validation_error, not_found, invalid_state, empty_audience, ...) in " +
    'structuredContent.error.',
].join(' ');

/**
 * A caller of another team at a public agent's `/mcp/agents/{uuid}`: it sees and calls only
 * OUTSIDE_CALLER_TOOLS, with its own team's credits, through the agent's payment gate.
 */
export interface OutsideCaller {
  team: TeamRef;
  agentName: string;
  gate: PaymentGate;
  /** The endpoint's URL: what a payment is for (x402's `resource`). */
  resource: string;
  headers: IncomingHttpHeaders;
  setHeader(name: string, value: string): void;
  /** Answer the request with HTTP 402 (its JSON-RPC error says why). */
  refusePayment(): void;
}

/** What one connection (one HTTP request, stateless) may use. */
export interface Connection extends Omit<ToolCall, 'agentId'> {
  agent: { id: string; mode: 'auto' | 'manual' };
  /** Set at /mcp/apps/{slug}: that app's tools only. */
  onlyApp?: AppSlug;
  /** Set at /mcp/apps/{slug} of a private app: its warps as tools, and check_warp_executions. */
  privateAppTools?: Tool[];
  outside?: OutsideCaller;
}

const asObject = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { data: value };

function toolResult(value: unknown): CallToolResult {
  const structured = asObject(value ?? { ok: true });
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

/** A tool error in the HTTP API's envelope, so a client handles both surfaces alike. */
function toolError(body: ErrorBody): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
}

/**
 * The MCP server of one request: `tools/list` is the live catalog of this team (core tools and
 * installed apps); `tools/call` validates, charges the credits, then runs the tool (or, for a
 * sensitive write of an agent in manual mode, opens an execution that waits for a person).
 */
/**
 * One validator for every request's server: the SDK would otherwise build an Ajv instance, which is
 * costly, per `new Server`; it holds no per-request state.
 */
const jsonSchemaValidator = new AjvJsonSchemaValidator();

export function buildMcpServer(connection: Connection): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator,
  });
  const visible = connection.outside
    ? TOOLS.filter((t) => (OUTSIDE_CALLER_TOOLS as readonly string[]).includes(t.name))
    : (connection.privateAppTools ?? toolsFor(connection.installed, connection.onlyApp));

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: visible.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: inputJsonSchema(t),
      annotations: {
        title: t.title,
        readOnlyHint: t.access === 'read',
        destructiveHint: Boolean(t.warp),
        openWorldHint: false,
      },
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const found = visible.find((t) => t.name === request.params.name);
    if (!found) throw unknownTool(request.params.name, connection);
    const measure = mcpToolCalls.startTimer({ tool: found.name });
    let result: CallToolResult;
    try {
      result = await callTool(found, connection, request.params.arguments ?? {}, request.params._meta);
    } catch (err) {
      if (!(err instanceof PaymentRefused)) throw err;
      measure({ outcome: 'payment_required' });
      // x402 over MCP: a JSON-RPC error, code 402, whose data is the x402 PaymentRequired (plus our code and reason).
      connection.outside?.refusePayment();
      throw new McpError(402, err.message, { code: err.code, ...err.details });
    }
    const error = result.isError ? (result.structuredContent as ErrorBody).error.code : null;
    measure({ outcome: error ?? ((result.structuredContent as { pending?: boolean }).pending ? 'pending' : 'ok') });
    return result;
  });
  return server;
}

/**
 * Validate (nothing charged for bad arguments), charge, then run: the order that keeps credits
 * exact and honest. An unmetered team's read runs beside its charge, which refuses nothing; it is
 * answered once both are done. An outside caller goes through callAsOutsider.
 */
async function callTool(
  t: Tool,
  connection: Connection,
  rawArgs: unknown,
  meta: Record<string, unknown> | undefined,
): Promise<CallToolResult> {
  const parsed = t.input.safeParse(rawArgs);
  if (!parsed.success) return toolError(validationError(parsed.error, 'arguments').toBody());
  if (connection.outside) return callAsOutsider(t, connection, connection.outside, parsed.data as PromptInput, meta);
  const { db, config } = connection.ctx;
  try {
    const charged = chargeCredits(db, connection.team, config.MCP_CREDITS, CREDIT_COST[t.access]);
    if (t.access === 'read' && !isMetered(connection.team, config.MCP_CREDITS)) {
      const [, value] = await Promise.all([charged, runTool(t, connection, parsed.data)]);
      return toolResult(value);
    }
    await charged;
    return toolResult(await runTool(t, connection, parsed.data));
  } catch (err) {
    return failure(err, t, connection);
  }
}

/**
 * `prompt_agent` (OUTSIDE_CALLER_TOOLS) for a caller of another team: everything that can refuse
 * the call is checked before it pays (arguments, its own room), then the agent's payment gate and
 * the caller's own team's credits around it (services/payments/gate.ts › takePayment), then the
 * message is posted with its turn bound to the payment. Once settled, every answer (a reply, or an
 * error such as temporal_unavailable) carries the settlement (`X-PAYMENT-RESPONSE`, `_meta`), and
 * the same payment presented again answers the turn it bought, or posts the message if none was.
 */
async function callAsOutsider(
  t: Tool,
  connection: Connection,
  outside: OutsideCaller,
  input: PromptInput,
  meta: Record<string, unknown> | undefined,
): Promise<CallToolResult> {
  const { ctx, principal, agent } = connection;
  let paid: Record<string, unknown> | undefined;
  const withReceipt = (result: CallToolResult): CallToolResult => (paid ? { ...result, _meta: paid } : result);
  try {
    if (t.name !== 'prompt_agent') throw new Error(`${t.name} is not open to outside callers`);
    const { key } = await outsideCallerRoom(ctx, agent.id, outside.team.id, principal, input.roomId);
    const cost = CREDIT_COST[t.access];
    const { receipt, payment } = await takePayment(
      outside.gate,
      {
        agent: { id: agent.id, teamId: connection.team.id, name: outside.agentName },
        caller: { teamId: outside.team.id, principal, key },
        tool: t.name,
        resource: outside.resource,
        headers: outside.headers,
        meta,
      },
      {
        cost,
        charge: () => chargeCredits(ctx.db, outside.team, ctx.config.MCP_CREDITS, cost),
        refund: (credits) => refundCredits(ctx.db, outside.team, credits),
      },
    );
    if (receipt) {
      for (const [name, header] of Object.entries(receipt.headers)) outside.setHeader(name, header);
      paid = { [MCP_PAYMENT_RESPONSE_META]: receipt.settlement };
    }
    return withReceipt(
      toolResult(await promptAsOutsider(ctx, connection.team, principal, agent.id, outside.team.id, input, payment)),
    );
  } catch (err) {
    if (err instanceof PaymentRefused) throw err;
    return withReceipt(failure(err, t, connection));
  }
}

/** A tool's failure as a tool error: an AppError as it is, a known outage by its code, anything else logged. */
function failure(err: unknown, t: Tool, connection: Connection): CallToolResult {
  if (err instanceof AppError) return toolError(err.toBody());
  const known = unstorableValue(err) ?? databaseUnavailable(err);
  if (known) return toolError(known.toBody());
  connection.ctx.logger.error({ err, tool: t.name, team: connection.team.slug }, 'MCP tool failed');
  return toolError({
    error: { code: 'internal_error', message: 'The tool failed unexpectedly; the failure is logged on the server' },
  });
}

async function runTool(t: Tool, connection: Connection, args: unknown): Promise<unknown> {
  const call: ToolCall = { ...connection, agentId: connection.agent.id };
  if (t.warp && connection.agent.mode === 'manual') return requestApproval(connection.ctx, caller(call), t.warp, args);
  return t.run(call, args);
}

function unknownTool(name: string, connection: Connection): McpError {
  const elsewhere = TOOLS.find((t) => t.name === name);
  if (elsewhere && !connection.outside && elsewhere.app !== 'core' && !connection.installed.has(elsewhere.app)) {
    return new McpError(
      ErrorCode.InvalidParams,
      `Tool ${name} belongs to the ${elsewhere.app} app, which this team has not installed (PUT /v1/apps/${elsewhere.app})`,
    );
  }
  return new McpError(
    ErrorCode.InvalidParams,
    `Unknown tool: ${name}; call tools/list for the tools of this connection`,
  );
}

/** For the server card: every live tool, with the app it needs. */
export const toolPreview = () =>
  TOOLS.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    app: t.app,
    readOnly: t.access === 'read',
  }));
