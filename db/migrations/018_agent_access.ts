import type { Knex } from 'knex';

/**
 * Outside callers and the payment gate (docs/AGENTS.md › Outside callers and the payment gate):
 * an agent's access setting, the outside caller's team on the rooms it talks in, and the ledger of
 * x402 payments, whose unique key is what refuses a replayed payment.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('agents', (t) => {
    /** Validated by services/payments/schemas.ts › agentAccessSchema; `{}` is closed to other teams. */
    t.jsonb('access').notNullable().defaultTo('{}');
  });
  await knex.schema.alterTable('rooms', (t) => {
    /** The team of the outside caller the room belongs to; null: a room of the agent's own team. */
    t.uuid('caller_team_id').references('teams.id').onDelete('CASCADE');
  });
  await knex.schema.createTable('agent_payments', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    t.text('id').primary();
    /** The agent's team: the one paid. */
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.uuid('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    t.uuid('caller_team_id').references('teams.id').onDelete('SET NULL');
    t.text('tool').notNullable();
    /** `<network>:<payer>:<nonce>` (or a hash of the payload when it carries no nonce): one use per payment. */
    t.text('payment_key').notNullable().unique();
    t.text('scheme').notNullable();
    t.text('network').notNullable();
    t.text('amount').notNullable();
    t.text('asset').notNullable();
    t.text('pay_to').notNullable();
    t.text('payer');
    /** verifying → settling → settled | settle_failed; verifying → invalid */
    t.text('status').notNullable();
    t.text('transaction');
    t.jsonb('error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('settled_at', { useTz: true });
    t.index(['team_id', 'agent_id', 'seq']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('agent_payments');
  await knex.schema.alterTable('rooms', (t) => t.dropColumn('caller_team_id'));
  await knex.schema.alterTable('agents', (t) => t.dropColumn('access'));
}
