import cors from 'cors';
import express, { Express } from 'express';
import { pinoHttp } from 'pino-http';
import type { AppContext } from '../services/context';
import { errorHandler, notFoundRoute } from './http';
import { measureRequests, metricsRoute } from './metrics';
import { buildOpenApiDocument } from './openapi';
import { authRouter } from '../auth/router';
import { mcpRouter } from '../mcp/router';
import { appsRouter } from './routes/apps';
import { teamRouter } from './routes/team';
import { agentsRouter } from './routes/agents';
import { apiTokensRouter } from './routes/apiTokens';
import { artifactsRouter } from './routes/artifacts';
import { campaignsRouter } from './routes/campaigns';
import { unsubscribeRouter } from './routes/unsubscribe';
import { webhooksRouter } from './routes/webhooks';
import { warpExecutionsRouter } from './routes/warpExecutions';
import { contactsRouter } from './routes/contacts';
import { jobsRouter } from './routes/jobs';
import { mediaRouter } from './routes/media';

/** The one Express app behind every surface: OAuth and discovery, MCP under /mcp, the HTTP API under /v1. */
export function createApp(ctx: AppContext): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  app.set('query parser', 'simple');
  app.use(pinoHttp({ logger: ctx.logger, autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/metrics' } }));
  app.use(measureRequests);
  app.get('/metrics', metricsRoute(ctx.config.METRICS_TOKEN));

  app.get('/healthz', async (_req, res) => {
    const [db, temporal] = await Promise.all([
      ctx.db.raw('SELECT 1').then(() => true, () => false),
      ctx.temporal.healthy(),
    ]);
    res.status(db && temporal ? 200 : 503).json({ ok: db && temporal, db, temporal });
  });

  // Browser-based MCP hosts (the MCP Inspector, web agents) discover, register, exchange codes and
  // call MCP from another origin; these answer any origin, with bearer tokens and no cookies.
  app.use(['/.well-known', '/oauth/register', '/oauth/token', '/mcp'], cors({
    origin: '*',
    allowedHeaders: ['Authorization', 'Content-Type', 'Accept', 'Mcp-Protocol-Version', 'Mcp-Session-Id', 'Last-Event-ID', 'X-Team-Slug'],
    exposedHeaders: ['WWW-Authenticate', 'Mcp-Session-Id', 'Mcp-Protocol-Version', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After'],
    maxAge: 600,
  }));
  app.use(authRouter(ctx));
  app.use(mcpRouter(ctx));

  const v1 = express.Router();
  const openApiDocument = buildOpenApiDocument(ctx.config.baseUrl, ctx.config.publicUrl);
  v1.get('/openapi.json', (_req, res) => res.json(openApiDocument));
  v1.use(teamRouter(ctx));
  v1.use(agentsRouter(ctx));
  v1.use(appsRouter(ctx));
  v1.use(contactsRouter(ctx));
  v1.use(jobsRouter(ctx));
  v1.use(apiTokensRouter(ctx));
  v1.use(artifactsRouter(ctx));
  v1.use(warpExecutionsRouter(ctx));
  v1.use(campaignsRouter(ctx));
  v1.use(webhooksRouter(ctx));
  v1.use(unsubscribeRouter(ctx));
  v1.use(mediaRouter(ctx));
  app.use('/v1', v1);

  app.use(notFoundRoute);
  app.use(errorHandler);
  return app;
}
