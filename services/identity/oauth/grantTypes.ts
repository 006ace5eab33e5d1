import OAuth2Server from '@node-oauth/oauth2-server';
import AuthorizationCodeGrantType from '@node-oauth/oauth2-server/lib/grant-types/authorization-code-grant-type';
import ClientCredentialsGrantType from '@node-oauth/oauth2-server/lib/grant-types/client-credentials-grant-type';
import RefreshTokenGrantType from '@node-oauth/oauth2-server/lib/grant-types/refresh-token-grant-type';

type GrantTypeClass = typeof AuthorizationCodeGrantType;

/**
 * The library ignores RFC 8707 `resource`; each grant hands the request's `resource` to the
 * model's `saveToken` (on the subject), which binds the token's audience.
 */
function bindingResource(Base: GrantTypeClass): GrantTypeClass {
  return class extends Base {
    private requestedResource: unknown;

    async handle(request: OAuth2Server.Request, client: OAuth2Server.Client) {
      this.requestedResource = request.body?.resource;
      return super.handle(request, client);
    }

    async saveToken(user: Record<string, unknown>, client: OAuth2Server.Client, ...rest: unknown[]) {
      return super.saveToken({ ...user, requestedResource: this.requestedResource }, client, ...rest);
    }
  };
}

/** RFC 6749 §5.2: a redirect_uri that differs from the authorization request's is `invalid_grant`. */
class AuthorizationCodeGrant extends bindingResource(AuthorizationCodeGrantType) {
  validateRedirectUri(request: OAuth2Server.Request, code: OAuth2Server.AuthorizationCode) {
    const presented = request.body?.redirect_uri;
    if (presented !== code.redirectUri) {
      throw new OAuth2Server.InvalidGrantError(
        'Invalid grant: redirect_uri does not match the one of the authorization request',
      );
    }
  }
}

/** Our grant types, in place of the library's of the same names (the password grant is not offered). */
export const grantTypes = {
  authorization_code: AuthorizationCodeGrant,
  refresh_token: bindingResource(RefreshTokenGrantType),
  client_credentials: bindingResource(ClientCredentialsGrantType),
} as unknown as Record<string, typeof OAuth2Server.AbstractGrantType>;
