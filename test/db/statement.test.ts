import { createDb, Db } from '../../db/knex';
import { firstRow, runStatement, statement, statementOf } from '../../db/statement';
import { newTeam } from '../support/helpers';

/**
 * `statement` against the real Postgres: each run answers for its own values, the text is
 * prepared once on a connection however often it runs there, and a statement given a
 * transaction runs in it.
 */
describe('statement', () => {
  // One connection, so that every statement below runs on the connection whose statements are read.
  let db: Db;
  beforeAll(() => {
    db = createDb(process.env.DATABASE_URL!, { max: 1 });
  });
  afterAll(() => db.destroy());

  it('numbers its ? marks, keeps \\? literal, and answers each run with its own values', () => {
    const made = statement(`SELECT slug FROM teams WHERE id = ? AND slug <> '\\?' LIMIT ?`);
    expect(made.text).toBe(`SELECT slug FROM teams WHERE id = $1 AND slug <> '?' LIMIT $2`);
    expect(made.name).toMatch(/^s_[\w-]{27}$/);
    expect(statementOf(`SELECT slug FROM teams WHERE id = ? AND slug <> '\\?' LIMIT ?`)).toEqual(made);
  });

  it('answers each run with its own values and prepares the text once per connection', async () => {
    const [a, b] = [await newTeam(db, 'stmt-a'), await newTeam(db, 'stmt-b')];
    const slugOf = statement<{ slug: string }>('SELECT slug FROM teams WHERE id = ?');
    for (let round = 0; round < 3; round++) {
      expect(await firstRow(db, slugOf, [a.teamId])).toEqual({ slug: a.slug });
      expect(await firstRow(db, slugOf, [b.teamId])).toEqual({ slug: b.slug });
    }
    expect(await firstRow(db, slugOf, ['00000000-0000-4000-8000-000000000000'])).toBeUndefined();
    const { rows } = await db.raw('SELECT name FROM pg_prepared_statements WHERE statement = ?', [slugOf.text]);
    expect(rows).toEqual([{ name: slugOf.name }]);
  });

  it('runs in the transaction it is given: a rollback takes its write back', async () => {
    const team = await newTeam(db, 'stmt-c');
    const insertJob = statement<{ id: string }>(
      `INSERT INTO jobs (id, team_id, type, status, workflow_id) VALUES (?, ?, 'contacts.export', 'queued', ?)
       ON CONFLICT (id) DO NOTHING RETURNING id`,
    );
    const id = `job_stmt_${Date.now()}`;
    await expect(
      db.transaction(async (trx) => {
        expect(await runStatement(trx, insertJob, [id, team.teamId, `job-${id}`])).toEqual([{ id }]);
        expect(await trx('jobs').where({ id }).first('status')).toEqual({ status: 'queued' });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await db('jobs').where({ id }).first()).toBeUndefined();
    expect(await runStatement(db, insertJob, [id, team.teamId, `job-${id}`])).toEqual([{ id }]);
    expect(await runStatement(db, insertJob, [id, team.teamId, `job-${id}`])).toEqual([]);
  });

  it('answers a bad statement with the error Postgres gives, and the connection serves the next', async () => {
    const broken = statement('SELECT no_such_column FROM teams WHERE id = ?');
    await expect(runStatement(db, broken, ['x'])).rejects.toMatchObject({ code: '42703' });
    expect(await firstRow(db, statement<{ one: number }>('SELECT 1 AS one'), [])).toEqual({ one: 1 });
  });
});
