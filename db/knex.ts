import { createHash } from 'node:crypto';
import knexFactory, { Knex } from 'knex';
import pg from 'pg';
import { migrationSource } from './migrations';

// Counts and sequences come back as JS numbers, not strings: every one we use fits in 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export type Db = Knex;

/**
 * Runs `query` as a prepared statement, parsed and planned once per connection: for a hot
 * statement whose planning costs Postgres more than running it (the credential's, planned in
 * 0.26 ms and run in 0.08: docs/BENCHMARKS.md › Run 29). Named after its text, so that each text
 * is prepared once per connection whatever its bindings; use it only where the text takes a few
 * shapes (every one is kept for the connection's life). After five custom plans Postgres may keep
 * a generic one, when it estimates it no dearer; for the credential's it does
 * (`pg_prepared_statements`: 5 custom plans, then generic ones). A pooler in transaction mode
 * needs protocol-level prepared statements (PgBouncer 1.21+, `max_prepared_statements`). Name the
 * columns a statement returns: Postgres refuses to run a prepared `*` again on a connection once a
 * migration has widened the table (and one that changes a returned column's type needs the
 * processes restarted).
 */
export function preparedOnce<Q extends Knex.QueryBuilder | Knex.Raw>(query: Q): Q {
  const compiled = query.toSQL();
  let name = statementNames.get(compiled.sql);
  if (!name) {
    name = `p_${createHash('sha1').update(compiled.sql).digest('base64url')}`;
    statementNames.set(compiled.sql, name);
  }
  compiled.options = { ...compiled.options, name };
  // knex compiles a builder again when it runs it; this one is compiled already (its name is read
  // from the compiled text). Compiling the credential's CTE twice showed in the API's profile
  // under bench (a) (docs/BENCHMARKS.md › Run 30).
  return Object.assign(query, { toSQL: () => compiled });
}

/** Statement text → its name: a few shapes, so a few entries (see `preparedOnce`). */
const statementNames = new Map<string, string>();

export function createDb(connectionString: string, pool: { min?: number; max?: number } = {}): Db {
  return knexFactory({
    client: 'pg',
    connection: connectionString,
    pool: { min: pool.min ?? 0, max: pool.max ?? 10 },
  });
}

export async function migrateLatest(db: Db): Promise<string[]> {
  const [, applied] = await db.migrate.latest({ migrationSource });
  return applied as string[];
}
