import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { Request, Response, Router } from 'express';
import { z } from 'zod';
import { sendRateHeaders } from '../api/auth';
import { jsonBody } from '../api/http';
import { findAgent, sendingAgent } from '../services/agents';
import { appSlug, installedApps } from '../services/apps';
import type { AppContext, TeamRef } from '../services/context';
import { AppError, notFound, parseOrThrow } from '../services/errors';
import { Audience, authenticateBearer, authenticateForTeam, grants, Principal } from '../services/principal';
import { teamSlugSchema } from '../services/teams';
import { buildMcpServer, Connection, SERVER_INFO, toolPreview } from './server';

/** MCP as an OAuth protected resource: tokens for {mcp_url}; a 401 points at its metadata (carrying the agent, for the login). */
export function mcpAudience(ctx: AppContext, agent?: string): Audience {
  const query = agent && /^[0-9a-f-]{36}$/i.test(agent) ? `?agent=${agent}` : '';
  return { resource: ctx.config.mcpUrl, resourceMetadataUrl: `${ctx.config.publicUrl}/.well-known/oauth-protected-resource/mcp${query}` };
}

const teamHeaderSchema = z.object({ 'x-team-slug': teamSlugSchema.optional() });

/** The spec: the MCP endpoint requires `mcp:use` (an API token has it). */
function requireMcpUse(principal: Principal, audience: Audience): void {
  if (grants(principal.scopes, 'read') && grants(principal.scopes, 'write')) return;
  throw new AppError(403, 'insufficient_scope', 'The MCP endpoint needs scope mcp:use', { requiredScope: 'mcp:use' }, {
    'WWW-Authenticate': `Bearer realm="team-agent-platform", error="insufficient_scope", scope="mcp:use", resource_metadata="${audience.resourceMetadataUrl}"`,
  });
}

/**
 * The team a connection acts for: an OAuth token's own team; for an API token, `X-Team-Slug`, or
 * the user's only team when the header is absent.
 */
async function connectionTeam(ctx: AppContext, req: Request, principal: Principal, audience: Audience): Promise<TeamRef> {
  if (principal.kind === 'oauth') {
    const team = await ctx.db('teams').where({ id: principal.teamId }).first('id', 'slug', 'plan');
    return { id: team.id, slug: team.slug, plan: team.plan };
  }
  const { 'x-team-slug': slug } = parseOrThrow(teamHeaderSchema, req.headers, 'header');
  if (slug) return (await authenticateForTeam(ctx.db, req.headers.authorization, slug, audience)).team;
  const teams: TeamRef[] = await ctx.db('memberships').join('teams', 'teams.id', 'memberships.team_id')
    .where({ 'memberships.user_id': principal.userId }).limit(2).select('teams.id', 'teams.slug', 'teams.plan');
  if (teams.length === 1) return teams[0];
  throw new AppError(400, 'validation_error', 'This API token\'s user is in several teams (or none): name the team in the X-Team-Slug header', {
    issues: [{ path: 'x-team-slug', message: 'required for an API token whose user is not in exactly one team', code: 'invalid_type' }],
  });
}

/** The agent a connection acts as: the path's or `?agent=`, else the OAuth grant's, else the team's first. */
async function connectionAgent(ctx: AppContext, team: TeamRef, principal: Principal, named: string | undefined) {
  if (named) {
    const agent = await findAgent(ctx.db, team.id, named);
    if (!agent) throw notFound('Agent');
    return { id: agent.id, mode: agent.mode as 'auto' | 'manual' };
  }
  return sendingAgent(ctx.db, team.id, null, principal.kind === 'oauth' ? principal.agentId : null);
}

const methodNotAllowed = (_req: Request, res: Response) => {
  // Stateless Streamable HTTP: every exchange is one POST answered with JSON; there is no stream to open or session to end.
  res.status(405).setHeader('Allow', 'POST').json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: POST JSON-RPC messages to this endpoint' }, id: null });
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

  router.post(paths, async (req, res, next) => {
    const params = req.params as { agentUuid?: string; appSlug?: string };
    const named = params.agentUuid ?? (typeof req.query.agent === 'string' ? req.query.agent : undefined);
    const audience = mcpAudience(ctx, named);
    const principal = await authenticateBearer(ctx.db, req.headers.authorization, audience);
    requireMcpUse(principal, audience);
    const team = await connectionTeam(ctx, req, principal, audience);
    sendRateHeaders(res, await ctx.rateLimits.consumeApiRequest(team));
    const onlyApp = params.appSlug !== undefined ? appSlug(params.appSlug) : undefined;
    const installed = await installedApps(ctx.db, team.id);
    if (onlyApp && !installed.has(onlyApp)) {
      throw new AppError(403, 'app_not_installed', `The team has not installed the ${onlyApp} app`, { app: onlyApp, install: `PUT ${ctx.config.baseUrl}/apps/${onlyApp}` });
    }
    const agent = await connectionAgent(ctx, team, principal, named);
    res.locals.connection = { ctx, team, principal, agent, installed, onlyApp } satisfies Connection;
    next();
  }, ...body, async (req, res) => {
    const server = buildMcpServer(res.locals.connection as Connection);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  router.get(paths, methodNotAllowed);
  router.delete(paths, methodNotAllowed);

  router.get('/.well-known/mcp/server-card.json', (_req, res) => {
    res.json({
      ...SERVER_INFO,
      description: 'Teams, their AI agents, contacts, artifacts and campaigns, over MCP. Tools are listed live per team (core tools plus installed apps); call tools/list.',
      transport: { type: 'streamable-http', url: ctx.config.mcpUrl },
      authentication: {
        required: true,
        schemes: ['oauth2', 'bearer'],
        protectedResourceMetadata: `${ctx.config.publicUrl}/.well-known/oauth-protected-resource/mcp`,
        authorizationServer: `${ctx.config.publicUrl}/.well-known/oauth-authorization-server`,
        scopes: ['mcp:use'],
      },
      capabilities: { tools: { listChanged: false } },
      endpoints: {
        agent: `${ctx.config.mcpUrl}/agents/{agentUuid}`,
        app: `${ctx.config.mcpUrl}/apps/{appSlug}`,
      },
      tools: toolPreview(),
    });
  });
  return router;
}
