import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { mcpToolCalls } from '../api/metrics';
import { AppSlug } from '../services/agents/apps';
import { chargeCredits, CREDIT_COST } from '../services/platform/credits';
import {
  AppError,
  databaseUnavailable,
  ErrorBody,
  unstorableValue,
  validationError,
} from '../services/platform/errors';
import { requestApproval } from '../services/deliveries/warps';
import { caller, inputJsonSchema, Tool, ToolCall, TOOLS, toolsFor } from './tools';

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

/** What one connection (one HTTP request, stateless) may use. */
export interface Connection extends Omit<ToolCall, 'agentId'> {
  agent: { id: string; mode: 'auto' | 'manual' };
  /** Set at /mcp/apps/{slug}: that app's tools only. */
  onlyApp?: AppSlug;
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
export function buildMcpServer(connection: Connection): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: INSTRUCTIONS,
  });
  const visible = toolsFor(connection.installed, connection.onlyApp);

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
    const result = await callTool(found, connection, request.params.arguments ?? {});
    const error = result.isError ? (result.structuredContent as ErrorBody).error.code : null;
    measure({ outcome: error ?? ((result.structuredContent as { pending?: boolean }).pending ? 'pending' : 'ok') });
    return result;
  });
  return server;
}

/** Validate (nothing charged for bad arguments), charge, then run: the order that keeps credits exact and honest. */
async function callTool(t: Tool, connection: Connection, rawArgs: unknown): Promise<CallToolResult> {
  const parsed = t.input.safeParse(rawArgs);
  if (!parsed.success) return toolError(validationError(parsed.error, 'arguments').toBody());
  try {
    await chargeCredits(connection.ctx.db, connection.team, connection.ctx.config.MCP_CREDITS, CREDIT_COST[t.access]);
    return toolResult(await runTool(t, connection, parsed.data));
  } catch (err) {
    if (err instanceof AppError) return toolError(err.toBody());
    const known = unstorableValue(err) ?? databaseUnavailable(err);
    if (known) return toolError(known.toBody());
    connection.ctx.logger.error({ err, tool: t.name, team: connection.team.slug }, 'MCP tool failed');
    return toolError({
      error: { code: 'internal_error', message: 'The tool failed unexpectedly; the failure is logged on the server' },
    });
  }
}

function runTool(t: Tool, connection: Connection, args: unknown): Promise<unknown> {
  const call: ToolCall = { ...connection, agentId: connection.agent.id };
  if (t.warp && connection.agent.mode === 'manual') return requestApproval(connection.ctx, caller(call), t.warp, args);
  return t.run(call, args);
}

function unknownTool(name: string, connection: Connection): McpError {
  const elsewhere = TOOLS.find((t) => t.name === name);
  if (elsewhere && elsewhere.app !== 'core' && !connection.installed.has(elsewhere.app)) {
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
