import OAuth2Server from '@node-oauth/oauth2-server';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import type { Db } from '../db/knex';
import { AppError, databaseUnavailable } from '../services/platform/errors';
import { authenticateClient, OAuthClient } from '../services/identity/oauth/clients';
import { invalidClient, OAuthProtocolError } from '../services/identity/oauth/errors';

/** RFC 6749 §5.2 error body: `{ error, error_description }`, never cached. */
export function sendOAuthError(
  res: Response,
  status: number,
  error: string,
  description: string,
  headers: Record<string, string> = {},
): void {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Cache-Control', 'no-store');
  res.status(status).json({ error, error_description: description });
}

/** Every failure of the OAuth endpoints in RFC 6749 form; the API's own errors keep their code and status. */
export const oauthErrorHandler: ErrorRequestHandler = (err: unknown, req: Request, res: Response, _next) => {
  if (err instanceof OAuthProtocolError)
    return sendOAuthError(res, err.status, err.error, err.description, err.headers);
  if (err instanceof OAuth2Server.InvalidClientError) {
    const client = invalidClient(err.message);
    return sendOAuthError(res, client.status, client.error, err.message, client.headers);
  }
  if (err instanceof OAuth2Server.OAuthError && err.name !== 'server_error')
    return sendOAuthError(res, err.code, err.name, err.message);
  if (err instanceof AppError) return sendOAuthError(res, err.status, err.code, err.message, err.headers);
  // The library wraps what a model method threw (our database calls) in a ServerError's `inner`.
  const dbDown = databaseUnavailable(err) ?? databaseUnavailable((err as { inner?: unknown } | null)?.inner);
  if (dbDown) return sendOAuthError(res, dbDown.status, dbDown.code, dbDown.message, dbDown.headers);
  const parserError = err as { type?: string; status?: number; message?: string };
  if (typeof parserError?.status === 'number' && parserError.status >= 400 && parserError.status < 500) {
    return sendOAuthError(res, parserError.status, 'invalid_request', parserError.message ?? 'Malformed request');
  }
  req.log?.error(
    { err: err instanceof OAuth2Server.OAuthError ? ((err as { inner?: unknown }).inner ?? err) : err },
    'OAuth endpoint failed',
  );
  sendOAuthError(res, 500, 'server_error', 'Something went wrong on our side; the request can be retried');
};

/** RFC 6749 §2.3.1: Basic credentials are form-urlencoded before base64. */
function basicCredentials(header: string | undefined): { id: string; secret: string } | null {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  const unform = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
  try {
    return { id: unform(decoded.slice(0, colon)), secret: unform(decoded.slice(colon + 1)) };
  } catch {
    return null;
  }
}

/**
 * The library reads Basic credentials without the form-decoding RFC 6749 §2.3.1 requires, so a
 * client that encodes (openid-client turns `_` into `%5F`) would fail; hand it decoded ones.
 */
export const decodeBasicCredentials: RequestHandler = (req, _res, next) => {
  const basic = basicCredentials(req.headers.authorization);
  if (basic && !basic.id.includes(':')) {
    req.headers.authorization = `Basic ${Buffer.from(`${basic.id}:${basic.secret}`).toString('base64')}`;
  }
  next();
};

/**
 * The client calling the revocation or introspection endpoint: by HTTP Basic, by
 * `client_secret_post`, or (a public client) by its `client_id` alone.
 */
export async function authenticatedClient(db: Db, req: Request): Promise<OAuthClient> {
  const basic = basicCredentials(req.headers.authorization);
  const body = (req.body ?? {}) as Record<string, unknown>;
  const id = basic?.id ?? body.client_id;
  const secret = basic ? basic.secret : body.client_secret;
  if (typeof id !== 'string' || (secret !== undefined && typeof secret !== 'string'))
    throw invalidClient('Identify the client: HTTP Basic, or client_id (and client_secret) in the form');
  const client = await authenticateClient(db, id, secret as string | undefined);
  if (!client) throw invalidClient();
  return client;
}

/** Adds parameters to a redirect URI, keeping its own query (RFC 6749 §3.1.2). */
export function withQuery(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}
