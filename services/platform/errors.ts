import { z } from 'zod';
import { errorBodySchema, type ErrorBody } from '../../workflows/contracts/schemas';
import { statusOf, type ErrorCode } from './errorCatalog';

/** The spec's Error resource (defined with the workflow contracts, whose results carry it). */
export { errorBodySchema, type ErrorBody };

/**
 * A failure the API reports in the spec's error envelope: `{ error: { code, message, details? } }`.
 * It is raised by code; its HTTP status is the one the catalog gives that code (./errorCatalog.ts).
 */
export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
    this.status = statusOf(code);
  }

  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) } };
  }
}

export const notFound = (what: string) => new AppError('not_found', `${what} not found`);
export const invalidState = (message: string, details?: Record<string, unknown>) =>
  new AppError('invalid_state', message, details);

/** A business rule the request breaks: the rule's own code (the catalog gives it 422). */
export const ruleBroken = (code: ErrorCode, message: string, details?: Record<string, unknown>) =>
  new AppError(code, message, details);

export function validationError(error: z.ZodError, where: string): AppError {
  const issues = error.issues.map((issue) => ({
    path: issue.path.map(String).join('.'),
    message: issue.message,
    code: issue.code,
  }));
  const first = issues[0];
  const summary = first ? `${first.path ? `${first.path}: ` : ''}${first.message}` : 'invalid';
  return new AppError('validation_error', `Invalid ${where}: ${summary}`, { issues });
}

/** Parses `value` with `schema`, throwing a 400 `validation_error` that names `where` (body, query, header). */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, where: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(result.error, where);
  return result.data;
}

/** An Error resource value, for stored failures (a job's or a delivery's `error`). */
export const errorBody = (code: string, message: string, details?: Record<string, unknown>): ErrorBody => ({
  error: { code, message, ...(details ? { details } : {}) },
});

/** Postgres errors caused by what the client sent: text it cannot store (NUL) or not of a column's type. */
const CLIENT_DATA_SQLSTATES = new Set(['22021', '22P05', '22P02', '22001']);

/**
 * The 400 for a value the database refused as data (on every surface: the HTTP API and MCP tools);
 * null for any other error. The statement itself is not echoed back.
 */
export function unstorableValue(err: unknown): AppError | null {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !CLIENT_DATA_SQLSTATES.has(code)) return null;
  const reason = String((err as Error).message ?? '')
    .split(' - ')
    .pop();
  return new AppError(
    'validation_error',
    'The request contains a value that cannot be stored (for example a NUL character)',
    {
      issues: [{ path: '', message: reason, code: 'invalid_value' }],
    },
  );
}

/** Connection-level failures: the database is down, restarting or unreachable (not a bad query). */
const DB_UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  '57P01',
  '57P02',
  // statement_timeout: the statement outlived the request's deadline (DATABASE_REQUEST_TIMEOUT_MS)
  '57014',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08006',
]);

/**
 * The 503 for a request that could not reach Postgres (on every surface), so a client retries
 * after `Retry-After` instead of reading a 500 as our bug; null for any other error.
 */
export function databaseUnavailable(err: unknown): AppError | null {
  const e = err as { code?: unknown; name?: unknown; message?: unknown } | null;
  const unreachable =
    (typeof e?.code === 'string' && DB_UNAVAILABLE_CODES.has(e.code)) ||
    e?.name === 'KnexTimeoutError' ||
    (typeof e?.message === 'string' &&
      /Connection terminated|Client has encountered a connection error/i.test(e.message));
  if (!unreachable) return null;
  return new AppError('database_unavailable', 'The database is not answering; retry the request shortly', undefined, {
    'Retry-After': '5',
  });
}
