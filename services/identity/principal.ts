import type { Knex } from 'knex';
import { preparedOnce, type Db } from '../../db/knex';
import { firstRow, statementOf, type SqlPart } from '../../db/statement';
import type { RateDecision, RateLimits } from '../platform/rateLimits';
import { findApiTokenOwner, isApiToken, LIVE_API_TOKEN, touchApiToken } from './apiTokens';
import { hashSecret } from './secrets';
import type { TeamRef } from '../platform/context';
import { AppError } from '../platform/errors';
import { liveAccessToken } from './oauth/grants';
import { Access, grants, Scope } from './scopes';

export { grants } from './scopes';
export type { Access, Scope } from './scopes';

/** Who is calling: a user's API token (all of the user's rights), or an OAuth access token (its scopes, its team). */
export type Principal =
  | { kind: 'api_token'; userId: string; credentialId: string; scopes: Scope[] }
  | {
      kind: 'oauth';
      /** Null for a client_credentials token: the team's client acts for itself. */
      userId: string | null;
      credentialId: string;
      clientId: string;
      teamId: string;
      agentId: string | null;
      scopes: Scope[];
    }
  /**
   * An agent acting in a turn of one of its rooms: its tool calls run with the rights of the team's
   * MCP surface, for the user whose message started the turn (null: a team's own client).
   */
  | { kind: 'agent'; userId: string | null; credentialId: string; agentId: string; scopes: Scope[] };

/**
 * What a request is addressed to: the audience an OAuth token must have been issued for, and
 * where the protected-resource metadata of a 401 points.
 */
export interface Audience {
  resource: string;
  resourceMetadataUrl: string;
}

export const unauthorized = (
  audience: Audience,
  message = 'A valid bearer credential is required',
  tokenPresented = false,
) =>
  new AppError('unauthorized', message, undefined, {
    'WWW-Authenticate': `Bearer realm="team-agent-platform"${tokenPresented ? ', error="invalid_token"' : ''}, resource_metadata="${audience.resourceMetadataUrl}"`,
  });

function bearerToken(authorization: string | undefined, audience: Audience): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match) throw unauthorized(audience);
  return match[1];
}

const unknownCredential = (audience: Audience) =>
  unauthorized(audience, 'The bearer credential is unknown, expired or revoked', true);
const otherResource = (audience: Audience) =>
  unauthorized(audience, `The access token was issued for another resource, not ${audience.resource}`, true);

/** API tokens act with the full rights of their user. */
const apiTokenPrincipal = (db: Db, owner: { tokenId: string; userId: string }): Principal => {
  touchApiToken(db, owner.tokenId);
  return { kind: 'api_token', userId: owner.userId, credentialId: owner.tokenId, scopes: ['mcp:use'] };
};

interface OAuthTokenRow {
  grantId: string;
  clientId: string;
  userId: string | null;
  teamId: string;
  teamSlug: string;
  plan: string;
  agentId: string | null;
  scope: string;
  resource: string | null;
  /** For a user's token: whether the user is still in the token's team. */
  member: string | null;
}

/**
 * A live OAuth access token with its team. A user's token stops working when the user leaves
 * the team; a token bound (RFC 8707) to another resource is refused as if unknown.
 */
async function oauthTokenRow(db: Db, token: string, audience: Audience): Promise<OAuthTokenRow | null> {
  const query = liveAccessToken(db, token)
    ?.join('teams', 'teams.id', 'oauth_grants.team_id')
    .leftJoin('memberships', (j) =>
      j.on('memberships.team_id', 'oauth_grants.team_id').andOn('memberships.user_id', 'oauth_grants.user_id'),
    )
    .first(
      'oauth_grants.id as grantId',
      'oauth_grants.client_id as clientId',
      'oauth_grants.user_id as userId',
      'oauth_grants.team_id as teamId',
      'teams.slug as teamSlug',
      'teams.plan as plan',
      'oauth_grants.agent_id as agentId',
      'oauth_tokens.scope as scope',
      'oauth_tokens.resource as resource',
      'memberships.user_id as member',
    );
  const row: OAuthTokenRow | undefined = query && (await preparedOnce(query));
  if (!row || (row.userId !== null && row.member === null)) return null;
  if (row.resource !== null && row.resource !== audience.resource) throw otherResource(audience);
  return row;
}

const oauthPrincipal = (row: OAuthTokenRow): Principal => ({
  kind: 'oauth',
  userId: row.userId,
  credentialId: row.grantId,
  clientId: row.clientId,
  teamId: row.teamId,
  agentId: row.agentId,
  scopes: row.scope.split(' ') as Scope[],
});

/** The caller, from its bearer credential alone (no team). */
export async function authenticateBearer(
  db: Db,
  authorization: string | undefined,
  audience: Audience,
): Promise<Principal> {
  const token = bearerToken(authorization, audience);
  const owner = await findApiTokenOwner(db, token);
  if (owner) return apiTokenPrincipal(db, owner);
  const oauth = await oauthTokenRow(db, token, audience);
  if (oauth) return oauthPrincipal(oauth);
  throw unknownCredential(audience);
}

