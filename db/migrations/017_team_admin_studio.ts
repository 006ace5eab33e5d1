import type { Knex } from 'knex';

/**
 * Team admin (a team's place and settings, who created it), the Studio (sessions, their messages
 * and productions), private apps (private warps bundled at /mcp/apps/{appSlug}) and the indexes of
 * the team search (docs/API.md › Search): a full-text and a trigram index per searched table,
 * led by team_id (btree_gin) so one team's matches are found without reading another's.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('teams', (t) => {
    /** Address, locale, timezone (services/teams/schemas.ts › placeSchema). */
    t.jsonb('place').notNullable().defaultTo('{}');
    /** Validated by services/teams/schemas.ts › settingsSchema. */
    t.jsonb('settings').notNullable().defaultTo('{}');
    /** Who created it with create_team (a retried create of the same slug answers the team again). */
    t.uuid('created_by').references('users.id').onDelete('SET NULL');
  });

  await knex.schema.createTable('studio_sessions', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    t.text('id').primary();
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.uuid('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    t.text('title').notNullable();
    t.uuid('created_by').references('users.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['team_id', 'seq']);
  });
  await knex.schema.createTable('studio_messages', (t) => {
    t.text('session_id').notNullable().references('studio_sessions.id').onDelete('CASCADE');
    /** 1, 2, … within the session; a production covers the messages up to its `through_seq`. */
    t.integer('seq').notNullable();
    t.text('content').notNullable();
    /** A turn's tool-call id (or another caller's key): the same key adds the message once. */
    t.text('idempotency_key');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['session_id', 'seq']);
    t.unique(['session_id', 'idempotency_key']);
  });
  await knex.schema.createTable('studio_productions', (t) => {
    /** `<sessionId>:<n>`; its workflow is `studio-produce-<sessionId>:<n>`. */
    t.text('id').primary();
    t.text('session_id').notNullable().references('studio_sessions.id').onDelete('CASCADE');
    t.integer('n').notNullable();
    t.integer('through_seq').notNullable();
    t.text('instructions');
    t.text('status').notNullable().defaultTo('queued');
    t.text('result');
    /** False for the offline model's placeholder: nothing was generated. */
    t.boolean('generated');
    t.text('model');
    t.integer('prompt_tokens');
    t.integer('completion_tokens');
    t.jsonb('error');
    t.text('workflow_id').notNullable();
    t.text('artifact_id').references('artifacts.id').onDelete('SET NULL');
    t.text('media_id').references('media.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('finished_at', { useTz: true });
    t.unique(['session_id', 'n']);
  });
  await knex.raw(
    'ALTER TABLE studio_productions ADD CONSTRAINT studio_productions_status_check CHECK (status IN ' +
      "('queued','running','succeeded','failed'))",
  );

  await knex.schema.createTable('private_apps', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    t.text('id').primary();
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('slug').notNullable();
    t.text('name').notNullable();
    t.text('description');
    /** Private warps, in the order tools/list shows them (a private warp never changes once created). */
    t.specificType('warp_ids', 'text[]').notNullable();
    t.uuid('created_by').references('users.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['team_id', 'slug']);
    t.index(['team_id', 'seq']);
  });

  // Search. The expressions here are the ones services/search/search.ts queries with, word for word.
  // An email is also indexed as its parts, so "ada" and "example" find ada@example.com.
  await knex.raw('CREATE EXTENSION IF NOT EXISTS btree_gin');
  await knex.raw(`
    CREATE FUNCTION contact_search_text(name text, email text, phone text, company text, title text,
                                        location text, tags text[]) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT lower(concat_ws(' ', name, email, translate(email, '@.', '  '), phone, company, title, location,
                             array_to_string(tags, ' ')))
    $$`);
  await knex.raw(`
    CREATE INDEX contacts_search ON contacts USING gin (team_id,
      to_tsvector('simple', contact_search_text(name, email, phone, company, title, location, tags)))`);
  await knex.raw(`
    CREATE INDEX contacts_search_trgm ON contacts USING gin (team_id,
      (lower(coalesce(name, '') || ' ' || coalesce(email, '') || ' ' || coalesce(company, ''))) gin_trgm_ops)`);
  await knex.raw(`CREATE INDEX artifacts_search ON artifacts USING gin (team_id, to_tsvector('simple', title))`);
  await knex.raw(`CREATE INDEX artifacts_search_trgm ON artifacts USING gin (team_id, lower(title) gin_trgm_ops)`);
  await knex.raw(`
    CREATE INDEX campaigns_search ON campaigns USING gin (team_id,
      to_tsvector('simple', name || ' ' || coalesce(subject, '') || ' ' || content))`);
  await knex.raw(`CREATE INDEX campaigns_search_trgm ON campaigns USING gin (team_id, lower(name) gin_trgm_ops)`);
  await knex.raw(
    `CREATE INDEX knowledge_documents_search ON knowledge_documents USING gin (agent_id, to_tsvector('simple', title))`,
  );
  await knex.raw(
    `CREATE INDEX knowledge_documents_search_trgm ON knowledge_documents USING gin (agent_id, lower(title) gin_trgm_ops)`,
  );
}

export async function down(knex: Knex): Promise<void> {
  for (const index of [
    'contacts_search',
    'contacts_search_trgm',
    'artifacts_search',
    'artifacts_search_trgm',
    'campaigns_search',
    'campaigns_search_trgm',
    'knowledge_documents_search',
    'knowledge_documents_search_trgm',
  ])
    await knex.raw(`DROP INDEX IF EXISTS ${index}`);
  await knex.raw('DROP FUNCTION IF EXISTS contact_search_text(text, text, text, text, text, text, text[])');
  await knex.schema.dropTable('private_apps');
  await knex.schema.dropTable('studio_productions');
  await knex.schema.dropTable('studio_messages');
  await knex.schema.dropTable('studio_sessions');
  await knex.schema.alterTable('teams', (t) => {
    t.dropColumn('place');
    t.dropColumn('settings');
    t.dropColumn('created_by');
  });
}
