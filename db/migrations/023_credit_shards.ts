import type { Knex } from 'knex';

/**
 * A team's cycle is counted on several rows (`shard`), summed when read (docs/MCP.md › Credits).
 * Every charge of an unmetered team went to one row, whose lock each call held until its commit
 * was flushed, so under load calls queued on it. An unmetered charge now takes one of 16 rows; a
 * metered charge still takes row 0, under its lock, against the sum of them all. Existing rows are
 * row 0.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('credit_usage', (t) => {
    t.smallint('shard').notNullable().defaultTo(0);
  });
  await knex.raw('ALTER TABLE credit_usage DROP CONSTRAINT credit_usage_pkey');
  await knex.raw('ALTER TABLE credit_usage ADD PRIMARY KEY (team_id, cycle_start, shard)');
}

export async function down(knex: Knex): Promise<void> {
  // Folds each cycle's rows back into row 0 before the key narrows again.
  await knex.raw(`
    UPDATE credit_usage c SET used = s.used, calls = s.calls, refused = s.refused
      FROM (SELECT team_id, cycle_start, sum(used)::int AS used, sum(calls)::int AS calls, sum(refused)::int AS refused
              FROM credit_usage GROUP BY team_id, cycle_start) s
     WHERE c.team_id = s.team_id AND c.cycle_start = s.cycle_start AND c.shard = 0`);
  await knex.raw(`
    INSERT INTO credit_usage (team_id, cycle_start, shard, used, calls, refused)
    SELECT team_id, cycle_start, 0, sum(used), sum(calls), sum(refused) FROM credit_usage
     GROUP BY team_id, cycle_start HAVING bool_and(shard <> 0)`);
  await knex('credit_usage').where('shard', '<>', 0).delete();
  await knex.raw('ALTER TABLE credit_usage DROP CONSTRAINT credit_usage_pkey');
  await knex.raw('ALTER TABLE credit_usage ADD PRIMARY KEY (team_id, cycle_start)');
  await knex.schema.alterTable('credit_usage', (t) => {
    t.dropColumn('shard');
  });
}