/**
 * The caller and its team, in one round trip (the hot path of every team-scoped request). An
 * OAuth token acts for the one team it was granted for, so `X-Team-Slug` is optional with it and,
 * when sent, must name that team. An API token acts for any team of its user, so it must name one.
 * An unknown team answers the same 403 as a team the caller is not in, so slugs cannot be probed.
 */
export async function authenticateForTeam(
  db: Db,
  authorization: string | undefined,
  slug: string | undefined,
  audience: Audience,
): Promise<{ principal: Principal; team: TeamRef }> {
  const token = bearerToken(authorization, audience);
  const apiToken = isApiToken(token);
  if (apiToken && slug === undefined) {
    const owner = await findApiTokenOwner(db, token);
    if (!owner) throw unknownCredential(audience);
    throw await teamRequired(db, owner.userId);
  }
  if (apiToken && slug !== undefined) {
    const caller = apiTokenInTeam(token, slug);
    const row = await firstRow<CallerRow>(db, statementOf(caller.sql), caller.values);
    if (!row) throw unknownCredential(audience);
    const principal = apiTokenPrincipal(db, row);
    if (!row.teamId) throw notAMember(slug);
    return { principal, team: { id: row.teamId, slug, plan: row.plan } };
  }
  const oauth = await oauthTokenRow(db, token, audience);
  if (!oauth) throw unknownCredential(audience);
  // A header that names another team is refused like a team the caller is not in (403), not
  // ignored: a client that believes it acts for that team learns at once that it does not.
  if (slug !== undefined && oauth.teamSlug !== slug)
    throw new AppError('forbidden', `This access token acts for another team, not "${slug}"`);
  return { principal: oauthPrincipal(oauth), team: { id: oauth.teamId, slug: oauth.teamSlug, plan: oauth.plan } };
}

/** An API token's row with the team `slug` names, if its user is a member (`teamId` null if not). */
const apiTokenInTeam = (token: string, slug: string): SqlPart => ({
  sql: `SELECT api_tokens.id AS "tokenId", api_tokens.user_id AS "userId", memberships.team_id AS "teamId", teams.plan AS plan
        FROM api_tokens LEFT JOIN teams ON teams.slug = ?
        LEFT JOIN memberships ON memberships.team_id = teams.id AND memberships.user_id = api_tokens.user_id
        WHERE ${LIVE_API_TOKEN} LIMIT 1`,
  values: [slug, hashSecret(token)],
});
type CallerRow = { tokenId: string; userId: string; teamId: string | null; plan: string };

/**
 * A subquery of one row that the authentication of a team request may carry along (a lateral
 * join, in the same round trip), over the team that `teamId` (an SQL expression) names.
 */
export type Alongside = (teamId: string) => { sql: string; bindings: Knex.Value[] };

/**
 * `authenticateForTeam`, with the request counted against the team's quota (`RateLimits`) in the
 * same round trip for an API token (the hot path: one statement, not two), and `alongside`'s row
 * fetched in it too; an OAuth token's team is counted after its own query, and `alongside` is
 * left to the caller (undefined). Throws 429 `rate_limited` past the quota, after the 401 and 403
 * of the credential and the team, as counting after authenticating does.
 */
export async function authenticateTeamRequest<Row = never>(
  db: Db,
  rateLimits: RateLimits,
  authorization: string | undefined,
  slug: string | undefined,
  audience: Audience,
  alongside?: Alongside,
): Promise<{ principal: Principal; team: TeamRef; rate: RateDecision; alongside?: Row }> {
  const token = bearerToken(authorization, audience);
  if (slug !== undefined && isApiToken(token)) {
    const caller = apiTokenInTeam(token, slug);
    const extra = alongside?.('caller."teamId"');
    // `alongside` is read before the count, which it feeds: the count's row lock on the team's
    // counter, which every concurrent request of the team waits on, is then held only to commit.
    const from = extra ? 'scoped' : 'caller';
    const count = rateLimits.apiRequestCount(from, { teamId: `${from}."teamId"`, plan: `${from}.plan` });
    const scoped = extra
      ? `, scoped AS MATERIALIZED (SELECT caller.*, to_jsonb(alongside.*) AS alongside
           FROM caller LEFT JOIN LATERAL (${extra.sql}) AS alongside ON true)`
      : '';
    // A few texts (with or without each kind of `alongside`): prepared once per connection.
    const sql = `WITH caller AS (${caller.sql})${scoped}, counted AS (${count.sql})
      SELECT ${from}."tokenId", ${from}."userId", ${from}."teamId", ${from}.plan, counted.points, counted.expire
        ${extra ? ', scoped.alongside' : ''}
      FROM ${from} LEFT JOIN counted ON true`;
    const row = await firstRow<CallerRow & { points: number; expire: string | null; alongside?: Row }>(
      db,
      statementOf(sql),
      [...caller.values, ...(extra?.bindings ?? []), ...count.bindings],
    );
    if (!row) throw unknownCredential(audience);
    const principal = apiTokenPrincipal(db, row);
    if (!row.teamId) throw notAMember(slug);
    return {
      principal,
      team: { id: row.teamId, slug, plan: row.plan },
      rate: rateLimits.apiDecision(row.plan, row),
      ...(extra ? { alongside: (row as { alongside?: Row }).alongside } : {}),
    };
  }
  const { principal, team } = await authenticateForTeam(db, authorization, slug, audience);
  return { principal, team, rate: await rateLimits.consumeApiRequest(team) };
}

