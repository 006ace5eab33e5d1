import { useApiSuite } from '../support/helpers';

/**
 * Agents and contacts accept and return additional properties of any JSON type (spec ›
 * Conventions; issue 38 item 10): kept under `properties`, merged key by key by PATCH, `null`
 * removing one.
 */
describe('additional properties of agents and contacts', () => {
  const suite = useApiSuite('extra-props');

  it('a contact is created with object, array and scalar additional properties, and reads them back', async () => {
    const created = await suite.api.post('/contacts', {
      name: 'Ada Lovelace',
      address: { city: 'London', lines: ['12 St James’s Square'] },
      interests: ['engines', 'poetry'],
      visits: 3,
      vip: true,
      nickname: null,
      properties: { source: { campaign: 'fair', year: 1843 } },
    });
    expect(created.status).toBe(201);
    const expected = {
      address: { city: 'London', lines: ['12 St James’s Square'] },
      interests: ['engines', 'poetry'],
      visits: 3,
      vip: true,
      nickname: null,
      source: { campaign: 'fair', year: 1843 },
    };
    expect(created.body.properties).toEqual(expected);
    expect(created.body).not.toHaveProperty('address');
    expect((await suite.api.get(`/contacts/${created.body.id}`)).body.properties).toEqual(expected);
  });

  it('PATCH merges additional properties into a contact: new keys added, others kept, null removes one', async () => {
    const id = (await suite.api.post('/contacts', { name: 'Grace Hopper', tier: 'gold', team: { name: 'Navy' } })).body
      .id;
    const patched = await suite.api.call('PATCH', `/contacts/${id}`, {
      company: 'US Navy',
      languages: ['COBOL', 'FLOW-MATIC'],
      team: { name: 'Navy', rank: 'Rear Admiral' },
      tier: null,
      properties: { score: 9.5 },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.company).toBe('US Navy');
    const merged = { team: { name: 'Navy', rank: 'Rear Admiral' }, languages: ['COBOL', 'FLOW-MATIC'], score: 9.5 };
    expect(patched.body.properties).toEqual(merged);
    expect((await suite.api.get(`/contacts/${id}`)).body.properties).toEqual(merged);
    // The own fields keep their rules.
    const bad = await suite.api.call('PATCH', `/contacts/${id}`, { email: 'not-an-email', extra: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(['email']);
  });

  it('PATCH merges additional properties into an agent; GET /agents answers them', async () => {
    const path = `/agents/${suite.team.agentId}`;
    const first = await suite.api.call('PATCH', path, {
      mode: 'manual',
      persona: { tone: 'warm', languages: ['en', 'fr'] },
      shifts: [{ from: '09:00', to: '17:00' }],
      priority: 2,
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      mode: 'manual',
      properties: {
        persona: { tone: 'warm', languages: ['en', 'fr'] },
        shifts: [{ from: '09:00', to: '17:00' }],
        priority: 2,
      },
    });
    const second = await suite.api.call('PATCH', path, { priority: null, region: 'eu', properties: { on: true } });
    expect(second.status).toBe(200);
    const merged = {
      persona: { tone: 'warm', languages: ['en', 'fr'] },
      shifts: [{ from: '09:00', to: '17:00' }],
      region: 'eu',
      on: true,
    };
    expect(second.body).toMatchObject({ mode: 'manual', properties: merged });
    const listed = (await suite.api.get('/agents')).body.data.find(
      (a: { uuid: string }) => a.uuid === suite.team.agentId,
    );
    expect(listed.properties).toEqual(merged);
    // The own fields keep their rules.
    expect((await suite.api.call('PATCH', path, { mode: 'sometimes', x: 1 })).status).toBe(400);
  });

  it('the OpenAPI document lets both bodies carry additional properties of any type', async () => {
    const doc = (await (await fetch(`${suite.server.baseUrl}/openapi.json`)).json()) as any;
    const body = (path: string, method: string) =>
      doc.paths[path][method].requestBody.content['application/json'].schema;
    for (const [path, method] of [
      ['/contacts', 'post'],
      ['/contacts/{contactId}', 'patch'],
      ['/agents/{agentId}', 'patch'],
    ]) {
      const schema = body(path, method);
      expect({ path, method, additionalProperties: schema.additionalProperties }).toEqual({
        path,
        method,
        // No type: any JSON value.
        additionalProperties: { description: 'Any JSON value' },
      });
    }
  });
});
