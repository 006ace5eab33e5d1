import { z } from 'zod';
import type { Db } from '../../../db/knex';
import { newId } from '../../../db/ids';
import { parseScopeParameter, scopesForClient } from '../scopes';
import { hashSecret, newSecret, sameSecret } from '../secrets';
import { findClient, OAuthClient } from './clients';
import { agentOfResource, resolveAudience } from './grants';

/** The query of GET /oauth/authorize (RFC 6749 §4.1.1, RFC 7636, RFC 8707), plus `agent` to preselect one. */
export const authorizeQuerySchema = z.object({
  response_type: z.string().optional(),
  client_id: z.string().max(200).optional(),
  redirect_uri: z.string().max(2000).optional(),
  scope: z.string().max(500).optional(),
  state: z.string().max(2000).optional(),
  code_challenge: z.string().optional(),
  code_challenge_method: z.string().optional(),
  resource: z.string().max(2000).optional(),
  agent: z.string().max(100).optional(),
});

/** What a validated authorization request carries through login and consent. */
export const authorizationParamsSchema = z.object({
  clientId: z.string(),
  redirectUri: z.string(),
  scope: z.array(z.string()),
  state: z.string().optional(),
  codeChallenge: z.string(),
  codeChallengeMethod: z.enum(['S256', 'plain']),
  resource: z.string().nullable(),
  agent: z.string().optional(),
});
export type AuthorizationParams = z.infer<typeof authorizationParamsSchema>;

/** Before the redirect URI is trusted, an error is shown to the user and never redirected (RFC 6749 §4.1.2.1). */
export class AuthorizeErrorPage extends Error {}

/** After it is trusted, an error goes back to the client at its redirect URI. */
export class AuthorizeErrorRedirect extends Error {
  constructor(
    readonly redirectUri: string,
    readonly error: string,
    readonly description: string,
    readonly state?: string,
  ) {
    super(description);
  }
}

const CODE_CHALLENGE = /^[A-Za-z0-9\-._~]{43,128}$/;
const VSCHAR = /^[\x20-\x7e]*$/;

/**
 * Checks an authorization request before anyone is asked to log in. The library's own
 * authorize step neither requires PKCE nor checks the challenge's format, so this does.
 */
export async function validateAuthorizationRequest(
  db: Db,
  rawQuery: unknown,
  resources: string[],
): Promise<{ client: OAuthClient; params: AuthorizationParams }> {
  const query = authorizeQuerySchema.safeParse(rawQuery);
  if (!query.success) throw new AuthorizeErrorPage('The authorization request has malformed parameters.');
  const q = query.data;
  if (!q.client_id) throw new AuthorizeErrorPage('The authorization request names no client (client_id is missing).');
  const client = await findClient(db, q.client_id);
  if (!client) throw new AuthorizeErrorPage('The application that sent you here is not registered with this server.');
  let redirectUri = q.redirect_uri;
  if (redirectUri === undefined) {
    if (client.redirectUris.length !== 1)
      throw new AuthorizeErrorPage('The authorization request has no redirect_uri and the client has several.');
    redirectUri = client.redirectUris[0];
  } else if (!client.redirectUris.includes(redirectUri)) {
    throw new AuthorizeErrorPage('The redirect address of this request is not one the application registered.');
  }
  const fail = (error: string, description: string) =>
    new AuthorizeErrorRedirect(redirectUri!, error, description, q.state);
  if (q.state !== undefined && !VSCHAR.test(q.state))
    throw fail('invalid_request', 'state has characters outside the printable ASCII range');
  if (!client.grants.includes('authorization_code'))
    throw fail('unauthorized_client', 'This client is not registered for the authorization_code grant');
  if (q.response_type !== 'code') throw fail('unsupported_response_type', 'Only response_type=code is supported');
  if (!q.code_challenge) throw fail('invalid_request', 'PKCE is required: send code_challenge (S256)');
  if (!CODE_CHALLENGE.test(q.code_challenge))
    throw fail('invalid_request', 'code_challenge must be 43 to 128 characters of [A-Za-z0-9-._~]');
  const method = q.code_challenge_method ?? 'plain';
  if (method !== 'S256' && method !== 'plain')
    throw fail('invalid_request', 'code_challenge_method must be S256 or plain');
  const asked = parseScopeParameter(q.scope);
  if (!asked) throw fail('invalid_scope', 'Unknown scope; this server offers mcp:read, mcp:write and mcp:use');
  const scope = scopesForClient(asked, client.scope);
  if (!scope) throw fail('invalid_scope', `The scope asked for is wider than the client registered (${client.scope})`);
  let resource: string | null;
  try {
    resource = resolveAudience(q.resource, null, resources);
  } catch (err) {
    throw fail('invalid_target', (err as Error).message);
  }
  return {
    client,
    params: {
      clientId: client.id,
      redirectUri,
      scope,
      state: q.state,
      codeChallenge: q.code_challenge,
      codeChallengeMethod: method,
      resource,
      agent: q.agent ?? agentOfResource(q.resource),
    },
  };
}

