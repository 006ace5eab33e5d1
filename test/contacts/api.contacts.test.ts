import type { Db } from '../../db/knex';
import { apiClient, ApiClient, newTeam, startTestApi, TestTeam, useApiSuite } from '../support/helpers';

describe('contacts API', () => {
  const suite = useApiSuite('contacts');
  let db: Db;
  let server: Awaited<ReturnType<typeof startTestApi>>;
  let team: TestTeam;
  let api: ApiClient;
  beforeAll(() => ({ db, server, team, api } = suite));

  it('creates a contact, splitting the name into first word and remainder', async () => {
    const res = await api.post('/contacts', {
      name: 'Ada  Lovelace King',
      email: 'ada@example.com',
      phone: '+44 20 7946 0958',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Ada  Lovelace King',
      firstName: 'Ada',
      lastName: 'Lovelace King',
      email: 'ada@example.com',
      phone: '+44 20 7946 0958',
    });
    expect(res.body.id).toMatch(/^ct_[0-9a-z]{20}$/);
    expect(res.headers.get('location')).toBe(`${server.baseUrl}/contacts/${res.body.id}`);
    const read = await api.get(`/contacts/${res.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body.email).toBe('ada@example.com');
  });

  it('keeps additional properties of a contact as custom properties', async () => {
    const res = await api.post('/contacts', {
      name: 'Grace',
      company: 'Navy',
      vip: true,
      tier: 'gold',
      properties: { source: 'fair' },
    });
    expect(res.status).toBe(201);
    expect(res.body.company).toBe('Navy');
    expect(res.body.properties).toEqual({ vip: true, tier: 'gold', source: 'fair' });
    // One word: no last name; absent fields are left out, never null (the spec types them as strings).
    expect(res.body).not.toHaveProperty('lastName');
    expect(res.body).not.toHaveProperty('email');
  });

  it.each([
    ['a malformed email', { name: 'X', email: 'not-an-email' }, 'email'],
    ['a phone with letters', { phone: 'call me' }, 'phone'],
    ['a name that is not a string', { name: 42 }, 'name'],
  ])('rejects %s with 400 validation_error', async (_label, body, path) => {
    const res = await api.post('/contacts', body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.issues[0].path).toBe(path);
  });

  it('accepts an empty object, as every field is optional in the spec', async () => {
    const res = await api.post('/contacts', {});
    expect(res.status).toBe(201);
    expect(res.body.id).toMatch(/^ct_/);
  });

  it('answers 409 conflict for a second contact with the same email (any case)', async () => {
    const first = await api.post('/contacts', { email: 'dup@example.com' });
    const second = await api.post('/contacts', { email: 'DUP@example.com', name: 'Other' });
    expect(second.status).toBe(409);
    expect(second.body.error).toMatchObject({ code: 'conflict', details: { contactId: first.body.id } });
  });

  describe('bad requests get the error envelope, never a 500', () => {
    it('malformed JSON → 400', async () => {
      const res = await api.call('POST', '/contacts', '{"name": "x",', { 'content-type': 'application/json' });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    });
    it('wrong content type → 415', async () => {
      const res = await api.call('POST', '/contacts', 'name=x', {
        'content-type': 'application/x-www-form-urlencoded',
      });
      expect(res.status).toBe(415);
      expect(res.body.error.code).toBe('unsupported_media_type');
    });
    it('missing body → 400', async () => {
      const res = await api.post('/contacts');
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    });
    it('a JSON array instead of an object → 400', async () => {
      const res = await api.post('/contacts', [{ name: 'x' }]);
      expect(res.status).toBe(400);
    });
    it('oversized body → 413', async () => {
      const res = await api.post('/contacts', { name: 'x', notes: 'y'.repeat(2 * 1024 * 1024) });
      expect(res.status).toBe(413);
      expect(res.body.error.code).toBe('payload_too_large');
    });
    it('a NUL character in a field or a path → 400, not 500', async () => {
      const body = await api.post('/contacts', { name: 'a\u0000b' });
      expect(body.status).toBe(400);
      expect(body.body.error.code).toBe('validation_error');
      // The answer says why, without echoing the SQL statement.
      expect(body.body.error.details.issues[0].message).toContain('0x00');
      expect(JSON.stringify(body.body)).not.toContain('insert into');
      const path = await api.get('/contacts/%00');
      expect(path.status).toBe(400);
    });
    it('a body nested 20 000 levels deep → 400, not a stack overflow', async () => {
      const deep = `{"name":"x","extra":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
      const res = await api.call('POST', '/contacts', deep, {
        'content-type': 'application/json',
        'idempotency-key': 'deep',
      });
      expect(res.status).toBe(400);
      expect(res.body.error.details.issues[0].code).toBe('too_deep');
    });
    it('unknown route → 404', async () => {
      const res = await api.get('/nothing-here');
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    });
    it('unknown contact → 404', async () => {
      const res = await api.get('/contacts/ct_doesnotexist');
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    });
  });

  describe('pagination', () => {
    let pagedTeam: TestTeam;
    let paged: ApiClient;
    beforeAll(async () => {
      pagedTeam = await newTeam(db, 'paging');
      paged = apiClient(server.baseUrl, pagedTeam);
      for (let i = 0; i < 7; i++)
        expect((await paged.post('/contacts', { name: `Person ${i}`, email: `p${i}@example.com` })).status).toBe(201);
    });

    it('defaults to 25 and walks every page with nextCursor, each contact once', async () => {
      const first = await paged.get('/contacts');
      expect(first.body.pagination).toEqual({ nextCursor: null, limit: 25 });
      expect(first.body.data).toHaveLength(7);

      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res: any = await paged.get(`/contacts?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
        expect(res.status).toBe(200);
        expect(res.body.pagination.limit).toBe(3);
        seen.push(...res.body.data.map((c: { name: string }) => c.name));
        cursor = res.body.pagination.nextCursor;
        pages++;
      } while (cursor);
      expect(pages).toBe(3);
      expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `Person ${i}`));
    });

    it.each(['0', '101', 'abc', '2.5', '-1'])('rejects limit=%s with 400', async (limit) => {
      const res = await paged.get(`/contacts?limit=${limit}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    });

    it('accepts limit=100 and rejects a cursor it did not issue', async () => {
      expect((await paged.get('/contacts?limit=100')).status).toBe(200);
      const res = await paged.get('/contacts?cursor=garbage');
      expect(res.status).toBe(400);
      expect(res.body.error.details.issues[0].path).toBe('cursor');
    });
  });

  describe('Idempotency-Key', () => {
    it('replays the first response for the same key and body', async () => {
      const body = { name: 'Idem Potent', email: 'idem@example.com' };
      const first = await api.post('/contacts', body, { 'idempotency-key': 'create-idem-1' });
      const again = await api.post('/contacts', body, { 'idempotency-key': 'create-idem-1' });
      expect(first.status).toBe(201);
      expect(again.status).toBe(201);
      expect(again.body.id).toBe(first.body.id);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.headers.get('location')).toBe(first.headers.get('location'));
    });

    it('answers 409 conflict for the same key with another body', async () => {
      await api.post('/contacts', { name: 'A' }, { 'idempotency-key': 'create-idem-2' });
      const res = await api.post('/contacts', { name: 'B' }, { 'idempotency-key': 'create-idem-2' });
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('conflict');
    });

    it('gives twenty concurrent requests with one key one contact and the same answer', async () => {
      const body = { name: 'Concurrent', email: 'concurrent@example.com' };
      const results = await Promise.all(
        Array.from({ length: 20 }, () => api.post('/contacts', body, { 'idempotency-key': 'create-concurrent' })),
      );
      expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
      expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
      const rows = await db('contacts')
        .where({ team_id: team.teamId })
        .whereRaw("lower(email) = 'concurrent@example.com'");
      expect(rows).toHaveLength(1);
    });

    it('keeps keys per team: another team may use the same key', async () => {
      const other = await newTeam(db, 'idem-other');
      const otherApi = apiClient(server.baseUrl, other);
      const mine = await api.post('/contacts', { name: 'Shared key' }, { 'idempotency-key': 'shared-key' });
      const theirs = await otherApi.post('/contacts', { name: 'Shared key' }, { 'idempotency-key': 'shared-key' });
      expect(theirs.status).toBe(201);
      expect(theirs.body.id).not.toBe(mine.body.id);
    });

    it('rejects a key longer than 255 characters', async () => {
      const res = await api.post('/contacts', { name: 'X' }, { 'idempotency-key': 'k'.repeat(256) });
      expect(res.status).toBe(400);
      expect(res.body.error.details.issues[0].path).toBe('idempotency-key');
      expect((await api.post('/contacts', { name: 'X' }, { 'idempotency-key': 'k'.repeat(255) })).status).toBe(201);
    });

    it('replays a rule rejection too, without creating anything', async () => {
      await api.post('/contacts', { email: 'taken@example.com' });
      const first = await api.post('/contacts', { email: 'taken@example.com' }, { 'idempotency-key': 'rejected-once' });
      const again = await api.post('/contacts', { email: 'taken@example.com' }, { 'idempotency-key': 'rejected-once' });
      expect(first.status).toBe(409);
      expect(again.status).toBe(409);
      expect(again.body).toEqual(first.body);
    });
  });
});
