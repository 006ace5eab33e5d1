import type { Knex } from 'knex';

/**
 * A send rate is the provider's limit on one account, so it belongs to the integration; the slots
 * it hands out live in Postgres, so every worker process draws from the same clock.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('agent_integrations', (t) => {
    /** Messages per second the provider allows this account; null: CAMPAIGN_RATE_LIMITS for the provider, else none. */
    t.double('max_per_second');
  });
  await knex.schema.createTable('send_rate_slots', (t) => {
    /** `<agentId>:<channel>`: one integration. */
    t.text('key').primary();
    /** The first slot nobody has taken yet. */
    t.timestamp('next_at', { useTz: true }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('send_rate_slots');
  await knex.schema.alterTable('agent_integrations', (t) => {
    t.dropColumn('max_per_second');
  });
}
