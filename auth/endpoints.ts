import OAuth2Server from '@node-oauth/oauth2-server';
import express, { Router } from 'express';
import type { AppContext } from '../services/platform/context';
import { registerClient } from '../services/identity/oauth/clients';
import { OAuthProtocolError } from '../services/identity/oauth/errors';
import { introspectToken, OAuthSettings, revokeToken } from '../services/identity/oauth/grants';
import { authenticateForTeam } from '../services/identity/principal';
import { teamSlugSchema } from '../services/platform/teams';
import { apiAudience } from '../api/auth';
import { authenticatedClient, decodeBasicCredentials } from './oauthHttp';

const form = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 50 });

/** The token, revocation, introspection and registration endpoints (RFC 6749, 7009, 7662, 7591). */
export function tokenEndpoints(ctx: AppContext, server: OAuth2Server, settings: OAuthSettings): Router {
  const router = Router();

  router.post('/oauth/token', form, decodeBasicCredentials, async (req, res) => {
    const response = new OAuth2Server.Response(res);
    await server.token(new OAuth2Server.Request(req), response);
    res
      .set(response.headers)
      .status(response.status ?? 200)
      .json(response.body);
  });

  router.post('/oauth/token/revoke', form, async (req, res) => {
    const client = await authenticatedClient(ctx.db, req);
    const token = req.body?.token;
    if (typeof token !== 'string' || token.length === 0)
      throw new OAuthProtocolError('invalid_request', 'Missing parameter: token');
    await revokeToken(ctx.db, client, token);
    res.setHeader('Cache-Control', 'no-store');
    res.status(200).end();
  });

  router.post('/mcp/introspect', form, async (req, res) => {
    const client = await authenticatedClient(ctx.db, req);
    const token = req.body?.token;
    if (typeof token !== 'string' || token.length === 0)
      throw new OAuthProtocolError('invalid_request', 'Missing parameter: token');
    res.setHeader('Cache-Control', 'no-store');
    res.json(await introspectToken(ctx.db, client, token, settings));
  });

  router.post('/oauth/register', express.json({ limit: '16kb' }), async (req, res) => {
    await ctx.rateLimits.consumeRegistration(req.ip ?? 'unknown');
    // With a member's API token and X-Team-Slug, the client belongs to that team (client_credentials).
    let registrar: { userId: string; teamId: string } | undefined;
    if (req.headers.authorization) {
      const slug = teamSlugSchema.safeParse(req.headers['x-team-slug']);
      if (!slug.success)
        throw new OAuthProtocolError(
          'invalid_client_metadata',
          'A registration with a Bearer credential names its team in X-Team-Slug',
        );
      const { principal, team } = await authenticateForTeam(
        ctx.db,
        req.headers.authorization,
        slug.data,
        apiAudience(ctx),
      );
      if (principal.kind !== 'api_token')
        throw new OAuthProtocolError('invalid_token', 'Register team clients with an API token', 401);
      registrar = { userId: principal.userId, teamId: team.id };
    }
    const client = await registerClient(ctx.db, req.body, registrar);
    res.setHeader('Cache-Control', 'no-store');
    res.status(201).json(client);
  });

  return router;
}
