import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import express from 'express';
import { AppError, databaseUnavailable, unstorableValue } from '../services/platform/errors';
import { z } from 'zod';
import type { AppContext } from '../services/platform/context';
import { authOf } from './auth';
import { parseOrThrow } from '../services/platform/errors';
import { idempotencyKeySchema, runIdempotent, StoredResponse } from '../services/platform/idempotency';
import { isErrorBody, sendError } from './problemJson';

/**
 * A JSON body parser whose every failure is answered in the error envelope: a body that is not
 * JSON by its Content-Type (415), malformed JSON (400), or too large (413).
 */
export function jsonBody(limit: string): RequestHandler[] {
  const requireJsonType: RequestHandler = (req, _res, next) => {
    const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    if (hasBody && !req.is('application/json') && !req.is('application/*+json')) {
      throw new AppError('unsupported_media_type', 'Send the request body as application/json', {
        contentType: req.headers['content-type'] ?? null,
      });
    }
    next();
  };
  const limitNesting: RequestHandler = (req, _res, next) => {
    if (nestingDepth(req.body) > MAX_JSON_DEPTH) {
      throw new AppError('validation_error', `Request body is nested deeper than ${MAX_JSON_DEPTH} levels`, {
        issues: [{ path: '', message: 'nested too deeply', code: 'too_deep' }],
      });
    }
    next();
  };
  return [
    requireJsonType,
    express.json({ limit, strict: true, type: ['application/json', 'application/*+json'] }),
    limitNesting,
  ];
}

const MAX_JSON_DEPTH = 32;

/** Depth of a parsed JSON value, counted without recursion (a hostile body must not overflow the stack). */
function nestingDepth(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > MAX_JSON_DEPTH) return deepest;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** The body of a write that requires one: a JSON object. */
export function requireObjectBody(req: Request): Record<string, unknown> {
  const body: unknown = req.body;
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new AppError('validation_error', 'A JSON object request body is required', {
      issues: [{ path: '', message: 'expected a JSON object', code: 'invalid_type' }],
    });
  }
  return body as Record<string, unknown>;
}

/** The optional `Idempotency-Key` of a write that `respondIdempotently` answers. */
export const idempotencyHeaderSchema = z.object({ 'idempotency-key': idempotencyKeySchema.optional() });

/**
 * Answers a write of a `teamAccess` route through `execute`, once per `Idempotency-Key` when the
 * request carries one (the rule itself is `runIdempotent` in services/).
 */
export async function respondIdempotently(
  ctx: AppContext,
  req: Request,
  res: Response,
  operation: string,
  execute: () => Promise<StoredResponse>,
): Promise<void> {
  const { 'idempotency-key': key } = parseOrThrow(idempotencyHeaderSchema, req.headers, 'header');
  const response = key
    ? await runIdempotent(ctx.db, { teamId: authOf(req).team.id, operation, key }, req.body, execute)
    : await execute();
  for (const [name, value] of Object.entries(response.headers ?? {})) res.setHeader(name, value);
  if ('replayed' in response && response.replayed) res.setHeader('Idempotent-Replayed', 'true');
  // A replayed refusal is answered as the error handler answers the first one.
  if (isErrorBody(response.status, response.body)) sendError(req, res, response.status, response.body);
  else res.status(response.status).json(response.body);
}

export const notFoundRoute: RequestHandler = (req) => {
  throw new AppError('not_found', `No route for ${req.method} ${req.path}`);
};

interface BodyParserError extends Error {
  type?: string;
  status?: number;
  limit?: number;
}

/**
 * Every error leaves as `{ error: { code, message, details? } }`, or as problem+json when the
 * client's Accept prefers it (api/problemJson.ts); unexpected ones as a logged 500.
 */
export const errorHandler: ErrorRequestHandler = (err: unknown, req: Request, res: Response, _next: NextFunction) => {
  let appError: AppError;
  const parserError = err as BodyParserError;
  const unstorable = unstorableValue(err);
  const dbDown = databaseUnavailable(err);
  if (err instanceof AppError) {
    appError = err;
  } else if (parserError?.type === 'entity.parse.failed') {
    appError = new AppError('validation_error', `Request body is not valid JSON: ${parserError.message}`, {
      issues: [{ path: '', message: 'malformed JSON', code: 'invalid_json' }],
    });
  } else if (parserError?.type === 'entity.too.large') {
    appError = new AppError('payload_too_large', `Request body exceeds the ${parserError.limit} byte limit`, {
      limitBytes: parserError.limit,
    });
  } else if (parserError?.type === 'encoding.unsupported' || parserError?.type === 'charset.unsupported') {
    appError = new AppError('unsupported_media_type', parserError.message);
  } else if (unstorable) {
    appError = unstorable;
  } else if (dbDown) {
    req.log?.warn({ err }, 'database unavailable');
    appError = dbDown;
  } else if (parserError?.status === 413) {
    // A form with too many fields (`parameters.too.many`): too large, as the parser says.
    appError = new AppError('payload_too_large', parserError.message);
  } else if (typeof parserError?.status === 'number' && parserError.status >= 400 && parserError.status < 500) {
    appError = new AppError('bad_request', parserError.message);
  } else {
    req.log?.error({ err }, 'unhandled error');
    appError = new AppError('internal_error', 'Something went wrong on our side; the request can be retried');
  }
  for (const [name, value] of Object.entries(appError.headers ?? {})) res.setHeader(name, value);
  sendError(req, res, appError.status, appError.toBody());
};
