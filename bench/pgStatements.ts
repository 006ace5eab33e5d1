import type { Db } from '../db/knex';

interface StatementRow {
  calls: string;
  total_plan_time: number;
  total_exec_time: number;
  mean_exec_time: number;
  rows: string;
  shared_blks_read: string;
  shared_blks_dirtied: string;
  shared_blks_written: string;
  query: string;
}

/** A statement's text on one line of a markdown table, cut to `max` characters. */
const oneLine = (sql: string, max = 110) => {
  const flat = sql.replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
};

/**
 * Postgres's own view of a section (pg_stat_statements): which statements its time went to. Only
 * when the bench's server loads the module (`BENCH_PG_STATEMENTS=1`); null otherwise. Execution
 * time includes waiting for row locks, not the commit's WAL flush.
 */
export async function statementStats(db: Db, enabled: boolean) {
  if (!enabled) return null;
  try {
    await db.raw('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await db.raw('SELECT pg_stat_statements_reset()');
  } catch (err) {
    // The bench's embedded server loads the module itself; a server at DATABASE_URL must have it loaded.
    throw new Error(
      `BENCH_PG_STATEMENTS=1 needs shared_preload_libraries = 'pg_stat_statements' on the bench's Postgres: ${(err as Error).message}`,
      { cause: err },
    );
  }
  return {
    reset: async () => {
      await db.raw('SELECT pg_stat_statements_reset()');
    },
    /**
     * The `n` statements of this database with the most execution time since the reset, per `unit`
     * of work; with `withPlanning`, planning and execution together (what a latency waits on).
     */
    async top(n: number, units: number, unit: string, withPlanning = false): Promise<string[]> {
      const { rows } = (await db.raw(
        `SELECT calls, total_plan_time, total_exec_time, mean_exec_time, rows,
                shared_blks_read, shared_blks_dirtied, shared_blks_written, query FROM pg_stat_statements
          WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
            AND query NOT LIKE '%pg_stat_statements%'
          ORDER BY total_exec_time + (CASE WHEN ? THEN total_plan_time ELSE 0 END) DESC LIMIT ?`,
        [withPlanning, n],
      )) as { rows: StatementRow[] };
      return [
        `| Postgres statement (pg_stat_statements) | calls per ${unit} | ms planning per call | mean ms executing | total ms executing | rows per call | blocks per call: read from outside the buffers, dirtied, written by the statement's backend |`,
        '|---|---|---|---|---|---|---|',
        ...rows.map((r) => {
          const perCall = (blocks: string) => (Number(blocks) / Number(r.calls)).toFixed(1);
          return `| \`${oneLine(r.query)}\` | ${(Number(r.calls) / units).toFixed(2)} | ${(r.total_plan_time / Number(r.calls)).toFixed(3)} | ${r.mean_exec_time.toFixed(3)} | ${r.total_exec_time.toFixed(0)} | ${(Number(r.rows) / Number(r.calls)).toFixed(1)} | ${perCall(r.shared_blks_read)}, ${perCall(r.shared_blks_dirtied)}, ${perCall(r.shared_blks_written)} |`;
        }),
      ];
    },
  };
}
