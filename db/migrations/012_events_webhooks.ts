import type { Knex } from 'knex';

/**
 * Platform events and outbound webhooks (docs/EVENTS.md): an outbox written in the same transaction
 * as the change an event reports, the team's webhook endpoints, one delivery per (event, endpoint)
 * and every attempt of it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('platform_events', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    t.text('id').primary();
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('type').notNullable();
    /** The id of what the event is about (a contact, a campaign, an artifact). */
    t.text('subject');
    t.jsonb('data').notNullable();
    /** Set by a caller whose transaction may run twice (an activity retried): the second write is a no-op. */
    t.text('dedupe_key');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    /** When the dispatcher turned the event into deliveries (in the same transaction); null: not yet. */
    t.timestamp('dispatched_at', { useTz: true });
    t.unique(['team_id', 'dedupe_key']);
    t.index(['team_id', 'seq']);
  });
  await knex.raw('CREATE INDEX platform_events_undispatched ON platform_events (seq) WHERE dispatched_at IS NULL');

  await knex.schema.createTable('webhook_endpoints', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    t.text('id').primary();
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('url').notNullable();
    t.text('description');
    /** The Standard Webhooks secret (`whsec_…`), encrypted with the secrets key. */
    t.text('secret_encrypted').notNullable();
    t.jsonb('headers').notNullable().defaultTo('{}');
    /** The event types it receives; empty: every type. */
    t.specificType('event_types', 'text[]').notNullable().defaultTo('{}');
    t.boolean('enabled').notNullable().defaultTo(true);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['team_id', 'seq']);
  });

  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    /** Derived from (event, endpoint): also the `webhook-id` header, the same on every attempt. */
    t.text('id').primary();
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('endpoint_id').notNullable().references('webhook_endpoints.id').onDelete('CASCADE');
    t.text('event_id').notNullable().references('platform_events.id').onDelete('CASCADE');
    t.text('event_type').notNullable();
    /** pending | delivered | failed */
    t.text('status').notNullable().defaultTo('pending');
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('last_status_code');
    t.text('last_error');
    t.timestamp('next_attempt_at', { useTz: true });
    t.timestamp('delivered_at', { useTz: true });
    /** When `webhook-delivery-<id>` was started; null: the dispatcher starts it (again) on its next pass. */
    t.timestamp('workflow_started_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['event_id', 'endpoint_id']);
    t.index(['endpoint_id', 'seq']);
  });
  await knex.raw(
    'CREATE INDEX webhook_deliveries_unstarted ON webhook_deliveries (seq) WHERE workflow_started_at IS NULL',
  );

  await knex.schema.createTable('webhook_attempts', (t) => {
    t.text('delivery_id').notNullable().references('webhook_deliveries.id').onDelete('CASCADE');
    t.integer('attempt').notNullable();
    t.uuid('team_id').notNullable();
    /** The receiver's HTTP status; null when no answer came (refused, timed out, refused URL). */
    t.integer('status_code');
    t.text('error');
    t.integer('duration_ms').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['delivery_id', 'attempt']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_attempts');
  await knex.schema.dropTable('webhook_deliveries');
  await knex.schema.dropTable('webhook_endpoints');
  await knex.schema.dropTable('platform_events');
}
