import type { Db } from '../../db/knex';
import { apiClient, newTeam, startTestApi, TestTeam, testDb } from '../support/helpers';

describe('authentication, team scoping and agents', () => {
  let db: Db;
  let server: Awaited<ReturnType<typeof startTestApi>>;
  let team: TestTeam;
  let other: TestTeam;

  beforeAll(async () => {
    db = testDb();
    server = await startTestApi(db);
    team = await newTeam(db, 'auth');
    other = await newTeam(db, 'auth-other');
  });
  afterAll(async () => {
    await server.close();
    await db.destroy();
  });

  // Every row has three entries: a shorter row would make jest pass a `done` callback as `body`.
  const endpoints: [string, string, unknown][] = [
    ['GET', '/agents', undefined],
    ['GET', '/contacts', undefined],
    ['POST', '/contacts', { name: 'x' }],
    ['POST', '/jobs', { type: 'contacts.export' }],
    ['GET', '/jobs/job_x', undefined],
  ];

  it.each(endpoints)('%s %s without a credential → 401 with WWW-Authenticate', async (method, path, body) => {
    const res = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { 'x-team-slug': team.slug, 'content-type': 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(((await res.json()) as any).error.code).toBe('unauthorized');
  });

  it.each(['tap_unknown', 'not-even-a-token', ''])('an unknown bearer token %p → 401', async (token) => {
    const res = await apiClient(server.baseUrl, { token, slug: team.slug }).get('/agents');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
  });

  it('a revoked or expired token → 401', async () => {
    const revoked = await newTeam(db, 'revoked');
    await db('api_tokens').where({ user_id: revoked.userId }).update({ revoked_at: db.fn.now() });
    expect((await apiClient(server.baseUrl, revoked).get('/agents')).status).toBe(401);
    const expired = await newTeam(db, 'expired');
    await db('api_tokens')
      .where({ user_id: expired.userId })
      .update({ expires_at: new Date(Date.now() - 1000) });
    expect((await apiClient(server.baseUrl, expired).get('/agents')).status).toBe(401);
  });

  it('a missing or malformed X-Team-Slug → 400', async () => {
    const missing = await fetch(`${server.baseUrl}/agents`, { headers: { authorization: `Bearer ${team.token}` } });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as any).error.details.issues[0].path).toBe('x-team-slug');
    const malformed = await apiClient(server.baseUrl, { token: team.token, slug: 'Not A Slug' }).get('/agents');
    expect(malformed.status).toBe(400);
  });

  it('a team the user is not in, or that does not exist, → the same 403', async () => {
    const notMine = await apiClient(server.baseUrl, { token: team.token, slug: other.slug }).get('/contacts');
    const unknown = await apiClient(server.baseUrl, { token: team.token, slug: 'no-such-team-anywhere' }).get(
      '/contacts',
    );
    expect(notMine.status).toBe(403);
    expect(unknown.status).toBe(403);
    expect(notMine.body.error.code).toBe('forbidden');
    expect(unknown.body.error.code).toBe('forbidden');
  });

  it("lists the team's agents with the spec's fields and pagination", async () => {
    await db('agents').insert([
      { team_id: team.teamId, name: 'Second', slug: 'second' },
      { team_id: team.teamId, name: 'Third', slug: 'third' },
    ]);
    const api = apiClient(server.baseUrl, team);
    const page1 = await api.get('/agents?limit=2');
    expect(page1.status).toBe(200);
    expect(page1.body.data).toHaveLength(2);
    expect(page1.body.data[0]).toMatchObject({ uuid: team.agentId, name: 'Assistant', slug: 'assistant' });
    expect(page1.body.data[0].uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const page2 = await api.get(`/agents?limit=2&cursor=${page1.body.pagination.nextCursor}`);
    expect(page2.body.data.map((a: { slug: string }) => a.slug)).toEqual(['third']);
    expect(page2.body.pagination).toEqual({ nextCursor: null, limit: 2 });
    expect((await api.get('/agents?limit=101')).status).toBe(400);
  });

  it("never shows one team's agents, contacts or jobs to another team", async () => {
    const mine = apiClient(server.baseUrl, team);
    const theirs = apiClient(server.baseUrl, other);
    const contact = await mine.post('/contacts', { name: 'Private Person', email: 'private@example.com' });
    const job = await mine.post('/jobs', { type: 'contacts.export' });

    const theirAgents = await theirs.get('/agents');
    expect(theirAgents.body.data.map((a: { uuid: string }) => a.uuid)).toEqual([other.agentId]);
    const theirContacts = await theirs.get('/contacts?limit=100');
    expect(theirContacts.body.data.map((c: { id: string }) => c.id)).not.toContain(contact.body.id);
    expect((await theirs.get(`/contacts/${contact.body.id}`)).status).toBe(404);
    expect((await theirs.get(`/jobs/${job.body.jobId}`)).status).toBe(404);
    // The same email is free in the other team: contacts are per team.
    expect((await theirs.post('/contacts', { email: 'private@example.com' })).status).toBe(201);
  });
});
