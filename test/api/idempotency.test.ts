import type { Db } from '../../db/knex';
import { runIdempotent } from '../../services/platform/idempotency';
import { newTeam, testDb } from '../support/helpers';

/** The idempotency store on its own, against Postgres: claims, leases and who may write. */
describe('runIdempotent', () => {
  let db: Db;
  let teamId: string;
  beforeAll(async () => {
    db = testDb();
    teamId = (await newTeam(db, 'idem-unit')).teamId;
  });
  afterAll(() => db.destroy());

  it('never lets a holder whose lease expired overwrite the claim of the request that took over', async () => {
    const scope = { teamId, operation: 'test.slow', key: 'lease-1' };
    let releaseFirst!: () => void;
    const firstMayFinish = new Promise<void>((r) => {
      releaseFirst = r;
    });
    let firstStarted!: () => void;
    const firstIsRunning = new Promise<void>((r) => {
      firstStarted = r;
    });
    const first = runIdempotent(db, scope, { a: 1 }, async () => {
      firstStarted();
      await firstMayFinish;
      return { status: 201, body: { from: 'first' } };
    });
    await firstIsRunning;
    // The first holder stalls past its lease (as if frozen), and a retry takes the key over.
    await db('idempotency_keys')
      .where({ team_id: teamId, key: 'lease-1' })
      .update({ locked_until: db.raw("now() - interval '1 second'") });
    let secondRuns = 0;
    const second = await runIdempotent(db, scope, { a: 1 }, async () => {
      secondRuns++;
      return { status: 201, body: { from: 'second' } };
    });
    expect(secondRuns).toBe(1);
    expect(second.body).toEqual({ from: 'second' });

    releaseFirst();
    await first;
    // The stale holder finished last, yet the stored answer is still the second one's.
    const replay = await runIdempotent(db, scope, { a: 1 }, async () => {
      throw new Error('must not run');
    });
    expect(replay).toMatchObject({ replayed: true, body: { from: 'second' } });
  });

  it('releases the key when the operation fails on the server side, so a retry runs', async () => {
    const scope = { teamId, operation: 'test.flaky', key: 'flaky-1' };
    await expect(
      runIdempotent(db, scope, {}, async () => {
        throw new Error('database went away');
      }),
    ).rejects.toThrow('database went away');
    const retry = await runIdempotent(db, scope, {}, async () => ({ status: 201, body: { ok: true } }));
    expect(retry).toMatchObject({ replayed: false, body: { ok: true } });
  });
});