/** An API token without `X-Team-Slug`: what to send, with the caller's own teams as the example. */
async function teamRequired(db: Db, userId: string): Promise<AppError> {
  const teams: string[] = await db('memberships')
    .join('teams', 'teams.id', 'memberships.team_id')
    .where({ 'memberships.user_id': userId })
    .orderBy('teams.slug')
    .limit(20)
    .pluck('teams.slug');
  const example = teams[0] ?? 'acme';
  return new AppError(
    'validation_error',
    `This API token works for every team of its user: send the header X-Team-Slug with your team's slug (for example X-Team-Slug: ${example})`,
    {
      issues: [
        {
          path: 'x-team-slug',
          message: 'required with an API token (an OAuth access token names its team itself)',
          code: 'invalid_type',
        },
      ],
      teams,
    },
  );
}

/**
 * The caller and team of an MCP request, in one round trip where it can be: an OAuth token's own
 * team (whatever header comes with it); an API token's `X-Team-Slug`, or its user's only team.
 */
export async function authenticateForMcp(
  db: Db,
  authorization: string | undefined,
  slug: string | undefined,
  audience: Audience,
): Promise<{ principal: Principal; team: TeamRef }> {
  const token = bearerToken(authorization, audience);
  if (isApiToken(token)) {
    if (slug) return authenticateForTeam(db, authorization, slug, audience);
    const owner = await findApiTokenOwner(db, token);
    if (!owner) throw unknownCredential(audience);
    const teams: TeamRef[] = await db('memberships')
      .join('teams', 'teams.id', 'memberships.team_id')
      .where({ 'memberships.user_id': owner.userId })
      .limit(2)
      .select('teams.id', 'teams.slug', 'teams.plan');
    if (teams.length !== 1) {
      throw new AppError(
        'validation_error',
        "This API token's user is in several teams (or none): name the team in the X-Team-Slug header",
        {
          issues: [
            {
              path: 'x-team-slug',
              message: 'required for an API token whose user is not in exactly one team',
              code: 'invalid_type',
            },
          ],
        },
      );
    }
    return { principal: apiTokenPrincipal(db, owner), team: teams[0] };
  }
  const oauth = await oauthTokenRow(db, token, audience);
  if (!oauth) throw unknownCredential(audience);
  return { principal: oauthPrincipal(oauth), team: { id: oauth.teamId, slug: oauth.teamSlug, plan: oauth.plan } };
}

/**
 * `authenticateForMcp`; an API token naming its team (`X-Team-Slug`) is also counted against the
 * team's quota in the same round trip (`rate`, or 429), with `alongside`'s row, as
 * `authenticateTeamRequest` does. Any other caller comes back uncounted (`rate` and `alongside`
 * undefined), for the caller to count and query.
 */
export async function authenticateMcpRequest<Row = never>(
  db: Db,
  rateLimits: RateLimits,
  authorization: string | undefined,
  slug: string | undefined,
  audience: Audience,
  alongside?: Alongside,
): Promise<{ principal: Principal; team: TeamRef; rate?: RateDecision; alongside?: Row }> {
  if (slug && isApiToken(bearerToken(authorization, audience)))
    return authenticateTeamRequest<Row>(db, rateLimits, authorization, slug, audience, alongside);
  return authenticateForMcp(db, authorization, slug, audience);
}

const notAMember = (slug: string) => new AppError('forbidden', `You are not a member of team "${slug}"`);

export function requireAccess(principal: Principal, access: Access): void {
  if (!grants(principal.scopes, access)) {
    const needed = access === 'read' ? 'mcp:read' : 'mcp:write';
    throw new AppError(
      'insufficient_scope',
      `This operation needs scope ${needed} (or mcp:use)`,
      { requiredScope: needed },
      {
        'WWW-Authenticate': `Bearer realm="team-agent-platform", error="insufficient_scope", scope="${needed}"`,
      },
    );
  }
}

/** Managing a user's own credentials needs a user behind the token (not a team's client). */
export function requireUser(principal: Principal): string {
  if (principal.userId === null)
    throw new AppError(
      'forbidden',
      "This needs a user's credential; a client_credentials token acts for a team, not a user",
    );
  return principal.userId;
}
