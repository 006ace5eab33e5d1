import type { Knex } from 'knex';

/**
 * The OAuth authorization server's state. Every secret (client secret, code, access and refresh
 * token, authorization-request browser binding) is stored as a SHA-256 hash only. A grant is one
 * user's (or one team client's) consent; codes and tokens hang off it, so revoking the grant ends
 * every token issued from it at once.
 */
export async function up(knex: Knex): Promise<void> {
  // API tokens are listed by their owner, a page at a time.
  await knex.schema.alterTable('api_tokens', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    t.index(['user_id', 'seq']);
  });

  await knex.schema.createTable('oauth_clients', (t) => {
    t.text('id').primary();
    t.text('secret_hash');
    t.text('name').notNullable();
    t.specificType('redirect_uris', 'text[]').notNullable().defaultTo('{}');
    t.specificType('grant_types', 'text[]').notNullable();
    t.text('token_endpoint_auth_method').notNullable();
    t.text('scope');
    /** Set for a client registered by a team member: the team its client_credentials tokens act for. */
    t.uuid('team_id').references('teams.id').onDelete('CASCADE');
    t.uuid('registered_by').references('users.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('oauth_grants', (t) => {
    t.text('id').primary();
    t.text('client_id').notNullable().references('oauth_clients.id').onDelete('CASCADE');
    t.uuid('user_id').references('users.id').onDelete('CASCADE');
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.uuid('agent_id').references('agents.id').onDelete('SET NULL');
    t.text('scope').notNullable();
    /** RFC 8707: the resource the user authorized; null: any of this service's resources. */
    t.text('resource');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('revoked_at', { useTz: true });
    t.text('revoked_reason');
  });

  await knex.schema.createTable('oauth_codes', (t) => {
    t.text('code_hash').primary();
    t.text('grant_id').notNullable().references('oauth_grants.id').onDelete('CASCADE');
    t.text('redirect_uri').notNullable();
    t.text('code_challenge').notNullable();
    t.text('code_challenge_method').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    /** Kept after use as a tombstone, so a replayed code is recognised and its grant revoked. */
    t.timestamp('consumed_at', { useTz: true });
  });

  await knex.schema.createTable('oauth_tokens', (t) => {
    t.text('token_hash').primary();
    t.text('kind').notNullable();
    t.text('grant_id').notNullable().references('oauth_grants.id').onDelete('CASCADE');
    t.text('scope').notNullable();
    /** The audience this token is good for (within its grant's); null: any of this service's resources. */
    t.text('resource');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('revoked_at', { useTz: true });
    /** A refresh token that was exchanged; presenting it again is reuse and revokes the grant. */
    t.timestamp('rotated_at', { useTz: true });
    t.index(['grant_id']);
  });
  await knex.raw(
    "ALTER TABLE oauth_tokens ADD CONSTRAINT oauth_tokens_kind_check CHECK (kind IN ('access','refresh'))",
  );

  /** One browser's pass through login and consent at /oauth/authorize. */
  await knex.schema.createTable('oauth_authorization_requests', (t) => {
    t.text('id').primary();
    t.text('browser_hash').notNullable();
    t.text('csrf_token').notNullable();
    t.jsonb('params').notNullable();
    t.uuid('user_id').references('users.id').onDelete('CASCADE');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('completed_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  // The table layout rate-limiter-flexible's Postgres store expects; every API process shares it.
  // UNLOGGED: a counter write costs no WAL flush on every request, and losing the counters in a
  // crash only resets the current windows.
  await knex.raw(
    'CREATE UNLOGGED TABLE rate_limits (key varchar(255) PRIMARY KEY, points integer NOT NULL DEFAULT 0, expire bigint)',
  );
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'rate_limits',
    'oauth_authorization_requests',
    'oauth_tokens',
    'oauth_codes',
    'oauth_grants',
    'oauth_clients',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
  await knex.schema.alterTable('api_tokens', (t) => {
    t.dropColumn('seq');
  });
}
