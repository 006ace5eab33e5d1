import type { Knex } from 'knex';

/**
 * Private warps (a team's own declared procedures) and the ledger of their steps: one row per
 * step run, keyed `<executionId>:<stepKey>`, so a retried activity finds its step already done.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('private_warps', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    t.text('id').primary();
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('description');
    /** Input name → type ('string' | 'number' | 'boolean' | 'object' | 'array'); all required. */
    t.jsonb('inputs').notNullable();
    t.jsonb('steps').notNullable();
    t.uuid('created_by');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['team_id', 'name']);
    t.index(['team_id', 'seq']);
  });
  await knex.schema.createTable('private_warp_steps', (t) => {
    /** `<executionId>:<stepKey>`: the step's idempotency id. */
    t.text('id').primary();
    t.text('execution_id').notNullable().references('warp_executions.id').onDelete('CASCADE');
    t.text('step_key').notNullable();
    t.text('status').notNullable();
    t.jsonb('output');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['execution_id']);
  });
  await knex.raw(
    'ALTER TABLE private_warp_steps ADD CONSTRAINT private_warp_steps_status_check CHECK (status IN ' +
      "('running','succeeded','failed'))",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('private_warp_steps');
  await knex.schema.dropTable('private_warps');
}
