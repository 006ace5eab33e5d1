import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type pg from 'pg';

/**
 * A hot statement, written once as SQL and run as a named prepared statement (parsed and planned
 * once per connection) on a connection of the knex pool or of the transaction it is given, with
 * no query builder in between. Building and compiling a knex query cost the API and the worker
 * more CPU than the round trip itself (docs/BENCHMARKS.md › Run 47); `preparedOnce` keeps the
 * builder and saves Postgres the planning only. The connection is the pool's, so the database
 * deadlines of `createDb` (db/knex.ts) hold here too.
 *
 * `?` marks a value, numbered in order (`$1`, `$2`, …), as in knex's raw SQL; `\?` is a literal
 * question mark. A text without `?` may number its values itself, to use one twice. Name the
 * columns a statement returns (see `preparedOnce`).
 */
export interface Statement<Row> {
  readonly name: string;
  readonly text: string;
  /** Never set: carries the row type. */
  readonly row?: Row;
}

export function statement<Row = Record<string, unknown>>(sql: string): Statement<Row> {
  let position = 0;
  const text = sql.replace(/\\\?|\?/g, (mark) => (mark === '?' ? `$${++position}` : '?'));
  return { name: `s_${createHash('sha1').update(text).digest('base64url')}`, text };
}

/** A piece of SQL with its values (`?` marks, as in `statement`), for a statement to carry along (a CTE). */
export interface SqlPart {
  sql: string;
  values: unknown[];
}

/** The statements made from texts assembled at run time (a few shapes each), by their SQL. */
const assembled = new Map<string, Statement<unknown>>();

/** `statement(sql)`, kept: for a text put together per call from a few known parts. */
export function statementOf<Row = Record<string, unknown>>(sql: string): Statement<Row> {
  let made = assembled.get(sql);
  if (!made) {
    made = statement(sql);
    assembled.set(sql, made);
  }
  return made as Statement<Row>;
}

interface PoolClient {
  acquireConnection(): Promise<pg.Client>;
  releaseConnection(connection: pg.Client): Promise<void>;
}

/** Runs `statement` with `values` and answers its rows. */
export async function runStatement<Row>(
  db: Knex | Knex.Transaction,
  { name, text }: Statement<Row>,
  values: unknown[],
): Promise<Row[]> {
  const client = db.client as PoolClient;
  const connection = await client.acquireConnection();
  try {
    // The callback form: it is the one `createDb`'s statement clocks watch.
    return await new Promise<Row[]>((resolve, reject) => {
      connection.query<Row & pg.QueryResultRow>({ name, text, values }, (err, result) =>
        err ? reject(err) : resolve(result.rows),
      );
    });
  } finally {
    await client.releaseConnection(connection);
  }
}

/** The first row `statement` answers, if any. */
export async function firstRow<Row>(
  db: Knex | Knex.Transaction,
  statement: Statement<Row>,
  values: unknown[],
): Promise<Row | undefined> {
  return (await runStatement(db, statement, values))[0];
}
