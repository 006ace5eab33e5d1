import { Request, Response, Router } from 'express';
import { sendRateHeaders } from '../api/auth';
import { jsonBody } from '../api/http';
import { agentReach } from '../services/agents/access';
import { mcpConnectionScope, mcpScopeOf, mcpScopeQuery, McpScopeRow } from '../services/agents/agents';
import { appSlug, appSlugSchema } from '../services/agents/apps';
import type { AppContext } from '../services/platform/context';
import { AppError, notFound, parseOrThrow } from '../services/platform/errors';
import { openRoom, openRoomSchema } from '../services/rooms/rooms';
import {
  Audience,
  authenticateForMcp,
  authenticateMcpRequest,
  grants,
  Principal,
} from '../services/identity/principal';
import { paymentGateFor } from '../services/payments/gates';
import { answerJsonRpcPost } from './jsonRpcHttp';
import { privateAppTools } from '../services/warps/privateAppOperations';
import { TOOLS } from '../services/catalog/features';
import { buildMcpServer, Connection, OutsideCaller, SERVER_INFO, toolPreview } from './server';

/** Served with every app, native or private, so a client can follow what it started. */
const CHECK_EXECUTIONS = TOOLS.find((t) => t.name === 'check_warp_executions')!;

/** MCP as an OAuth protected resource: tokens for {mcp_url}; a 401 points at its metadata (carrying the agent, for the login). */
export function mcpAudience(ctx: AppContext, agent?: string): Audience {
  const query = agent && /^[0-9a-f-]{36}$/i.test(agent) ? `?agent=${agent}` : '';
  return {
    resource: ctx.config.mcpEndpoint,
    resourceMetadataUrl: `${ctx.config.authUrl}/.well-known/oauth-protected-resource/mcp${query}`,
  };
}

/** The spec: the MCP endpoint requires `mcp:use` (an API token has it). */
function requireMcpUse(principal: Principal, audience: Audience): void {
  if (grants(principal.scopes, 'read') && grants(principal.scopes, 'write')) return;
  throw new AppError(
    'insufficient_scope',
    'The MCP endpoint needs scope mcp:use',
    { requiredScope: 'mcp:use' },
    {
      'WWW-Authenticate': `Bearer realm="team-agent-platform", error="insufficient_scope", scope="mcp:use", resource_metadata="${audience.resourceMetadataUrl}"`,
    },
  );
}

/**
 * The HTTP side of a payment gate: the request's headers in, headers out, and the status. The MCP
 * transport answers a JSON-RPC error with 200; a refused payment is HTTP's 402 as well, so that a
 * client reading statuses (x402's own) sees it.
 */
function paymentHttp(req: Request, res: Response): Pick<OutsideCaller, 'headers' | 'setHeader' | 'refusePayment'> {
  let refused = false;
  const writeHead = res.writeHead;
  res.writeHead = function (this: Response, status: number, ...rest: unknown[]) {
    return (writeHead as (...args: unknown[]) => Response).call(
      this,
      refused && status === 200 ? 402 : status,
      ...rest,
    );
  } as typeof res.writeHead;
  return {
    headers: req.headers,
    setHeader: (name, value) => void res.setHeader(name, value),
    refusePayment: () => {
      refused = true;
    },
  };
}

const methodNotAllowed = (_req: Request, res: Response) => {
  // Stateless Streamable HTTP: every exchange is one POST answered with JSON; there is no stream to open or session to end.
  res
    .status(405)
    .setHeader('Allow', 'POST')
    .json({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Method not allowed: POST JSON-RPC messages to this endpoint' },
      id: null,
    });
};

/**
 * `POST /mcp` (optional `?agent=`), `/mcp/agents/{agentUuid}` and `/mcp/apps/{appSlug}`, over
 * Streamable HTTP in stateless mode, plus the server card.
 */
