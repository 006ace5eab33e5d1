import { problemSchema } from '../../api/problemJson';
import { useApiSuite } from '../support/helpers';

/**
 * Errors as RFC 9457 problem details when the client asks for them with `Accept:
 * application/problem+json` (issue 38 item 11); otherwise the spec's envelope, unchanged.
 */
describe('errors as application/problem+json', () => {
  const suite = useApiSuite('problem');
  const PROBLEM = 'application/problem+json';

  it('answers the envelope without Accept, with application/json or */*, and problem+json when asked', async () => {
    for (const accept of [undefined, 'application/json', '*/*', 'text/html']) {
      const res = await suite.api.get('/contacts/ct_nobody', accept ? { accept } : {});
      expect({ accept, status: res.status, type: res.headers.get('content-type') }).toEqual({
        accept,
        status: 404,
        type: 'application/json; charset=utf-8',
      });
      expect(res.body).toEqual({ error: { code: 'not_found', message: 'Contact not found' } });
      expect(res.headers.get('vary')).toMatch(/Accept/i);
    }
    const problem = await suite.api.get('/contacts/ct_nobody?x=1', { accept: PROBLEM });
    expect(problem.status).toBe(404);
    expect(problem.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(problem.body).toEqual({
      type: 'about:blank',
      title: 'Not Found',
      status: 404,
      detail: 'Contact not found',
      instance: '/v1/contacts/ct_nobody',
      code: 'not_found',
    });
    expect(problemSchema.strict().safeParse(problem.body).error).toBeUndefined();
  });

  it('follows the preference Accept gives (q values), and carries details as an extension member', async () => {
    const bad = { name: 42 };
    const preferred = await suite.api.post('/contacts', bad, { accept: `application/json;q=0.5, ${PROBLEM}` });
    expect(preferred.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const envelope = await suite.api.post('/contacts', bad, { accept: `application/json, ${PROBLEM};q=0.5` });
    expect(envelope.headers.get('content-type')).toMatch(/^application\/json/);
    expect(envelope.body.error.code).toBe('validation_error');
    expect(preferred.body).toEqual({
      type: 'about:blank',
      title: 'Bad Request',
      status: 400,
      detail: envelope.body.error.message,
      instance: '/v1/contacts',
      code: 'validation_error',
      details: envelope.body.error.details,
    });
    expect(preferred.body.details.issues[0].path).toBe('name');
  });

  it("keeps an error's headers: 401 without a credential, as problem+json", async () => {
    const res = await fetch(`${suite.server.baseUrl}/agents`, { headers: { accept: PROBLEM } });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await res.json()).toMatchObject({
      type: 'about:blank',
      title: 'Unauthorized',
      status: 401,
      code: 'unauthorized',
    });
  });

  it('answers a replayed refusal (Idempotency-Key) in the form asked for, each time', async () => {
    const email = `taken.${Date.now()}@example.com`;
    const first = await suite.api.post('/contacts', { email });
    expect(first.status).toBe(201);
    const key = { 'idempotency-key': `problem-${Date.now()}` };
    const refused = await suite.api.post('/contacts', { email, name: 'Again' }, { ...key, accept: PROBLEM });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ status: 409, code: 'conflict', details: { contactId: first.body.id } });
    const replayed = await suite.api.post('/contacts', { email, name: 'Again' }, { ...key, accept: PROBLEM });
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(replayed.body).toEqual(refused.body);
    const asEnvelope = await suite.api.post('/contacts', { email, name: 'Again' }, key);
    expect(asEnvelope.body).toEqual({
      error: { code: 'conflict', message: refused.body.detail, details: refused.body.details },
    });
  });
});
