import cors from 'cors';
import express, { Express } from 'express';
import { z } from 'zod';
import type { AppContext } from '../services/platform/context';
import { errorHandler, notFoundRoute } from './http';
import { measureRequests, metricsRoute } from './metrics';
import { requestLog } from './requestLog';
import { buildOpenApiDocument } from './openapi';
import { authRouter } from '../auth/router';
import { mcpRouter } from '../mcp/router';
import { roomStreamRouter } from './roomStream';
import { docsRouter } from './docsPage';
import { consoleRouter, SESSION_COOKIE } from '../console/router';
import { defineRoute, json, registerRoutes, Route } from './routeTable';
import { adminRoutes } from './routes/admin';
import { agents } from '../services/agents/agentOperations';
import { agentKnowledge } from '../services/agents/knowledgeOperations';
import { inbox } from '../services/inbox/operations';
import { rooms } from '../services/rooms/operations';
import { apiTokensRoutes } from './routes/apiTokens';
import { apps } from '../services/agents/appOperations';
import { artifacts } from '../services/deliveries/artifactOperations';
import { campaigns } from '../services/campaigns/operations';
import { segments } from '../services/contacts/segmentOperations';
import { routesOf } from './operationRoutes';
import { contactOrders, shop } from '../services/shop/operations';
import { mediaRoutes } from './routes/media';
import { teamRoutes } from './routes/team';
import { search } from '../services/search/operations';
import { team } from '../services/teams/operations';
import { contacts } from '../services/contacts/operations';
import { jobs } from '../services/jobs/operations';
import { media } from '../services/media/operations';
import { privateApps } from '../services/warps/privateAppOperations';
import { unsubscribeRoutes } from './routes/unsubscribe';
import { approvalPageRoutes } from './routes/approvalPages';
import { warpExecutions } from '../services/deliveries/executionOperations';
import { messageLog } from '../services/deliveries/messageLogOperations';
import { warps } from '../services/catalog/features';
import { webhooksRoutes } from './routes/webhooks';
import { webhooks } from '../services/webhooks/operations';
import { hooks } from '../services/hooks/operations';
import { agentHooksRoutes } from './routes/agentHooks';
import { automations } from '../services/automations/operations';
import { forms } from '../services/forms/operations';
import { formPagesRouter } from './formPages';

/** The route table of /v1: every operation, declared once; Express runs it and the OpenAPI document describes it. */
export function apiRoutes(ctx: AppContext): Route[] {
  return [
    ...routesOf(ctx, team),
    ...teamRoutes(ctx),
    ...routesOf(ctx, search),
    ...routesOf(ctx, agents),
    ...routesOf(ctx, agentKnowledge),
    ...routesOf(ctx, inbox),
    ...routesOf(ctx, rooms),
    ...routesOf(ctx, apps),
    ...routesOf(ctx, contacts),
    ...routesOf(ctx, contactOrders),
    ...routesOf(ctx, jobs),
    ...apiTokensRoutes(ctx),
    ...routesOf(ctx, artifacts),
    ...routesOf(ctx, warpExecutions),
    ...approvalPageRoutes(ctx),
    ...routesOf(ctx, messageLog),
    ...routesOf(ctx, warps),
    ...routesOf(ctx, privateApps),
    ...routesOf(ctx, segments),
    ...routesOf(ctx, campaigns),
    ...webhooksRoutes(ctx),
    ...routesOf(ctx, webhooks),
    ...routesOf(ctx, hooks),
    ...agentHooksRoutes(ctx),
    ...routesOf(ctx, automations),
    ...routesOf(ctx, forms),
    ...routesOf(ctx, shop),
    ...unsubscribeRoutes(ctx),
    ...mediaRoutes(ctx),
    ...routesOf(ctx, media),
    ...adminRoutes(ctx),
  ];
}

/** The table with its own description document, `GET /v1/openapi.json`, which documents itself too. */
export function describedRoutes(ctx: AppContext): Route[] {
  const routes = [
    defineRoute({
      method: 'get',
      path: '/openapi.json',
      tag: 'Reference',
      access: 'public',
      summary: 'This description document (OpenAPI 3.1); a person reads it rendered at /docs',
      responses: { 200: json(z.record(z.string(), z.unknown()), 'The OpenAPI document') },
      handler: async () => ({ status: 200, body: openApiDocument }),
    }),
    ...apiRoutes(ctx),
  ];
  // Built from the finished table; the handler above reads it per request, after this line has run.
  const openApiDocument = buildOpenApiDocument(routes, ctx.config.baseUrl, ctx.config.authUrl);
  return routes;
}

