import express, { Request, RequestHandler, Response, Router } from 'express';
import { z } from 'zod';
import type { AppContext } from '../services/platform/context';
import { parseOrThrow } from '../services/platform/errors';
import { platformAdminAccess, teamAccess, userAccess } from './auth';
import { jsonBody, requireObjectBody } from './http';

/**
 * Who may call a route, as api/auth.ts gates it: `read`/`write` are team operations
 * (`teamAccess`: bearer credential, `X-Team-Slug`, the team's quota), `user:*` a user's own
 * resources (`userAccess`, no team), `platform-admin` operators only, `public` no credential
 * (webhooks check their own signatures; signed-link pages check the link).
 */
export type RouteAccess = 'read' | 'write' | 'user:read' | 'user:write' | 'platform-admin' | 'public';

/**
 * How a request body arrives. Only `json` bodies are validated before the handler runs; the others
 * are described for the document and read by the handler, because each has to look at the
 * bytes first: a webhook verifies its signature over the raw body, an upload streams a file,
 * a signed-link form answers a person with a page rather than the JSON envelope.
 */
export type RequestBody =
  | {
      kind: 'json';
      schema: z.ZodType;
      optional?: boolean;
      limit?: 'BODY_LIMIT' | 'JOB_BODY_LIMIT';
      /** Runs on the object before `schema`: a refusal more telling than the schema's (an unknown job type). */
      precheck?: (body: Record<string, unknown>) => void;
    }
  | { kind: 'multipart'; schema: z.ZodType; receive: (ctx: AppContext) => RequestHandler }
  | { kind: 'raw'; schema: z.ZodType; contentType: string; limit: string }
  | { kind: 'form'; schema: z.ZodType; limit: string };

export interface ResponseSpec {
  description: string;
  /** Absent only for 204. */
  content?: { type: 'application/json' | 'text/html' | 'application/octet-stream'; schema: z.ZodType };
  headers?: z.ZodObject;
}

export const json = (schema: z.ZodType, description: string, headers?: z.ZodObject): ResponseSpec => ({
  description,
  content: { type: 'application/json', schema },
  ...(headers ? { headers } : {}),
});
export const html = (description: string): ResponseSpec => ({
  description,
  content: { type: 'text/html', schema: z.string() },
});
export const file = (description: string): ResponseSpec => ({
  description,
  content: { type: 'application/octet-stream', schema: z.string().meta({ format: 'binary' }) },
});
export const noContent = (description: string): ResponseSpec => ({ description });
export const locationHeader = z.object({
  location: z.url().describe('The created resource (or, for accepted work, where to poll it)'),
});

/** A status the handler answers itself; errors come from the catalog (services/platform/errorCatalog.ts). */
export type SuccessStatus = 200 | 201 | 202 | 204 | 403 | 409;

type ParsedBody<B extends RequestBody | undefined> = B extends { kind: 'json'; schema: infer S extends z.ZodType }
  ? z.infer<S>
  : B extends { kind: 'raw' }
    ? Buffer
    : unknown;

export interface RouteInput<
  P extends z.ZodObject | undefined,
  Q extends z.ZodObject | undefined,
  H extends z.ZodObject | undefined,
  B extends RequestBody | undefined,
> {
  params: P extends z.ZodObject ? z.infer<P> : Record<string, never>;
  query: Q extends z.ZodObject ? z.infer<Q> : Record<string, never>;
  headers: H extends z.ZodObject ? z.infer<H> : Record<string, never>;
  body: ParsedBody<B>;
  req: Request;
  res: Response;
}

/** What a handler answers with, unless it wrote the response itself (files, pages, idempotent replays). */
export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface Route<
  P extends z.ZodObject | undefined = z.ZodObject | undefined,
  Q extends z.ZodObject | undefined = z.ZodObject | undefined,
  H extends z.ZodObject | undefined = z.ZodObject | undefined,
  B extends RequestBody | undefined = RequestBody | undefined,
> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI style, relative to /v1: `/campaigns/{campaignId}`. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  access: RouteAccess;
  params?: P;
  query?: Q;
  /** Headers the handler reads (the team header is implied by `read`/`write`). */
  headers?: H;
  body?: B;
  /** Every answer the handler itself gives, by status. */
  responses: Partial<Record<SuccessStatus, ResponseSpec>>;
  /** Error statuses this route adds to those its access, parameters and body imply (see errorCatalog). */
  errors?: number[];
  /** Runs before the access gate; used where a signed link replaces the credential. */
  beforeGate?: (ctx: AppContext) => RequestHandler;
  /** Runs before body parsing: page headers (CSP, no-store). */
  middleware?: RequestHandler[];
  handler: (input: RouteInput<P, Q, H, B>) => Promise<Reply | void>;
}

/** Declares a route; the type parameters make the handler's input the schemas' parsed types. */
export function defineRoute<
  P extends z.ZodObject | undefined = undefined,
  Q extends z.ZodObject | undefined = undefined,
  H extends z.ZodObject | undefined = undefined,
  B extends RequestBody | undefined = undefined,
>(route: Route<P, Q, H, B>): Route {
  return route as unknown as Route;
}

/** `/campaigns/{campaignId}` → `/campaigns/:campaignId`. */
export const expressPath = (path: string) => path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');

function gate(ctx: AppContext, access: RouteAccess): RequestHandler[] {
  switch (access) {
    case 'read':
    case 'write':
      return [teamAccess(ctx, access)];
    case 'user:read':
      return [userAccess(ctx, 'read')];
    case 'user:write':
      return [userAccess(ctx, 'write')];
    case 'platform-admin':
      return [platformAdminAccess(ctx)];
    case 'public':
      return [];
  }
}

function bodyParsers(ctx: AppContext, body: RequestBody | undefined): RequestHandler[] {
  switch (body?.kind) {
    case undefined:
      return [];
    case 'json':
      return jsonBody(ctx.config[body.limit ?? 'BODY_LIMIT']);
    case 'multipart':
      return [body.receive(ctx)];
    case 'raw':
      return [express.raw({ type: '*/*', limit: body.limit })];
    case 'form':
      return [express.urlencoded({ extended: false, limit: body.limit })];
  }
}

function parsedBody(req: Request, body: RequestBody | undefined): unknown {
  if (body?.kind === 'json') {
    if (body.optional && req.body === undefined) return parseOrThrow(body.schema, {}, 'body');
    const object = requireObjectBody(req);
    body.precheck?.(object);
    return parseOrThrow(body.schema, object, 'body');
  }
  if (body?.kind === 'raw') return Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  return req.body;
}

/**
 * Puts the table on `router`: per route the gate its access names, the body parser its body
 * kind needs, then validation of params, query, headers and body with their schemas, so the
 * handler gets parsed input (a failure is a 400 `validation_error` naming where).
 */
export function registerRoutes(router: Router, ctx: AppContext, routes: Route[]): void {
  for (const route of routes) {
    const handle: RequestHandler = async (req, res) => {
      const input = {
        params: route.params ? parseOrThrow(route.params, req.params, 'path') : {},
        query: route.query ? parseOrThrow(route.query, req.query, 'query') : {},
        headers: route.headers ? parseOrThrow(route.headers, req.headers, 'header') : {},
        body: parsedBody(req, route.body),
        req,
        res,
      };
      const reply = await route.handler(input as never);
      if (!reply) return;
      for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
      if (reply.body === undefined) res.status(reply.status).end();
      else res.status(reply.status).json(reply.body);
    };
    router[route.method](
      expressPath(route.path),
      ...(route.beforeGate ? [route.beforeGate(ctx)] : []),
      ...gate(ctx, route.access),
      ...(route.middleware ?? []),
      ...bodyParsers(ctx, route.body),
      handle,
    );
  }
}
