import type { Db } from '../../db/knex';
import { runCli } from '../support/cli';
import { apiClient, startTestApi, testDb } from '../support/helpers';

const bootstrap = (...args: string[]) => runCli('bootstrap', ...args);

describe('npm run cli -- bootstrap', () => {
  let db: Db;
  let server: Awaited<ReturnType<typeof startTestApi>>;
  beforeAll(async () => {
    db = testDb();
    server = await startTestApi(db);
  });
  afterAll(async () => {
    await server.close();
    await db.destroy();
  });

  it('prints one JSON line with team, agent and a working token; a second run keeps the team and agent', async () => {
    const slug = `cli-${process.pid}-${Date.now().toString(36)}`;
    const first = await bootstrap('--team', slug);
    const lines = first.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const created = JSON.parse(lines[0]);
    expect(Object.keys(created).sort()).toEqual(['agentId', 'email', 'team', 'token']);
    expect(created.team).toBe(slug);

    const api = apiClient(server.baseUrl, { token: created.token, slug });
    const agents = await api.get('/agents');
    expect(agents.status).toBe(200);
    expect(agents.body.data.map((a: { uuid: string }) => a.uuid)).toEqual([created.agentId]);

    const second = JSON.parse((await bootstrap('--team', slug)).stdout.trim());
    expect(second.agentId).toBe(created.agentId);
    expect(second.token).not.toBe(created.token);
    expect((await apiClient(server.baseUrl, { token: second.token, slug }).get('/agents')).status).toBe(200);
    expect((await api.get('/agents')).status).toBe(200);

    // Only hashes are stored.
    const stored = await db('api_tokens').select('token_hash');
    expect(stored.map((t) => t.token_hash)).not.toContain(created.token);
  });

  it('refuses a slug that is not a slug, with exit code 2', async () => {
    await expect(bootstrap('--team', 'Not A Slug')).rejects.toMatchObject({ code: 2 });
    await expect(bootstrap()).rejects.toMatchObject({ code: 2 });
  });
});
