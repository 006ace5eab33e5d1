import type { Knex } from 'knex';

/** Who holds an in-progress idempotency claim, so a stale holder can never overwrite a newer one. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('idempotency_keys', (t) => {
    t.text('claim_token');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('idempotency_keys', (t) => {
    t.dropColumn('claim_token');
  });
}
