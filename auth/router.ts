import OAuth2Server from '@node-oauth/oauth2-server';
import { Router } from 'express';
import type { AppContext } from '../services/platform/context';
import { grantTypes } from '../services/identity/oauth/grantTypes';
import {
  authorizationServerMetadata,
  oauthSettings,
  protectedResourceMetadata,
} from '../services/identity/oauth/metadata';
import { createOAuthModel } from '../services/identity/oauth/model';
import { authorizeEndpoints } from './authorize';
import { tokenEndpoints } from './endpoints';
import { oauthErrorHandler } from './oauthHttp';

/** The authorization server and discovery: `/.well-known/…`, `/oauth/…` and `/mcp/introspect`. */
export function authRouter(ctx: AppContext): Router {
  const settings = oauthSettings(ctx.config);
  const server = new OAuth2Server({
    model: createOAuthModel(ctx.db, settings),
    accessTokenLifetime: settings.accessTokenTtlSeconds,
    refreshTokenLifetime: settings.refreshTokenTtlSeconds,
    authorizationCodeLifetime: settings.codeTtlSeconds,
    // MCP clients may send no state; PKCE (required at /oauth/authorize) protects the exchange.
    allowEmptyState: true,
    enablePlainPKCE: true,
    // Public clients identify with client_id alone (PKCE proves the code exchange).
    requireClientAuthentication: { authorization_code: false, refresh_token: false },
    alwaysIssueNewRefreshToken: true,
    extendedGrantTypes: grantTypes,
  } as OAuth2Server.ServerOptions);

  const router = Router();
  const asMetadata = authorizationServerMetadata(ctx.config);
  const apiPath = new URL(ctx.config.baseUrl).pathname;
  router.get(
    ['/.well-known/oauth-authorization-server', '/.well-known/oauth-authorization-server/mcp'],
    (_req, res) => {
      res.json(asMetadata);
    },
  );
  // `?agent=<uuid>` (from the 401 of /mcp?agent=… or /mcp/agents/…) rides on the resource, so the login preselects that agent.
  router.get(['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp'], (req, res) => {
    const agent =
      typeof req.query.agent === 'string' && /^[0-9a-f-]{36}$/i.test(req.query.agent) ? req.query.agent : null;
    res.json(
      protectedResourceMetadata(
        ctx.config,
        agent ? `${ctx.config.mcpEndpoint}?agent=${agent}` : ctx.config.mcpEndpoint,
      ),
    );
  });
  router.get(`/.well-known/oauth-protected-resource${apiPath}`, (_req, res) => {
    res.json(protectedResourceMetadata(ctx.config, ctx.config.baseUrl));
  });
  router.use(authorizeEndpoints(ctx, server, settings.resources));
  router.use(tokenEndpoints(ctx, server, settings));
  router.use(oauthErrorHandler);
  return router;
}
