import type { Db } from '../../db/knex';
import { runCli } from '../support/cli';
import { apiClient, newTeam, startTestApi, testDb } from '../support/helpers';

const cli = runCli;

describe('npm run cli -- set-plan / grant-admin', () => {
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

  it('set-plan puts a team on pro: the team and its credits say so at once', async () => {
    const team = await newTeam(db, 'cli-plan');
    const { stdout } = await cli('set-plan', '--team', team.slug, '--plan', 'pro');
    const printed = JSON.parse(stdout.trim());
    expect(printed.team).toMatchObject({ slug: team.slug, plan: 'pro' });
    expect(printed.credits).toMatchObject({ plan: 'pro', allowance: 5000 });
    const api = apiClient(server.baseUrl, team);
    expect((await api.get('/team')).body.plan).toBe('pro');
    expect((await api.get('/credits')).body).toMatchObject({ plan: 'pro', allowance: 5000 });
  });

  it('refuses an unknown plan (listing the known ones), an unknown team and missing flags with exit code 2', async () => {
    const team = await newTeam(db, 'cli-plan-bad');
    await expect(cli('set-plan', '--team', team.slug, '--plan', 'platinum')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('Unknown plan "platinum"; known plans: free, pro'),
    });
    await expect(cli('set-plan', '--team', 'no-such-team-here', '--plan', 'pro')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('Team "no-such-team-here" not found'),
    });
    await expect(cli('set-plan', '--team', team.slug)).rejects.toMatchObject({ code: 2 });
    expect((await apiClient(server.baseUrl, team).get('/team')).body.plan).toBe('free');
  });

  it('grant-admin prints a token that may set plans over HTTP; revoke-admin takes that away', async () => {
    const team = await newTeam(db, 'cli-admin');
    const email = `ops-${process.pid}-${Date.now()}@platform.example`;
    const granted = JSON.parse((await cli('grant-admin', '--email', email)).stdout.trim());
    expect(granted).toMatchObject({ email, token: expect.stringMatching(/^tap_/) });
    const put = (token: string) =>
      fetch(`${server.baseUrl}/admin/teams/${team.slug}/plan`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{"plan":"pro"}',
      });
    expect((await put(team.token)).status).toBe(403);
    expect((await put(granted.token)).status).toBe(200);
    await cli('revoke-admin', '--email', email);
    expect((await put(granted.token)).status).toBe(403);
    await expect(cli('grant-admin', '--email', 'not-an-email')).rejects.toMatchObject({ code: 2 });
  });
});
