import { useApiSuite } from '../support/helpers';

/** Every segment condition type, evaluated in SQL, through the HTTP API (preview counts and campaign audiences). */
describe('segments', () => {
  const suite = useApiSuite('segments');
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    const add = async (key: string, body: Record<string, unknown>, patch: Record<string, unknown> = {}) => {
      const created = await suite.api.post('/contacts', body);
      ids[key] = created.body.id;
      if (Object.keys(patch).length)
        expect((await suite.api.call('PATCH', `/contacts/${ids[key]}`, patch)).status).toBe(200);
    };
    await add(
      'buyer',
      { name: 'Big Buyer', email: 'buyer@shop.example', tags: ['vip'], properties: { tier: 'gold' } },
      { marketingConsent: 'granted', lastContactAt: '2026-01-10T00:00:00Z' },
    );
    await add(
      'small',
      { name: 'Small Buyer', email: 'small@other.example', phone: '+15550001' },
      { waitingOn: 'quote', lastContactAt: '2026-03-01T00:00:00Z' },
    );
    await add('never', { name: 'No Orders', phone: '+15550002', tags: ['lead'] }, { optedOut: true });
    await suite.db('contacts').where({ id: ids.buyer }).update({ user_id: suite.team.userId });
    for (const [amount, at] of [
      [500, '2026-02-01T00:00:00Z'],
      [300, '2026-05-01T00:00:00Z'],
    ] as const) {
      expect((await suite.api.post(`/contacts/${ids.buyer}/orders`, { amount, orderedAt: at })).status).toBe(201);
    }
    await suite.api.post(`/contacts/${ids.small}/orders`, { amount: 20, orderedAt: '2026-01-15T00:00:00Z' });
    await suite
      .db('contacts')
      .whereIn('id', [ids.buyer, ids.small, ids.never])
      .update({ created_at: suite.db.raw("'2026-01-01'::timestamptz") });
    await suite
      .db('contacts')
      .where({ id: ids.never })
      .update({ created_at: suite.db.raw("'2026-06-01'::timestamptz") });
  });

  async function members(conditions: unknown[], match: 'all' | 'any' = 'all'): Promise<string[]> {
    const segment = await suite.api.post('/segments', { name: 'probe', groups: [{ match, conditions }] });
    expect(segment.status).toBe(201);
    return segmentMembers(segment.body.id);
  }

  /** Who is in a segment, through GET /segments/{id}/contacts, named by this test's keys. */
  async function segmentMembers(segmentId: string): Promise<string[]> {
    const res = await suite.api.get(`/segments/${segmentId}/contacts?limit=100`);
    expect(res.status).toBe(200);
    const found = res.body.data.map((c: { id: string }) => c.id);
    return Object.entries(ids)
      .filter(([, id]) => found.includes(id))
      .map(([key]) => key)
      .sort();
  }

  it.each([
    ['tag', [{ type: 'tag', value: 'vip' }], ['buyer']],
    ['has_email', [{ type: 'has_email' }], ['buyer', 'small']],
    ['has_phone', [{ type: 'has_phone' }], ['never', 'small']],
    ['has_user', [{ type: 'has_user' }], ['buyer']],
    ['never_purchased', [{ type: 'never_purchased' }], ['never']],
    ['last_purchase_after', [{ type: 'last_purchase_after', value: '2026-04-01T00:00:00Z' }], ['buyer']],
    ['last_purchase_before', [{ type: 'last_purchase_before', value: '2026-04-01T00:00:00Z' }], ['small']],
    ['order_count_at_least', [{ type: 'order_count_at_least', value: 2 }], ['buyer']],
    ['total_order_amount', [{ type: 'total_order_amount', value: 800 }], ['buyer']],
    ['avg_order_value_at_least', [{ type: 'avg_order_value_at_least', value: 100 }], ['buyer']],
    ['last_contact_after', [{ type: 'last_contact_after', value: '2026-02-01T00:00:00Z' }], ['small']],
    ['last_contact_before', [{ type: 'last_contact_before', value: '2026-02-01T00:00:00Z' }], ['buyer']],
    ['waiting_on (any)', [{ type: 'waiting_on' }], ['small']],
    ['waiting_on (a state)', [{ type: 'waiting_on', value: 'invoice' }], []],
    ['created_after', [{ type: 'created_after', value: '2026-03-01T00:00:00Z' }], ['never']],
    ['created_before', [{ type: 'created_before', value: '2026-03-01T00:00:00Z' }], ['buyer', 'small']],
    ['email_contains', [{ type: 'email_contains', value: '@shop.' }], ['buyer']],
    ['email_contains treats % literally', [{ type: 'email_contains', value: '%' }], []],
    ['marketing_opt_out', [{ type: 'marketing_opt_out', value: true }], ['never']],
    ['prop', [{ type: 'prop', value: 'tier:gold' }], ['buyer']],
    ['a group of all', [{ type: 'has_email' }, { type: 'never_purchased' }], []],
  ])('%s', async (_name, conditions, expected) => {
    expect(await members(conditions)).toEqual(expected);
  });

  it('groups of any, and groups combined', async () => {
    expect(
      await members(
        [
          { type: 'tag', value: 'vip' },
          { type: 'tag', value: 'lead' },
        ],
        'any',
      ),
    ).toEqual(['buyer', 'never']);
    const segment = await suite.api.post('/segments', {
      name: 'two groups',
      match: 'any',
      groups: [
        { conditions: [{ type: 'tag', value: 'lead' }] },
        { match: 'all', conditions: [{ type: 'has_email' }, { type: 'waiting_on' }] },
      ],
    });
    expect(await segmentMembers(segment.body.id)).toEqual(['never', 'small']);
  });

  it('prop needs the key to exist on a contact; bad conditions are 400; no update exists; delete works', async () => {
    const unknown = await suite.api.post('/segments', {
      name: 'x',
      groups: [{ conditions: [{ type: 'prop', value: 'nothing:here' }] }],
    });
    expect([unknown.status, unknown.body.error.code]).toEqual([422, 'unknown_property']);
    const bad = await suite.api.post('/segments', { name: 'x', groups: [{ conditions: [{ type: 'tag' }] }] });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'validation_error']);
    const unknownType = await suite.api.post('/segments', {
      name: 'x',
      groups: [{ conditions: [{ type: 'zodiac', value: 'leo' }] }],
    });
    expect(unknownType.status).toBe(400);
    const created = await suite.api.post('/segments', {
      name: 'gone soon',
      groups: [{ conditions: [{ type: 'has_email' }] }],
    });
    expect((await suite.api.call('PATCH', `/segments/${created.body.id}`, { name: 'y' })).status).toBe(404);
    expect((await suite.api.get(`/segments/${created.body.id}`)).body).toMatchObject({
      name: 'gone soon',
      match: 'all',
    });
    expect((await suite.api.call('DELETE', `/segments/${created.body.id}`)).status).toBe(204);
    expect((await suite.api.get(`/segments/${created.body.id}`)).status).toBe(404);
  });

  it('previews an audience: sendable versus skipped with reasons', async () => {
    const preview = await suite.api.post('/campaigns/audience-preview', {
      channel: 'sms',
      contactIds: Object.values(ids),
    });
    // buyer: no phone but consent granted → missing_channel; small: consent pending; never: opted out.
    expect(preview.body).toEqual({
      channel: 'sms',
      total: 3,
      sendable: 0,
      skipped: { pending_consent: 1, opted_out: 1, missing_channel: 1 },
    });
    const email = await suite.api.post('/campaigns/audience-preview', { channel: 'email', contactIds: [ids.buyer] });
    expect(email.body).toMatchObject({ total: 1, sendable: 1 });
  });
});
