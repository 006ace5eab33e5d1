import type { Knex } from 'knex';
import { createDb, Db, preparedOnce } from '../../db/knex';
import { newTeam } from '../support/helpers';

/**
 * `preparedOnce` against the real Postgres: each call answers for its own bindings, and the text is
 * prepared once on a connection, however often it runs there.
 */
describe('preparedOnce', () => {
  // One connection, so that every statement below runs on the connection whose statements are read.
  let db: Db;
  beforeAll(() => {
    db = createDb(process.env.DATABASE_URL!, { max: 1 });
  });
  afterAll(() => db.destroy());

  it('answers each call with its own bindings and prepares the text once per connection', async () => {
    const [a, b] = [await newTeam(db, 'prep-a'), await newTeam(db, 'prep-b')];
    const slugOf = (teamId: string) => preparedOnce(db('teams').where({ id: teamId }).first('slug'));
    for (let round = 0; round < 3; round++) {
      expect(await slugOf(a.teamId)).toEqual({ slug: a.slug });
      expect(await slugOf(b.teamId)).toEqual({ slug: b.slug });
    }
    expect(await slugOf('00000000-0000-4000-8000-000000000000')).toBeUndefined();

    const { rows } = await db.raw(
      'SELECT name, statement FROM pg_prepared_statements WHERE statement LIKE \'select "slug" from "teams"%\'',
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].name).toMatch(/^p_[\w-]{27}$/);
  });

  it('keeps a statement of another shape apart, under a name of its own', async () => {
    const team = await newTeam(db, 'prep-c');
    const byId = await preparedOnce(db('teams').where({ id: team.teamId }).first('slug'));
    const bySlug = await preparedOnce(db('teams').where({ slug: team.slug }).first('id'));
    expect([byId, bySlug]).toEqual([{ slug: team.slug }, { id: team.teamId }]);
    const { rows } = await db.raw(
      `SELECT statement FROM pg_prepared_statements WHERE statement LIKE 'select "%" from "teams" where "%" = $1 limit $2'`,
    );
    expect(rows.map((r: { statement: string }) => r.statement).sort()).toEqual([
      'select "id" from "teams" where "slug" = $1 limit $2',
      'select "slug" from "teams" where "id" = $1 limit $2',
    ]);
  });

  it('runs an insert that returns what it inserted, and ignores a repeat, in a transaction too', async () => {
    const team = await newTeam(db, 'prep-d');
    const insertJob = (id: string, trx: Db | Knex.Transaction = db) =>
      preparedOnce(
        trx('jobs')
          .insert({ id, team_id: team.teamId, type: 'contacts.export', status: 'queued', workflow_id: `job-${id}` })
          .onConflict('id')
          .ignore()
          .returning('id'),
      );
    const id = `job_prep_${Date.now()}`;
    expect(await insertJob(id)).toEqual([{ id }]);
    expect(await insertJob(id)).toEqual([]);
    const other = `${id}_b`;
    await db.transaction(async (trx) => {
      expect(await insertJob(other, trx)).toEqual([{ id: other }]);
      expect(await insertJob(other, trx)).toEqual([]);
    });
    expect((await db('jobs').whereIn('id', [id, other]).pluck('id')).sort()).toEqual([id, other].sort());
    const { rows } = await db.raw(
      `SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement LIKE 'insert into "jobs"%'`,
    );
    expect(rows[0].n).toBe(1);
  });

  it('runs a raw statement prepared, each call with its own bindings', async () => {
    const twice = (n: number) =>
      preparedOnce(db.raw<{ rows: { doubled: number }[] }>('SELECT ?::int * 2 AS doubled', [n]));
    expect((await twice(2)).rows).toEqual([{ doubled: 4 }]);
    expect((await twice(21)).rows).toEqual([{ doubled: 42 }]);
    const { rows } = await db.raw(
      `SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement = 'SELECT $1::int * 2 AS doubled'`,
    );
    expect(rows[0].n).toBe(1);
  });

  // Why the prepared reads name their columns (the export's page, a turn's first read): a column a
  // migration adds changes what `*` returns, and Postgres refuses to run the prepared statement
  // again on that connection, until the process restarts.
  it('keeps answering after a migration adds a column when it names its columns, unlike `*`', async () => {
    await db.raw('DROP TABLE IF EXISTS prep_scratch');
    await db.raw('CREATE TABLE prep_scratch (id int PRIMARY KEY, label text)');
    await db('prep_scratch').insert({ id: 1, label: 'one' });
    const named = () => preparedOnce(db('prep_scratch').where({ id: 1 }).first('id', 'label'));
    const star = () => preparedOnce(db('prep_scratch').where({ id: 1 }).first());
    expect(await named()).toEqual({ id: 1, label: 'one' });
    expect(await star()).toEqual({ id: 1, label: 'one' });
    await db.raw('ALTER TABLE prep_scratch ADD COLUMN added text');
    expect(await named()).toEqual({ id: 1, label: 'one' });
    await expect(star()).rejects.toThrow(/cached plan must not change result type/);
    await db.raw('DROP TABLE prep_scratch');
  });
});