export function mcpRouter(ctx: AppContext): Router {
  const router = Router();
  const paths = ['/mcp', '/mcp/agents/:agentUuid', '/mcp/apps/:appSlug'];
  // A media_upload carries its file as base64: the body may be a third larger than the file.
  const body = jsonBody(`${Math.ceil(ctx.config.MEDIA_MAX_BYTES * 1.4) + 1024 * 1024}b`);

  router.post(
    paths,
    async (req, res, next) => {
      const params = req.params as { agentUuid?: string; appSlug?: string };
      const named = params.agentUuid ?? (typeof req.query.agent === 'string' ? req.query.agent : undefined);
      const audience = mcpAudience(ctx, named);
      // Only an API token reads the header (an unknown or malformed slug is the 403 of a team it is not in).
      const slug = typeof req.headers['x-team-slug'] === 'string' ? req.headers['x-team-slug'] : undefined;
      // An API token's request is counted, and its scope found, in its authentication's round trip.
      const {
        principal,
        team,
        rate: counted,
        alongside: scopeRow,
      } = await authenticateMcpRequest<McpScopeRow>(
        ctx.db,
        ctx.rateLimits,
        req.headers.authorization,
        slug,
        audience,
        params.agentUuid ? undefined : (teamId) => mcpScopeQuery(teamId, named, null),
      );
      requireMcpUse(principal, audience);
      // Another team's agent: a 404, unless it is public, when this caller may prompt it (and only that).
      const reach = params.agentUuid ? await agentReach(ctx.db, team.id, params.agentUuid) : undefined;
      if (reach?.kind === 'outside') {
        // Rate limits and credits are the caller's own team's: one caller cannot spend the agent's team's.
        sendRateHeaders(res, counted ?? (await ctx.rateLimits.consumeApiRequest(team)));
        res.locals.connection = {
          ctx,
          team: reach.team,
          principal,
          agent: { id: reach.agent.id, mode: reach.agent.mode },
          installed: new Set(),
          callerTeamId: team.id,
          outside: {
            team,
            agentName: reach.agent.name,
            gate: paymentGateFor(ctx, reach.access.paymentGate),
            resource: `${ctx.config.mcpEndpoint}/agents/${reach.agent.id}`,
            ...paymentHttp(req, res),
          },
        } satisfies Connection;
        return next();
      }
      // A native app's slug serves that app's tools; any other, the team's private app of that slug (else 404).
      const native = params.appSlug === undefined || appSlugSchema.safeParse(params.appSlug).success;
      const onlyApp = params.appSlug !== undefined && native ? appSlug(params.appSlug) : undefined;
      const appTools = native ? undefined : await privateAppTools(ctx, team.id, params.appSlug!, CHECK_EXECUTIONS);
      if (!native && !appTools) throw notFound('App');
      const scope = scopeRow && mcpScopeOf(scopeRow, named);
      const [rate, { installed, agent }] = await Promise.all([
        counted ?? ctx.rateLimits.consumeApiRequest(team),
        scope ?? mcpConnectionScope(ctx.db, team.id, principal, named),
      ]);
      sendRateHeaders(res, rate);
      if (onlyApp && !installed.has(onlyApp)) {
        throw new AppError('app_not_installed', `The team has not installed the ${onlyApp} app`, {
          app: onlyApp,
          install: `PUT ${ctx.config.baseUrl}/apps/${onlyApp}`,
        });
      }
      res.locals.connection = {
        ctx,
        team,
        principal,
        agent,
        installed,
        onlyApp,
        privateAppTools: appTools,
      } satisfies Connection;
      next();
    },
    ...body,
    async (req, res) => {
      await answerJsonRpcPost(buildMcpServer(res.locals.connection as Connection), req, res);
    },
  );
  // The spec's `POST {auth_url}/mcp/rooms`: a room and a key to stream it, for the same credentials as /mcp.
  router.post('/mcp/rooms', ...jsonBody(ctx.config.BODY_LIMIT), async (req, res) => {
    const audience = mcpAudience(ctx);
    const slug = typeof req.headers['x-team-slug'] === 'string' ? req.headers['x-team-slug'] : undefined;
    const { principal, team } = await authenticateForMcp(ctx.db, req.headers.authorization, slug, audience);
    requireMcpUse(principal, audience);
    sendRateHeaders(res, await ctx.rateLimits.consumeApiRequest(team));
    const input = parseOrThrow(openRoomSchema, req.body ?? {}, 'body');
    const opened = await openRoom(ctx, team.id, principal, input);
    res.status(opened.created ? 201 : 200).json(opened);
  });
  router.get(paths, methodNotAllowed);
  router.delete(paths, methodNotAllowed);

  router.get('/.well-known/mcp/server-card.json', (_req, res) => {
    res.json({
      ...SERVER_INFO,
      description:
        'Teams, their AI agents, contacts, artifacts and campaigns, over MCP. Tools are listed live per team ' +
        '(core tools plus installed apps); call tools/list.',
      transport: { type: 'streamable-http', url: ctx.config.mcpEndpoint },
      authentication: {
        required: true,
        schemes: ['oauth2', 'bearer'],
        protectedResourceMetadata: `${ctx.config.authUrl}/.well-known/oauth-protected-resource/mcp`,
        authorizationServer: `${ctx.config.authUrl}/.well-known/oauth-authorization-server`,
        scopes: ['mcp:use'],
      },
      capabilities: { tools: { listChanged: false } },
      endpoints: {
        agent: `${ctx.config.mcpEndpoint}/agents/{agentUuid}`,
        app: `${ctx.config.mcpEndpoint}/apps/{appSlug}`,
      },
      tools: toolPreview(),
    });
  });
  return router;
}
