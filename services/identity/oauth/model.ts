import type OAuth2Server from '@node-oauth/oauth2-server';
import type { Db } from '../../../db/knex';
import { canonicalScopes, impliedScopes, scopesForClient } from '../scopes';
import { hashSecret, newSecret } from '../secrets';
import { authenticateClient, findClient, OAuthClient } from './clients';
import {
  createGrant,
  liveAccessToken,
  OAuthSettings,
  resolveAudience,
  revokeGrant,
  storeTokens,
  TokenToStore,
} from './grants';

/** Who a code or token acts for, as the library hands it from call to call. */
export interface GrantSubject {
  /** The user; null for a client_credentials grant (the team's client acts for itself). */
  id: string | null;
  teamId: string;
  agentId: string | null;
  /** The audience the grant authorized (null: any of ours). */
  resource: string | null;
  /** Set once the grant exists (codes and refresh tokens carry it). */
  grantId?: string;
  /** The `resource` of the token request, put here by our grant types. */
  requestedResource?: unknown;
}

/** The grant's columns every code and token lookup joins in, and the subject they make. */
const GRANT_COLUMNS = [
  'oauth_grants.client_id',
  'oauth_grants.user_id',
  'oauth_grants.team_id',
  'oauth_grants.agent_id',
  'oauth_grants.resource as grant_resource',
];
const subjectOf = (row: {
  user_id: string | null;
  team_id: string;
  agent_id: string | null;
  grant_resource: string | null;
  grant_id: string;
}): GrantSubject => ({
  id: row.user_id,
  teamId: row.team_id,
  agentId: row.agent_id,
  resource: row.grant_resource,
  grantId: row.grant_id,
});

const libraryClient = (client: OAuthClient): OAuth2Server.Client => ({
  ...client,
  id: client.id,
  grants: client.grants,
  redirectUris: client.redirectUris,
});

/**
 * The @node-oauth/oauth2-server model over Postgres. What the library does not check, this does:
 * reuse of a code or a refresh token revokes the whole grant (RFC 9700 §4.14), a confidential
 * client can never be used with its id alone, and token audiences are bound (RFC 8707).
 */
