import type { Knex } from 'knex';

/**
 * The Webhooks integration's settings per team (docs/EVENTS.md › Retry settings): how many
 * attempts a delivery gets and the waits between them. No row: today's schedule (10 attempts).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_settings', (t) => {
    t.uuid('team_id').primary().references('teams.id').onDelete('CASCADE');
    t.integer('max_attempts').notNullable();
    t.specificType('retry_delays_seconds', 'integer[]').notNullable();
    t.uuid('updated_by');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_settings');
}
