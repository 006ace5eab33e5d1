import type { Config } from '../../../config';
import { SUPPORTED_SCOPES } from '../scopes';
import type { OAuthSettings } from './grants';

export function oauthSettings(config: Config): OAuthSettings {
  return {
    issuer: config.authUrl,
    resources: [config.mcpEndpoint, config.baseUrl],
    accessTokenTtlSeconds: config.OAUTH_ACCESS_TOKEN_TTL,
    refreshTokenTtlSeconds: config.OAUTH_REFRESH_TOKEN_TTL,
    codeTtlSeconds: config.OAUTH_CODE_TTL,
  };
}

const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none'];

/** RFC 8414 authorization-server metadata, every field the spec lists and what clients check. */
export function authorizationServerMetadata(config: Config) {
  const issuer = config.authUrl;
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    registration_endpoint: `${issuer}/oauth/register`,
    revocation_endpoint: `${issuer}/oauth/token/revoke`,
    introspection_endpoint: `${issuer}/mcp/introspect`,
    scopes_supported: [...SUPPORTED_SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'client_credentials', 'refresh_token'],
    code_challenge_methods_supported: ['S256', 'plain'],
    token_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    revocation_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    introspection_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${config.baseUrl}/openapi.json`,
  };
}

/** RFC 9728 protected-resource metadata of one of our resources (the MCP endpoint, or the HTTP API). */
export function protectedResourceMetadata(config: Config, resource: string) {
  return {
    resource,
    authorization_servers: [config.authUrl],
    scopes_supported: [...SUPPORTED_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: resource.startsWith(config.mcpEndpoint) ? 'Team Agent Platform MCP' : 'Team Agent Platform HTTP API',
  };
}
