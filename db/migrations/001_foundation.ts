import type { Knex } from 'knex';

/**
 * Internal `seq` columns order lists and back keyset cursors; public ids are opaque strings
 * (agents use UUIDs, as the spec says).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('teams', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('slug').notNullable().unique();
    t.text('name').notNullable();
    t.text('plan').notNullable().defaultTo('free');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('users', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('email').notNullable();
    t.text('name').notNullable();
    t.text('password_hash');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('CREATE UNIQUE INDEX users_email_unique ON users (lower(email))');

  await knex.schema.createTable('memberships', (t) => {
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('role').notNullable().defaultTo('member');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['team_id', 'user_id']);
  });

  await knex.schema.createTable('api_tokens', (t) => {
    t.text('id').primary();
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('token_hash').notNullable().unique();
    t.text('token_prefix').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('expires_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
  });

  await knex.schema.createTable('agents', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('slug').notNullable();
    t.text('mode').notNullable().defaultTo('auto');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['team_id', 'slug']);
    t.index(['team_id', 'seq']);
  });

  await knex.schema.createTable('contacts', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    t.text('id').primary();
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('name');
    t.text('first_name');
    t.text('last_name');
    t.text('email');
    t.text('phone');
    t.text('company');
    t.text('title');
    t.text('location');
    t.specificType('tags', 'text[]').notNullable().defaultTo('{}');
    t.jsonb('properties').notNullable().defaultTo('{}');
    t.text('marketing_consent').notNullable().defaultTo('pending');
    t.timestamp('opted_out_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_contact_at', { useTz: true });
    // Which import job and input row created the contact: a retried import batch cannot insert it twice.
    t.text('import_job_id');
    t.integer('import_row');
    t.index(['team_id', 'seq']);
    t.unique(['import_job_id', 'import_row']);
  });
  await knex.raw(
    'CREATE UNIQUE INDEX contacts_team_email_unique ON contacts (team_id, lower(email)) WHERE email IS NOT NULL',
  );
  await knex.raw(
    "ALTER TABLE contacts ADD CONSTRAINT contacts_consent_check CHECK (marketing_consent IN ('granted','pending'))",
  );

  await knex.schema.createTable('jobs', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    t.text('id').primary();
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('type').notNullable();
    t.text('status').notNullable().defaultTo('queued');
    t.jsonb('input').notNullable().defaultTo('{}');
    t.jsonb('result');
    t.jsonb('error');
    t.text('workflow_id').notNullable();
    t.uuid('created_by');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('started_at', { useTz: true });
    t.timestamp('finished_at', { useTz: true });
    t.index(['team_id', 'seq']);
  });
  await knex.raw(
    "ALTER TABLE jobs ADD CONSTRAINT jobs_status_check CHECK (status IN ('queued','running','succeeded','failed'))",
  );

  await knex.schema.createTable('idempotency_keys', (t) => {
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('operation').notNullable();
    t.text('key').notNullable();
    t.text('request_hash').notNullable();
    t.text('state').notNullable().defaultTo('in_progress');
    t.integer('response_status');
    t.jsonb('response_body');
    t.jsonb('response_headers');
    t.timestamp('locked_until', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['team_id', 'operation', 'key']);
  });

  await knex.schema.createTable('media', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    t.text('id').primary();
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('filename').notNullable();
    t.text('content_type').notNullable();
    t.bigInteger('size_bytes').notNullable();
    t.text('storage_key').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['team_id', 'seq']);
  });

  await knex.schema.createTable('knowledge_documents', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    t.text('id').primary();
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.uuid('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    t.text('job_id').unique();
    t.text('title').notNullable();
    t.integer('char_count').notNullable();
    t.integer('chunk_count').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable('knowledge_chunks', (t) => {
    t.text('document_id').notNullable().references('knowledge_documents.id').onDelete('CASCADE');
    t.integer('position').notNullable();
    t.text('content').notNullable();
    t.primary(['document_id', 'position']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'knowledge_chunks',
    'knowledge_documents',
    'media',
    'idempotency_keys',
    'jobs',
    'contacts',
    'agents',
    'api_tokens',
    'memberships',
    'users',
    'teams',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
