import type { Knex } from 'knex';

/** MCP: installed apps, monthly credits, agent secrets, public teams, one open execution per sensitive write; campaign send approval and prompt cancel. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('teams', (t) => {
    /** Listed by `list_public_teams`. */
    t.boolean('public').notNullable().defaultTo(false);
    t.text('description');
    t.bigIncrements('seq', { primaryKey: false });
  });

  await knex.schema.createTable('team_apps', (t) => {
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('app').notNullable();
    t.uuid('installed_by');
    t.timestamp('installed_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['team_id', 'app']);
  });

  // One row per team and billing cycle; the conditional upsert on it is what makes metering exact.
  await knex.schema.createTable('credit_usage', (t) => {
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.date('cycle_start').notNullable();
    t.integer('used').notNullable().defaultTo(0);
    t.integer('calls').notNullable().defaultTo(0);
    t.integer('refused').notNullable().defaultTo(0);
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['team_id', 'cycle_start']);
  });

  await knex.schema.createTable('agent_secrets', (t) => {
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.uuid('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    t.text('key').notNullable();
    /** AES-256-GCM under SECRETS_KEY; never returned. */
    t.text('value_sealed').notNullable();
    t.uuid('updated_by');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['agent_id', 'key']);
  });

  await knex.schema.alterTable('warp_executions', (t) => {
    /** Same caller, warp and arguments: a retried write while one is open finds the open one. */
    t.text('dedupe_key');
  });
  await knex.schema.alterTable('campaigns', (t) => {
    /** The approved warp execution that covers the current send: no per-recipient approval cards then. */
    t.text('send_approved_by');
    /** Set by cancel send: a batch in flight stops taking recipients at once, not at its end. */
    t.timestamp('cancel_requested_at', { useTz: true });
  });
  await knex.raw(
    'CREATE UNIQUE INDEX warp_executions_open_dedupe ON warp_executions (team_id, dedupe_key) WHERE ' +
      "dedupe_key IS NOT NULL AND status IN ('pending_approval','running')",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS warp_executions_open_dedupe');
  await knex.schema.alterTable('campaigns', (t) => {
    t.dropColumn('send_approved_by');
    t.dropColumn('cancel_requested_at');
  });
  await knex.schema.alterTable('warp_executions', (t) => t.dropColumn('dedupe_key'));
  await knex.schema.dropTable('agent_secrets');
  await knex.schema.dropTable('credit_usage');
  await knex.schema.dropTable('team_apps');
  await knex.schema.alterTable('teams', (t) => {
    t.dropColumn('public');
    t.dropColumn('description');
    t.dropColumn('seq');
  });
}
