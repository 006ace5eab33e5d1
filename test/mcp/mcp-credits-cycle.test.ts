import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Db } from '../../db/knex';
import type { RunningServer } from '../../server';
import { apiClient, newTeam, startTestApi, testDb, type ApiClient, type TestTeam } from '../support/helpers';
import { failing, mcpClient, ok } from '../support/mcpHelpers';

/**
 * MCP credits reset when a new billing cycle (a calendar month, UTC) starts. Credits are exhausted
 * through tools/call; then the month turns: the usage rows those calls wrote are dated last month,
 * which is what the stored cycle of those calls is once the clock passes the 1st. Issue 38 item 17.
 */
describe('MCP credits across billing cycles', () => {
  let db: Db;
  let server: RunningServer & { baseUrl: string };
  let team: TestTeam;
  let api: ApiClient;
  let mcp: Client;

  beforeAll(async () => {
    db = testDb();
    server = await startTestApi(db, { MCP_CREDITS: JSON.stringify({ free: 3 }) });
    team = await newTeam(db, 'mcp-cycle');
    api = apiClient(server.baseUrl, team);
    mcp = await mcpClient(server.ctx.config.mcpEndpoint, team.token, { 'x-team-slug': team.slug });
  });
  afterAll(async () => {
    await mcp?.close();
    await server?.close();
    await db?.destroy();
  });

  const now = new Date();
  const monthStart = (offset: number) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1));

  it('exhausted this cycle, the calls succeed again in the next one, counted from zero', async () => {
    for (let i = 0; i < 3; i++) await ok(mcp, 'svc_agent_info');
    const refused = await failing(mcp, 'svc_agent_info');
    expect(refused).toMatchObject({
      code: 'credits_exhausted',
      details: { allowance: 3, used: 3, cost: 1, resetsAt: monthStart(1).toISOString() },
    });
    expect((await api.get('/credits')).body).toMatchObject({
      plan: 'free',
      allowance: 3,
      used: 3,
      remaining: 0,
      calls: 3,
      refused: 1,
      cycleStart: monthStart(0).toISOString(),
      cycleEnd: monthStart(1).toISOString(),
    });

    // The month turns: what was counted is last month's cycle now.
    const lastMonth = monthStart(-1).toISOString().slice(0, 10);
    expect(await db('credit_usage').where({ team_id: team.teamId }).update({ cycle_start: lastMonth })).toBe(1);

    const info = await ok(mcp, 'svc_agent_info');
    expect(info.credits).toMatchObject({ allowance: 3, used: 1, remaining: 2, calls: 1, refused: 0 });
    await ok(mcp, 'svc_agent_info');
    await ok(mcp, 'svc_agent_info');
    expect(await failing(mcp, 'svc_agent_info')).toMatchObject({
      code: 'credits_exhausted',
      details: { allowance: 3, used: 3 },
    });
    expect((await api.get('/credits')).body).toMatchObject({
      used: 3,
      remaining: 0,
      calls: 3,
      refused: 1,
      cycleStart: monthStart(0).toISOString(),
    });
    // Last month's count stays as it was.
    expect(
      await db('credit_usage')
        .where({ team_id: team.teamId, cycle_start: lastMonth })
        .first(db.raw('sum(used)::int AS used, sum(calls)::int AS calls, sum(refused)::int AS refused')),
    ).toEqual({ used: 3, calls: 3, refused: 1 });
  });
});
