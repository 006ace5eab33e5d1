// The library's built-in grant types are not in its public typings; we extend them (services/identity/oauth/grantTypes.ts).
declare module '@node-oauth/oauth2-server/lib/grant-types/*' {
  import type OAuth2Server from '@node-oauth/oauth2-server';
  const GrantType: new (options: Record<string, unknown>) => {
    handle(request: OAuth2Server.Request, client: OAuth2Server.Client): Promise<OAuth2Server.Token>;
    saveToken(
      user: Record<string, unknown>,
      client: OAuth2Server.Client,
      ...rest: unknown[]
    ): Promise<OAuth2Server.Token>;
    validateRedirectUri(request: OAuth2Server.Request, code: OAuth2Server.AuthorizationCode): void;
  };
  export = GrantType;
}
