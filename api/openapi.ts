import { OpenApiGeneratorV31, OpenAPIRegistry, ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { errorBodySchema } from '../services/platform/errors';
import { codesWithStatus } from '../services/platform/errorCatalog';
import { PROBLEM_JSON, problemSchema } from './problemJson';
import type { Route } from './routeTable';

/** The shared error body, one component every error response refers to (zod's registry holds its id once per process). */
const errorBody = errorBodySchema.meta({
  id: 'Error',
  description: 'The error envelope of every failure: { error: { code, message, details? } }',
});
/** The same error as RFC 9457 problem details, for a client whose Accept prefers application/problem+json. */
const problemBody = problemSchema.meta({
  id: 'Problem',
  description:
    'The error as application/problem+json (RFC 9457), answered when Accept prefers it: type, title, status, ' +
    'detail (the message), instance, and the code and details as extension members',
});

/**
 * The error statuses a route can answer besides its own responses: what its access gate, its
 * inputs and its body parser can refuse, plus those it declares (`errors`). 500 and 503
 * (`database_unavailable`) can happen anywhere.
 */
export function errorStatusesOf(route: Route): number[] {
  const statuses = new Set<number>([500, 503, ...(route.errors ?? [])]);
  const add = (...more: number[]) => more.forEach((s) => statuses.add(s));
  if (route.access !== 'public') add(401, 403, 429);
  if (route.access === 'read' || route.access === 'write') add(400);
  if (route.params) add(404);
  if (route.query || route.headers) add(400);
  if (route.body) add(400, 413, 415);
  for (const own of Object.keys(route.responses)) statuses.delete(Number(own));
  return [...statuses].sort();
}

/**
 * The API's description document (OpenAPI 3.1, version 1.0.0 as the spec says), generated from
 * the route table that Express runs: the same zod schemas validate requests and describe them.
 */
export function buildOpenApiDocument(routes: Route[], baseUrl: string, authUrl: string) {
  const registry = new OpenAPIRegistry();
  const bearer = registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'An API token (`npm run cli -- bootstrap`, or POST /api-tokens); the team comes from X-Team-Slug.',
  });
  const scopes = { 'mcp:read': 'read', 'mcp:write': 'write', 'mcp:use': 'read and write' };
  const oauth = registry.registerComponent('securitySchemes', 'oauth2', {
    type: 'oauth2',
    description:
      'OAuth 2 access token; it acts for the one team it was granted for (X-Team-Slug may be left out; when ' +
      'sent it must name that team).',
    flows: {
      authorizationCode: {
        authorizationUrl: `${authUrl}/oauth/authorize`,
        tokenUrl: `${authUrl}/oauth/token`,
        refreshUrl: `${authUrl}/oauth/token`,
        scopes,
      },
      clientCredentials: { tokenUrl: `${authUrl}/oauth/token`, scopes },
    },
  });
  const security = {
    read: [{ [bearer.name]: [] }, { [oauth.name]: ['mcp:read'] }, { [oauth.name]: ['mcp:use'] }],
    write: [{ [bearer.name]: [] }, { [oauth.name]: ['mcp:write'] }, { [oauth.name]: ['mcp:use'] }],
    apiToken: [{ [bearer.name]: [] }],
    none: [],
  };
  // Required as the spec says; the server also accepts an OAuth access token without it (the token names its team).
  const teamHeader = z.object({
    'x-team-slug': z
      .string()
      .describe(
        'The team the request acts for. Needed with an API token; an OAuth access token may leave it out (it ' +
          'acts for its own team), and if it sends it, it must name that team',
      ),
  });

  for (const route of routes) {
    const teamRoute = route.access === 'read' || route.access === 'write';
    const headers = teamRoute ? (route.headers ? teamHeader.extend(route.headers.shape) : teamHeader) : route.headers;
    const responses: Record<string, ResponseConfig> = {};
    for (const [status, spec] of Object.entries(route.responses)) {
      responses[status] = {
        description: spec!.description,
        ...(spec!.headers ? { headers: spec!.headers } : {}),
        ...(spec!.content ? { content: { [spec!.content.type]: { schema: spec!.content.schema } } } : {}),
      };
    }
    for (const status of errorStatusesOf(route)) {
      const codes = codesWithStatus(status);
      if (!codes.length)
        throw new Error(
          `${route.method.toUpperCase()} ${route.path} can answer ${status}, which the error catalog has no code for`,
        );
      responses[status] = {
        description: codes.map((c) => `\`${c}\``).join(', '),
        content: { 'application/json': { schema: errorBody }, [PROBLEM_JSON]: { schema: problemBody } },
      };
    }
    const body = route.body;
    registry.registerPath({
      method: route.method,
      path: route.path,
      operationId: `${route.method}${route.path.replace(/\{([^}]+)\}/g, 'By-$1').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: [route.tag],
      security:
        teamRoute || route.access === 'user:read' || route.access === 'user:write'
          ? security[route.access.endsWith('read') ? 'read' : 'write']
          : route.access === 'platform-admin'
            ? security.apiToken
            : security.none,
      request: {
        ...(headers ? { headers } : {}),
        ...(route.params ? { params: route.params } : {}),
        ...(route.query ? { query: route.query } : {}),
        ...(body
          ? {
              body: {
                required: !(body.kind === 'json' && body.optional),
                content: {
                  [body.kind === 'json'
                    ? 'application/json'
                    : body.kind === 'multipart'
                      ? 'multipart/form-data'
                      : body.kind === 'form'
                        ? 'application/x-www-form-urlencoded'
                        : body.contentType]: { schema: body.schema },
                },
              },
            }
          : {}),
      },
      responses,
    });
  }

  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Team Agent Platform API',
      version: '1.0.0',
      description:
        'The HTTP API under /v1. Every error is `{ "error": { "code", "message", "details"? } }`, or, with ' +
        '`Accept: application/problem+json`, RFC 9457 problem details carrying the same code and details; ' +
        'the codes and when each is answered are in docs/API.md.',
    },
    servers: [{ url: baseUrl }],
  });
}