/** The one Express app behind every surface: OAuth and discovery, MCP under /mcp, the HTTP API under /v1. */
export function createApp(ctx: AppContext): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  app.set('query parser', 'simple');
  app.use(requestLog(ctx.logger, REQUEST_LOG));
  app.use(measureRequests);
  app.get('/metrics', metricsRoute(ctx.config.METRICS_TOKEN));

  // Within a second whatever is down or frozen, naming what is: a probe that hangs is no probe.
  app.get('/healthz', async (_req, res) => {
    const [db, temporal] = await Promise.all([
      answersWithin(ctx.db.raw('SELECT 1'), HEALTH_TIMEOUT_MS),
      ctx.temporal.healthy(HEALTH_TIMEOUT_MS),
    ]);
    const down = [...(db ? [] : ['database']), ...(temporal ? [] : ['temporal'])];
    res.status(down.length ? 503 : 200).json({ ok: !down.length, db, temporal, down });
  });

  // Browser-based MCP hosts (the MCP Inspector, web agents) discover, register, exchange codes and
  // call MCP from another origin; these answer any origin, with bearer tokens and no cookies.
  app.use(
    ['/.well-known', '/oauth/register', '/oauth/token', '/mcp', '/agents/stream'],
    cors({
      origin: '*',
      allowedHeaders: [
        'Authorization',
        'Content-Type',
        'Accept',
        'Mcp-Protocol-Version',
        'Mcp-Session-Id',
        'Last-Event-ID',
        'X-Team-Slug',
      ],
      exposedHeaders: [
        'WWW-Authenticate',
        'Mcp-Session-Id',
        'Mcp-Protocol-Version',
        'RateLimit-Limit',
        'RateLimit-Remaining',
        'RateLimit-Reset',
        'Retry-After',
      ],
      maxAge: 600,
    }),
  );
  // The API first: its requests are most of the traffic, and each router ahead of it is a walk
  // through that router's layers for nothing (none of them serves a path under /v1).
  const v1 = express.Router();
  registerRoutes(v1, ctx, describedRoutes(ctx));
  app.use('/v1', v1);
  app.use(authRouter(ctx));
  app.use(mcpRouter(ctx));
  app.use(roomStreamRouter(ctx));
  // The Forms app's public sign-up pages at {site_url}/forms.
  app.use(formPagesRouter(ctx));
  // The web console: its pages, and the same /v1 router under /app/api with the person's session.
  app.use(consoleRouter(ctx, v1));
  app.use(docsRouter(`${new URL(ctx.config.baseUrl).pathname}/openapi.json`));

  app.use(notFoundRoute);
  app.use(errorHandler);
  return app;
}

const HEALTH_TIMEOUT_MS = 800;

/** A request's headers as logged: no bearer, no console session cookie, no CSRF token. */
export function redactHeaders(headers: Record<string, unknown>): Record<string, unknown> {
  const out = { ...headers };
  if (out.authorization) out.authorization = '[redacted]';
  if (out['x-csrf-token']) out['x-csrf-token'] = '[redacted]';
  if (typeof out.cookie === 'string')
    out.cookie = out.cookie.replace(new RegExp(`(${SESSION_COOKIE}=)[^;]*`, 'g'), '$1[redacted]');
  return out;
}

/** The request log: every request but the probes, credentials redacted. */
export const REQUEST_LOG: Parameters<typeof requestLog>[1] = {
  ignore: (url) => url === '/healthz' || url === '/metrics',
  // Credentials never reach the logs: a room key rides in the stream URL, a bearer in its header,
  // the console's session (an API token) in a cookie.
  redact: (req) => ({
    ...req,
    url: req.url.replace(/([?&]key=)[^&]*/g, '$1[redacted]'),
    ...(req.query !== undefined ? { query: redactQuery(req.query) } : {}),
    headers: redactHeaders(req.headers),
  }),
};

const redactQuery = (query: unknown) =>
  query && typeof query === 'object' && 'key' in query ? { ...query, key: '[redacted]' } : query;

function answersWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.then(
      () => true,
      () => false,
    ),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
