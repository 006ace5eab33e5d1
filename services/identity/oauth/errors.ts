import OAuth2Server from '@node-oauth/oauth2-server';

/**
 * An error the OAuth endpoints answer in RFC 6749 §5.2 form, `{ error, error_description }`, not
 * in the API's envelope. Subclasses the library's OAuthError so the library passes it through.
 */
export class OAuthProtocolError extends OAuth2Server.OAuthError {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(description, { code: status, name: error });
  }
}

export const invalidTarget = (description: string) => new OAuthProtocolError('invalid_target', description);

/** RFC 6749 §5.2: a failed client authentication is 401 with a Basic challenge. */
export const invalidClient = (description = 'Client authentication failed') =>
  new OAuthProtocolError('invalid_client', description, 401, {
    'WWW-Authenticate': 'Basic realm="oauth", charset="UTF-8"',
  });
