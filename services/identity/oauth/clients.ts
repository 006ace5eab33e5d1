import { z } from 'zod';
import type { Db } from '../../../db/knex';
import { parseScopeParameter } from '../scopes';
import { hashSecret, newSecret, sameSecret } from '../secrets';
import { OAuthProtocolError } from './errors';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** https anywhere, http only on a loopback host (RFC 8252 native apps), never a fragment. */
const redirectUriSchema = z
  .string()
  .max(2000)
  .refine((value) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return false;
    }
    if (url.hash || url.username || url.password) return false;
    return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname));
  }, 'must be an https URL, or http on a loopback host, without a fragment');

const grantTypeSchema = z.enum(['authorization_code', 'refresh_token', 'client_credentials']);
const authMethodSchema = z.enum(['none', 'client_secret_basic', 'client_secret_post']);

/** RFC 7591 client metadata, the fields this server acts on (others are ignored, as the RFC allows). */
export const clientRegistrationSchema = z.object({
  client_name: z.string().trim().min(1).max(200).optional(),
  redirect_uris: z.array(redirectUriSchema).max(20).optional(),
  // RFC 7591 §2: an omitted method means client_secret_basic.
  token_endpoint_auth_method: authMethodSchema.default('client_secret_basic'),
  grant_types: z.array(grantTypeSchema).min(1).optional(),
  response_types: z.array(z.literal('code')).optional(),
  scope: z.string().max(200).optional(),
});
export type ClientRegistration = z.input<typeof clientRegistrationSchema>;

export const registeredClientSchema = z.object({
  client_id: z.string(),
  client_secret: z.string().optional(),
  client_id_issued_at: z.number().int(),
  client_secret_expires_at: z.number().int().optional(),
  client_name: z.string(),
  redirect_uris: z.array(z.string()),
  grant_types: z.array(grantTypeSchema),
  response_types: z.array(z.string()),
  token_endpoint_auth_method: authMethodSchema,
  scope: z.string().optional(),
});
export type RegisteredClient = z.infer<typeof registeredClientSchema>;

export interface OAuthClient {
  id: string;
  name: string;
  redirectUris: string[];
  grants: string[];
  authMethod: z.infer<typeof authMethodSchema>;
  confidential: boolean;
  scope: string | null;
  teamId: string | null;
}

interface ClientRow {
  id: string;
  secret_hash: string | null;
  name: string;
  redirect_uris: string[];
  grant_types: string[];
  token_endpoint_auth_method: z.infer<typeof authMethodSchema>;
  scope: string | null;
  team_id: string | null;
}

const toClient = (row: ClientRow): OAuthClient => ({
  id: row.id,
  name: row.name,
  redirectUris: row.redirect_uris,
  grants: row.grant_types,
  authMethod: row.token_endpoint_auth_method,
  confidential: row.secret_hash !== null,
  scope: row.scope,
  teamId: row.team_id,
});

const invalidMetadata = (description: string, error = 'invalid_client_metadata') =>
  new OAuthProtocolError(error, description, 400);

/**
 * Registers a client (RFC 7591). Anyone may register a client for the authorization-code flow;
 * a client that asks for `client_credentials` acts for a team without a user, so it must be
 * registered by a member of that team (`registrar`), and it belongs to that team alone.
 */
export async function registerClient(
  db: Db,
  raw: unknown,
  registrar?: { userId: string; teamId: string },
): Promise<RegisteredClient> {
  const parsed = clientRegistrationSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.path.join('.');
    throw invalidMetadata(
      `${field || 'body'}: ${issue.message}`,
      field.startsWith('redirect_uris') ? 'invalid_redirect_uri' : 'invalid_client_metadata',
    );
  }
  const metadata = parsed.data;
  const confidential = metadata.token_endpoint_auth_method !== 'none';
  const grantTypes =
    metadata.grant_types ??
    (registrar && confidential && !metadata.redirect_uris?.length
      ? ['client_credentials']
      : ['authorization_code', 'refresh_token']);
  const usesCode = grantTypes.includes('authorization_code');
  const redirectUris = metadata.redirect_uris ?? [];
  if (usesCode && redirectUris.length === 0)
    throw invalidMetadata('redirect_uris: required for the authorization_code grant', 'invalid_redirect_uri');
  if (grantTypes.includes('refresh_token') && !usesCode)
    throw invalidMetadata('grant_types: refresh_token comes with authorization_code');
  if (grantTypes.includes('client_credentials')) {
    if (!confidential)
      throw invalidMetadata('grant_types: client_credentials needs a confidential client (a client secret)');
    if (!registrar) {
      throw invalidMetadata(
        "grant_types: a client_credentials client acts for a team; register it with a team member's API token as the Bearer credential and the team in X-Team-Slug",
      );
    }
  }
  let scope: string | null = null;
  if (metadata.scope !== undefined) {
    const scopes = parseScopeParameter(metadata.scope);
    if (!scopes || scopes.length === 0) throw invalidMetadata('scope: use mcp:read, mcp:write and/or mcp:use');
    scope = scopes.join(' ');
  }
  const clientId = newSecret('cli_').slice(0, 28);
  const secret = confidential ? newSecret('ocs_') : undefined;
  const name = metadata.client_name ?? 'Unnamed client';
  const [row] = await db('oauth_clients')
    .insert({
      id: clientId,
      secret_hash: secret ? hashSecret(secret) : null,
      name,
      redirect_uris: redirectUris,
      grant_types: grantTypes,
      token_endpoint_auth_method: metadata.token_endpoint_auth_method,
      scope,
      team_id: registrar && grantTypes.includes('client_credentials') ? registrar.teamId : null,
      registered_by: registrar?.userId ?? null,
    })
    .returning('created_at');
  return {
    client_id: clientId,
    ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
    client_id_issued_at: Math.floor(new Date(row.created_at).getTime() / 1000),
    client_name: name,
    redirect_uris: redirectUris,
    grant_types: grantTypes,
    response_types: usesCode ? ['code'] : [],
    token_endpoint_auth_method: metadata.token_endpoint_auth_method,
    ...(scope ? { scope } : {}),
  };
}

export async function findClient(db: Db, clientId: string): Promise<OAuthClient | null> {
  const row = await db('oauth_clients').where({ id: clientId }).first<ClientRow | undefined>();
  return row ? toClient(row) : null;
}

/**
 * The client named by `clientId`, if `secret` proves it: a confidential client must present its
 * secret, a public client must present none. (A confidential client that sends only its id, as a
 * PKCE exchange does, is refused: knowing a client id is not owning the client.)
 */
export async function authenticateClient(
  db: Db,
  clientId: string,
  secret: string | undefined,
): Promise<OAuthClient | null> {
  const row = await db('oauth_clients').where({ id: clientId }).first<ClientRow | undefined>();
  if (!row) return null;
  if (row.secret_hash === null) return secret === undefined ? toClient(row) : null;
  if (secret === undefined || !sameSecret(hashSecret(secret), row.secret_hash)) return null;
  return toClient(row);
}