export function createOAuthModel(db: Db, settings: OAuthSettings) {
  /**
   * Spends a single-use secret (a code, or a refresh token on rotation). Of two concurrent uses
   * one wins; the loser is a replay and ends the grant.
   */
  async function spendOnce(
    table: 'oauth_codes' | 'oauth_tokens',
    hashColumn: string,
    spentColumn: string,
    secret: string,
    subject: GrantSubject,
    reason: string,
  ) {
    const spent = await db(table)
      .where({ [hashColumn]: hashSecret(secret) })
      .whereNull(spentColumn)
      .modify((q) => {
        if (table === 'oauth_tokens') q.whereNull('revoked_at');
      })
      .update({ [spentColumn]: db.fn.now() });
    if (spent === 0) await revokeGrant(db, subject.grantId!, reason);
    return spent === 1;
  }

  return {
    generateAccessToken: async () => newSecret('oat_'),
    generateRefreshToken: async () => newSecret('ort_'),
    generateAuthorizationCode: async () => newSecret('oac_'),

    /**
     * The token endpoint passes the presented secret (undefined when none was sent); the
     * authorization endpoint passes null, as it only looks the client up.
     */
    async getClient(clientId: string, clientSecret: string | null | undefined) {
      const client =
        clientSecret === null ? await findClient(db, clientId) : await authenticateClient(db, clientId, clientSecret);
      return client ? libraryClient(client) : false;
    },

    async validateRedirectUri(redirectUri: string, client: OAuth2Server.Client) {
      return (client.redirectUris as string[]).includes(redirectUri);
    },

    async validateScope(_user: GrantSubject, client: OAuth2Server.Client, scope?: string[]) {
      return scopesForClient(scope, (client.scope as string | null) ?? null) ?? false;
    },

    async saveAuthorizationCode(
      code: Pick<
        OAuth2Server.AuthorizationCode,
        'authorizationCode' | 'expiresAt' | 'redirectUri' | 'scope' | 'codeChallenge' | 'codeChallengeMethod'
      >,
      client: OAuth2Server.Client,
      user: GrantSubject,
    ) {
      await db.transaction(async (trx) => {
        const grantId = await createGrant(trx, {
          clientId: client.id,
          userId: user.id,
          teamId: user.teamId,
          agentId: user.agentId,
          scope: code.scope ?? [],
          resource: user.resource,
        });
        await trx('oauth_codes').insert({
          code_hash: hashSecret(code.authorizationCode),
          grant_id: grantId,
          redirect_uri: code.redirectUri,
          code_challenge: code.codeChallenge,
          code_challenge_method: code.codeChallengeMethod,
          expires_at: code.expiresAt,
        });
      });
      return { ...code, client, user };
    },

    /** A code seen before is a replay: its grant, and every token issued from it, is revoked. */
    async getAuthorizationCode(authorizationCode: string) {
      const row = await db('oauth_codes')
        .join('oauth_grants', 'oauth_grants.id', 'oauth_codes.grant_id')
        .where('oauth_codes.code_hash', hashSecret(authorizationCode))
        .first('oauth_codes.*', ...GRANT_COLUMNS, 'oauth_grants.scope', 'oauth_grants.revoked_at');
      if (!row) return false;
      if (row.consumed_at || row.revoked_at) {
        await revokeGrant(db, row.grant_id, 'authorization_code_reused');
        return false;
      }
      return {
        authorizationCode,
        expiresAt: row.expires_at,
        redirectUri: row.redirect_uri,
        scope: row.scope.split(' '),
        codeChallenge: row.code_challenge,
        codeChallengeMethod: row.code_challenge_method,
        client: { id: row.client_id, grants: [] },
        user: subjectOf(row),
      };
    },

    /** Single use: of two concurrent exchanges one wins; the other is treated as a replay. */
    async revokeAuthorizationCode(code: OAuth2Server.AuthorizationCode) {
      return spendOnce(
        'oauth_codes',
        'code_hash',
        'consumed_at',
        code.authorizationCode,
        code.user as GrantSubject,
        'authorization_code_reused',
      );
    },

    /** A client_credentials token acts for the team that registered the client. */
    async getUserFromClient(client: OAuth2Server.Client): Promise<GrantSubject | false> {
      return client.teamId ? { id: null, teamId: client.teamId as string, agentId: null, resource: null } : false;
    },

    async saveToken(token: OAuth2Server.Token, client: OAuth2Server.Client, user: GrantSubject) {
      const resource = resolveAudience(user.requestedResource, user.resource, settings.resources);
      const scope = canonicalScopes(token.scope ?? []);
      const grantId =
        user.grantId ??
        (await createGrant(db, {
          clientId: client.id,
          userId: user.id,
          teamId: user.teamId,
          agentId: user.agentId,
          scope,
          resource,
        }));
      const tokens: TokenToStore[] = [
        { kind: 'access', token: token.accessToken, scope, resource, expiresAt: token.accessTokenExpiresAt! },
      ];
      if (token.refreshToken)
        tokens.push({
          kind: 'refresh',
          token: token.refreshToken,
          scope,
          resource,
          expiresAt: token.refreshTokenExpiresAt!,
        });
      await storeTokens(db, grantId, tokens);
      return { ...token, scope, client, user: { ...user, grantId } };
    },

    /** A refresh token presented after it was exchanged is reuse: the grant is revoked. */
    async getRefreshToken(refreshToken: string) {
      if (!refreshToken.startsWith('ort_')) return false;
      const row = await db('oauth_tokens')
        .join('oauth_grants', 'oauth_grants.id', 'oauth_tokens.grant_id')
        .where({ 'oauth_tokens.token_hash': hashSecret(refreshToken), 'oauth_tokens.kind': 'refresh' })
        .first('oauth_tokens.*', ...GRANT_COLUMNS, 'oauth_grants.revoked_at as grant_revoked_at');
      if (!row || row.grant_revoked_at || row.revoked_at) return false;
      if (row.rotated_at) {
        await revokeGrant(db, row.grant_id, 'refresh_token_reused');
        return false;
      }
      return {
        refreshToken,
        refreshTokenExpiresAt: row.expires_at,
        // Expanded, so a refresh may narrow `mcp:use` to `mcp:read`; never widen.
        scope: impliedScopes(row.scope.split(' ')),
        client: { id: row.client_id, grants: [] },
        user: subjectOf(row),
      };
    },

    /** Rotation: the presented refresh token is spent; of two concurrent uses, the loser is reuse. */
    async revokeToken(token: OAuth2Server.RefreshToken) {
      return spendOnce(
        'oauth_tokens',
        'token_hash',
        'rotated_at',
        token.refreshToken,
        token.user as GrantSubject,
        'refresh_token_reused',
      );
    },

    /** For the library's own `authenticate`; the API itself authenticates in services/identity/principal.ts with the same query. */
    async getAccessToken(accessToken: string) {
      const row = await liveAccessToken(db, accessToken)?.first('oauth_tokens.*', ...GRANT_COLUMNS);
      if (!row) return false;
      return {
        accessToken,
        accessTokenExpiresAt: row.expires_at,
        scope: row.scope.split(' '),
        client: { id: row.client_id, grants: [] },
        user: subjectOf(row),
      };
    },
  };
}
