import type { Knex } from 'knex';

/**
 * Artifacts (client deliverables) and how they reach a contact: the agents' channel
 * integrations, warp executions (the approval-then-delivery workflow's read model), delivery
 * records, and the sandbox provider's outbox.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('artifacts', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    t.text('id').primary();
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('title').notNullable();
    t.text('type').notNullable();
    t.text('url');
    t.text('password');
    t.text('extra_link');
    t.text('contact_id').references('contacts.id').onDelete('SET NULL');
    t.text('order_id');
    t.text('quote_id');
    t.text('status').notNullable().defaultTo('draft');
    t.timestamp('delivered_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['team_id', 'seq']);
  });
  await knex.raw(
    'ALTER TABLE artifacts ADD CONSTRAINT artifacts_type_check CHECK (type IN ' +
      "('agreement','offer','concept','update','demo','file','other'))",
  );
  await knex.raw(
    "ALTER TABLE artifacts ADD CONSTRAINT artifacts_status_check CHECK (status IN ('draft','ready','sent','archived'))",
  );

  await knex.schema.createTable('artifact_media', (t) => {
    t.text('artifact_id').notNullable().references('artifacts.id').onDelete('CASCADE');
    t.text('media_id').notNullable().references('media.id').onDelete('RESTRICT');
    t.integer('position').notNullable();
    t.primary(['artifact_id', 'media_id']);
    t.index(['media_id']);
  });

  await knex.schema.createTable('agent_integrations', (t) => {
    t.uuid('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('channel').notNullable();
    t.text('provider').notNullable();
    t.jsonb('config').notNullable().defaultTo('{}');
    /** Provider credentials, AES-256-GCM with the key from SECRETS_KEY; never returned by the API. */
    t.text('secrets_encrypted');
    t.text('from_address');
    t.boolean('active').notNullable().defaultTo(true);
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['agent_id', 'channel']);
  });
  await knex.raw(
    'ALTER TABLE agent_integrations ADD CONSTRAINT agent_integrations_channel_check CHECK (channel IN ' +
      "('email','sms','whatsapp','push'))",
  );

  await knex.schema.createTable('warp_executions', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    t.text('id').primary();
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.uuid('agent_id').references('agents.id').onDelete('SET NULL');
    t.text('warp').notNullable();
    t.text('status').notNullable();
    t.jsonb('input').notNullable();
    t.jsonb('draft');
    t.jsonb('result');
    t.jsonb('error');
    t.text('workflow_id').notNullable();
    t.uuid('created_by');
    t.timestamp('approval_expires_at', { useTz: true });
    t.timestamp('approval_link_used_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['team_id', 'seq']);
  });
  await knex.raw(
    'ALTER TABLE warp_executions ADD CONSTRAINT warp_executions_status_check CHECK (status IN ' +
      "('pending_approval','running','succeeded','failed','declined','expired'))",
  );

  await knex.schema.createTable('deliveries', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    t.text('id').primary();
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('execution_id').notNullable().references('warp_executions.id').onDelete('CASCADE');
    /** The recipient of this message, kept even if an artifact's contact changes later. */
    t.text('contact_id').notNullable();
    t.specificType('artifact_ids', 'text[]').notNullable();
    t.text('integration').notNullable();
    t.text('provider').notNullable();
    t.text('to_address').notNullable();
    t.text('subject');
    t.text('message').notNullable();
    t.text('status').notNullable();
    t.text('provider_message_id');
    t.jsonb('error');
    t.timestamp('sent_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['execution_id', 'contact_id']);
    t.index(['team_id', 'seq']);
  });

  /** What the sandbox provider "sent": every message, once per idempotency key. */
  await knex.schema.createTable('outbox', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    t.text('id').primary();
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('channel').notNullable();
    t.text('from_address');
    t.text('to_address').notNullable();
    t.text('subject');
    t.text('body').notNullable();
    t.text('idempotency_key').notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['team_id', 'seq']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'outbox',
    'deliveries',
    'warp_executions',
    'agent_integrations',
    'artifact_media',
    'artifacts',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