export interface PendingAuthorization {
  id: string;
  csrfToken: string;
  params: AuthorizationParams;
  userId: string | null;
}

const TTL_MINUTES = 15;

/** Starts one browser's pass through login and consent; the browser proves itself with its cookie secret. */
export async function createAuthorizationRequest(
  db: Db,
  params: AuthorizationParams,
  browserSecret: string,
): Promise<PendingAuthorization> {
  const id = newId('oar');
  const csrfToken = newSecret('csrf_');
  await db('oauth_authorization_requests').insert({
    id,
    browser_hash: hashSecret(browserSecret),
    csrf_token: csrfToken,
    params,
    expires_at: db.raw(`now() + interval '${TTL_MINUTES} minutes'`),
  });
  return { id, csrfToken, params, userId: null };
}

/**
 * The pending request, if it is this browser's, unexpired and not yet answered. For a form
 * post, `form.csrfToken` must match too (a missing token never does).
 */
export async function loadAuthorizationRequest(
  db: Db,
  id: unknown,
  browserSecret: string | undefined,
  form?: { csrfToken: unknown },
): Promise<PendingAuthorization | null> {
  if (typeof id !== 'string' || !browserSecret) return null;
  const row = await db('oauth_authorization_requests')
    .where({ id })
    .whereNull('completed_at')
    .where('expires_at', '>', db.fn.now())
    .first();
  if (!row || !sameSecret(row.browser_hash, hashSecret(browserSecret))) return null;
  if (form && (typeof form.csrfToken !== 'string' || !sameSecret(form.csrfToken, row.csrf_token))) return null;
  return {
    id: row.id,
    csrfToken: row.csrf_token,
    params: authorizationParamsSchema.parse(row.params),
    userId: row.user_id,
  };
}

/**
 * The client of a request this browser already answered, so a second submission can be told
 * so; null for anything else (another browser's, unknown, or still pending).
 */
export async function findAnsweredAuthorizationRequest(
  db: Db,
  id: unknown,
  browserSecret: string | undefined,
): Promise<{ clientId: string; redirectUri: string } | null> {
  if (typeof id !== 'string' || !browserSecret) return null;
  const row = await db('oauth_authorization_requests').where({ id }).whereNotNull('completed_at').first();
  if (!row || !sameSecret(row.browser_hash, hashSecret(browserSecret))) return null;
  const params = authorizationParamsSchema.parse(row.params);
  return { clientId: params.clientId, redirectUri: params.redirectUri };
}

export async function recordLogin(db: Db, id: string, userId: string): Promise<void> {
  await db('oauth_authorization_requests').where({ id }).update({ user_id: userId });
}

/** Answers the request once: a second submission of the same consent form finds it gone. */
export async function completeAuthorizationRequest(db: Db, id: string): Promise<boolean> {
  return (
    (await db('oauth_authorization_requests')
      .where({ id })
      .whereNull('completed_at')
      .update({ completed_at: db.fn.now() })) === 1
  );
}
