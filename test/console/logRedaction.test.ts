import { redactHeaders } from '../../api/app';

/** The console's session is an API token in a cookie: the request log must never carry it. */
describe('request log redaction', () => {
  it('redacts the console session cookie, the bearer the console gate sets, and the CSRF token', () => {
    expect(
      redactHeaders({
        cookie: 'tap_console_team=acme; tap_console=tap_secretsecret; other=1',
        authorization: 'Bearer tap_secretsecret',
        'x-csrf-token': 'csrf-value',
        accept: 'application/json',
      }),
    ).toEqual({
      cookie: 'tap_console_team=acme; tap_console=[redacted]; other=1',
      authorization: '[redacted]',
      'x-csrf-token': '[redacted]',
      accept: 'application/json',
    });
  });
});
