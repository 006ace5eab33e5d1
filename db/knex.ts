import { createHash } from 'node:crypto';
import knexFactory, { Knex } from 'knex';
import pg from 'pg';
import { migrationSource } from './migrations';

// Counts and sequences come back as JS numbers, not strings: every one we use fits in 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export type Db = Knex;

/**
 * Runs `query` as a prepared statement, parsed and planned once per connection: for a hot statement
 * whose planning costs Postgres more than running it (the credential's). Named after its text, so
 * that each text is prepared once per connection whatever its bindings; use it only where the text
 * takes a few shapes (every one is kept for the connection's life). After five custom plans
 * Postgres may keep a generic one, when it estimates it no dearer; for the credential's it does
 * (`pg_prepared_statements`: 5 custom plans, then generic ones). A pooler in transaction mode needs
 * protocol-level prepared statements (PgBouncer 1.21+, `max_prepared_statements`). Name the columns
 * a statement returns: Postgres refuses to run a prepared `*` again on a connection once a
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
  // from the compiled text), and a hot statement is not worth compiling twice.
  return Object.assign(query, { toSQL: () => compiled });
}

/** Statement text → its name: a few shapes, so a few entries (see `preparedOnce`). */
const statementNames = new Map<string, string>();

/**
 * How a process's pool treats a database that stops answering: down, refusing, or frozen (a
 * SIGSTOPped server still accepts TCP and answers keepalives, so only the client's own clocks
 * notice). Either way a connection is made, and a pool slot found, within `timeoutMs`, and a
 * connection whose statement was given up is closed and never reused (it would still be waiting).
 * - `request` (the API): each statement is answered within `timeoutMs`. The server cancels one
 *   that runs longer (`statement_timeout`); one still unanswered a moment later (a frozen server)
 *   has its connection closed. Either way the request answers 503 `database_unavailable`.
 * - `activity` (the worker): a statement may run as long as it needs (a million-row audience
 *   snapshot, an import); one unanswered after `timeoutMs` probes the server on a new connection,
 *   and only if that does not answer within `timeoutMs` either is the statement's connection
 *   closed, so the activity fails and Temporal retries it.
 */
export interface DatabaseDeadline {
  kind: 'request' | 'activity';
  timeoutMs: number;
}

/** How long after its own `statement_timeout` a request's statement may still answer (a busy server). */
const SERVER_CANCEL_GRACE_MS = 250;

export function createDb(
  connectionString: string,
  pool: { min?: number; max?: number } = {},
  deadline?: DatabaseDeadline,
): Db {
  if (!deadline) {
    return knexFactory({
      client: 'pg',
      connection: connectionString,
      pool: { min: pool.min ?? 0, max: pool.max ?? 10 },
    });
  }
  const { kind, timeoutMs } = deadline;
  const probe = liveness(connectionString, timeoutMs);
  return knexFactory({
    client: 'pg',
    connection: {
      connectionString,
      connectionTimeoutMillis: timeoutMs,
      // A host that vanished (no FIN, no RST) is noticed on idle connections too.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      ...(kind === 'request' ? { statement_timeout: timeoutMs } : {}),
    },
    // A pending acquire behind a full pool: a request waits no longer than its deadline; an
    // activity waits as knex does (60 s), since slots held by statements of a frozen server are
    // freed by the probe within twice the deadline, and a busy pool is no outage.
    ...(kind === 'request' ? { acquireConnectionTimeout: timeoutMs } : {}),
    // knex warns of every client that ended when it discards it: here that is the outage itself,
    // already answered (503) or failed (a retried activity).
    log: { warn: (message: string) => (/^Connection Error/.test(message) ? undefined : console.warn(message)) },
    pool: {
      min: pool.min ?? 0,
      max: pool.max ?? 10,
      afterCreate: (connection: pg.Client, done: (err: Error | null, connection: pg.Client) => void) => {
        watchStatements(
          connection,
          kind === 'request' ? () => Promise.resolve(false) : probe,
          kind === 'request' ? timeoutMs + SERVER_CANCEL_GRACE_MS : timeoutMs,
        );
        done(null, connection);
      },
    },
  });
}

/** The error of a statement whose connection was closed because the server stopped answering. */
export class DatabaseNotAnswering extends Error {
  readonly code = 'ETIMEDOUT';

  constructor(ms: number) {
    super(`Postgres did not answer a statement within ${ms} ms; its connection was closed`);
    this.name = 'DatabaseNotAnswering';
  }
}

type Callback = (err: Error | null, result: unknown) => void;

/**
 * Gives every callback-style statement on `client` (knex's only kind) a clock: unanswered after
 * `afterMs`, `alive()` decides whether to keep waiting; if not, the connection is closed (pg's own
 * `query_timeout` would leave it waiting on the old statement, and knex would reuse it).
 */
function watchStatements(client: pg.Client, alive: () => Promise<boolean>, afterMs: number): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const at = args.findIndex((a) => typeof a === 'function');
    if (at < 0) return query(...args);
    const callback = args[at] as Callback;
    let abandoned: Error | undefined;
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      timer = setTimeout(() => {
        void alive().then((yes) => {
          if (timer === undefined) return; // answered meanwhile
          if (yes) return arm();
          abandoned = new DatabaseNotAnswering(afterMs);
          // end() closes the socket at once when a statement is in flight; knex then discards the client.
          void client.end().catch(() => undefined);
        });
      }, afterMs);
    };
    args[at] = (err: Error | null, result: unknown) => {
      clearTimeout(timer);
      timer = undefined;
      callback(abandoned ?? err, result);
    };
    arm();
    return query(...args);
  };
}

/**
 * Whether the server answers `SELECT 1` on a new connection within `timeoutMs`; one probe at a
 * time however many statements wait.
 */
function liveness(connectionString: string, timeoutMs: number): () => Promise<boolean> {
  let pending: Promise<boolean> | undefined;
  return () =>
    (pending ??= (async () => {
      const client = new pg.Client({ connectionString, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
      client.on('error', () => undefined);
      try {
        await client.connect();
        await client.query('SELECT 1');
        return true;
      } catch {
        return false;
      } finally {
        void client.end().catch(() => undefined);
        pending = undefined;
      }
    })());
}

export async function migrateLatest(db: Db): Promise<string[]> {
  const [, applied] = await db.migrate.latest({ migrationSource });
  return applied as string[];
}
