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
      'SELECT name FROM pg_prepared_statements WHERE statement LIKE \'%from "teams" where%\'',
    );
    expect(new Set(rows.map((r: { name: string }) => r.name)).size).toBe(rows.length);
    expect(rows.length).toBeGreaterThanOrEqual(2);
  });
});
