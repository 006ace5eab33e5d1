import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/knex';
import { chargeCredits, creditUsage } from '../../services/platform/credits';
import type { TeamRef } from '../../services/platform/context';
import { newTeam, testDb } from '../support/helpers';

/**
 * An unmetered team's charges, against the real Postgres: the calls that arrive while a count is
 * in flight are counted together, each settled only once its count has committed, none lost,
 * none counted twice, and a count that fails fails its calls instead of leaving them waiting.
 */
describe('unmetered credit counts', () => {
  const UNMETERED = { free: 50 }; // the teams below are on a plan this does not list
  let db: Db;
  const statements: string[] = [];
  beforeAll(() => {
    db = testDb();
    db.on('query', (q: { sql: string }) => {
      if (q.sql.startsWith('INSERT INTO credit_usage')) statements.push(q.sql);
    });
  });
  afterAll(() => db.destroy());

  const unmeteredTeam = async (prefix: string): Promise<TeamRef> => {
    const team = await newTeam(db, prefix);
    await db('teams').where({ id: team.teamId }).update({ plan: 'enterprise' });
    return { id: team.teamId, slug: team.slug, plan: 'enterprise' };
  };

  it('counts 300 concurrent calls exactly, in fewer statements than calls, each durable once settled', async () => {
    const team = await unmeteredTeam('count-batch');
    // One alone: settled, it is already in what a read of the usage sees.
    await chargeCredits(db, team, UNMETERED, 1);
    expect(await creditUsage(db, team, UNMETERED)).toMatchObject({ used: 1, calls: 1, allowance: null });

    statements.length = 0;
    const costs = Array.from({ length: 300 }, (_, i) => (i % 3 === 0 ? 2 : 1));
    await Promise.all(costs.map((cost) => chargeCredits(db, team, UNMETERED, cost)));
    expect(await creditUsage(db, team, UNMETERED)).toMatchObject({
      used: 1 + costs.reduce((a, b) => a + b, 0),
      calls: 301,
      refused: 0,
    });
    expect(statements.length).toBeGreaterThan(1);
    expect(statements.length).toBeLessThan(costs.length / 10);
  });

  it('a call charged as soon as the previous one settles is counted too (nothing waits on a finished count)', async () => {
    const team = await unmeteredTeam('count-chain');
    const chain = async () => {
      for (let i = 0; i < 20; i++) await chargeCredits(db, team, UNMETERED, 1);
    };
    await Promise.all(Array.from({ length: 10 }, chain));
    expect(await creditUsage(db, team, UNMETERED)).toMatchObject({ used: 200, calls: 200 });
  });

  it('a count that fails fails its calls and those waiting, and the next call is counted afresh', async () => {
    // A team Postgres does not know: the count's insert breaks its foreign key.
    const ghost: TeamRef = { id: randomUUID(), slug: 'ghost', plan: 'enterprise' };
    const settled = await Promise.allSettled(Array.from({ length: 40 }, () => chargeCredits(db, ghost, UNMETERED, 1)));
    expect(settled.map((s) => s.status)).toEqual(Array(40).fill('rejected'));
    expect(String((settled[0] as PromiseRejectedResult).reason)).toMatch(/foreign key/);
    await expect(chargeCredits(db, ghost, UNMETERED, 1)).rejects.toThrow(/foreign key/);
    expect(await db('credit_usage').where({ team_id: ghost.id })).toEqual([]);

    const team = await unmeteredTeam('count-after');
    await Promise.all(Array.from({ length: 40 }, () => chargeCredits(db, team, UNMETERED, 1)));
    expect(await creditUsage(db, team, UNMETERED)).toMatchObject({ used: 40, calls: 40 });
  });
});
