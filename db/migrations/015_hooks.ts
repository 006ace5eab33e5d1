import type { Knex } from 'knex';

/**
 * Hooks (docs/HOOKS.md): agent auth keys for the agent hooks path, hooks (one event, a field
 * mapping, one warp or one URL), one run per (hook, event or delivery), and the lifecycle events
 * external runtimes post. A web hook delivers through its own hidden webhook endpoint.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('agent_auth_keys', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    t.text('id').primary();
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.uuid('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    /** The first characters of the key (`ak_` and 8), shown in lists so a person can tell keys apart. */
    t.text('prefix').notNullable();
    /** sha256 of the whole key, hex: the key itself is never stored. */
    t.text('key_hash').notNullable().unique();
    t.uuid('created_by');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.index(['agent_id', 'seq']);
  });

  await knex.schema.createTable('hooks', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    t.text('id').primary();
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.uuid('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    /** internal | web | inbound */
    t.text('source').notNullable();
    /** internal: a platform event type; inbound: the source name; web: an agent output event type. */
    t.text('event').notNullable();
    /** Warp input name → path into the event payload (`$.contact.email`). */
    t.jsonb('mapping').notNullable().defaultTo('{}');
    /** internal and inbound: the warp run, and its fixed inputs (the mapped fields are added). */
    t.text('warp');
    t.jsonb('inputs').notNullable().defaultTo('{}');
    /** web: where the events are POSTed (its endpoint row carries the secret and the deliveries). */
    t.text('url');
    t.boolean('enabled').notNullable().defaultTo(true);
    /** Created by an automation: not deletable or togglable by users, it follows its automation. */
    t.boolean('system_owned').notNullable().defaultTo(false);
    t.text('automation_id').unique();
    t.uuid('created_by');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['team_id', 'seq']);
    t.index(['agent_id', 'seq']);
  });
  await knex.raw("ALTER TABLE hooks ADD CONSTRAINT hooks_source_check CHECK (source IN ('internal','web','inbound'))");
  await knex.raw('CREATE INDEX hooks_matching ON hooks (team_id, source, event) WHERE enabled');

  await knex.schema.createTable('hook_runs', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    /** Derived from (hook, event key): also the key of its workflow `hook-run-<id>`. */
    t.text('id').primary();
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('hook_id').notNullable().references('hooks.id').onDelete('CASCADE');
    /** `event:<eventId>` (internal) or `delivery:<deliveryId>` (inbound). */
    t.text('event_key').notNullable();
    /** The warp's inputs: the hook's fixed inputs and the mapped fields. */
    t.jsonb('inputs').notNullable();
    /** pending | running | succeeded | failed */
    t.text('status').notNullable().defaultTo('pending');
    t.text('execution_id');
    t.jsonb('error');
    t.timestamp('workflow_started_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['hook_id', 'event_key']);
    t.index(['hook_id', 'seq']);
  });
  await knex.raw('CREATE INDEX hook_runs_unstarted ON hook_runs (seq) WHERE workflow_started_at IS NULL');

  await knex.schema.createTable('hook_lifecycle_events', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    t.text('id').primary();
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.uuid('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    t.text('type').notNullable();
    t.text('session_id');
    /** The runtime's own id of the request: a repeat with the same id answers the first one's outcome. */
    t.text('request_id');
    t.jsonb('payload').notNullable();
    /** permission.request: the warp execution that waits for a person. */
    t.text('execution_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['agent_id', 'type', 'request_id']);
    t.index(['agent_id', 'seq']);
  });

  await knex.schema.alterTable('webhook_endpoints', (t) => {
    /** Set on the endpoint of a web hook: hidden from the team's endpoint list, gone with its hook. */
    t.text('hook_id').unique().references('hooks.id').onDelete('CASCADE');
    /** Only the events of this agent (`data.agentId`); null: every event. */
    t.uuid('agent_id');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_endpoints', (t) => {
    t.dropColumn('agent_id');
    t.dropColumn('hook_id');
  });
  await knex.schema.dropTable('hook_lifecycle_events');
  await knex.schema.dropTable('hook_runs');
  await knex.schema.dropTable('hooks');
  await knex.schema.dropTable('agent_auth_keys');
}
