import type { Knex } from 'knex';

/**
 * What an agent converses with (DESIGN › Agents, rooms and streams): Postgres holds the data of a
 * conversation, Temporal only its control flow and ids.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE EXTENSION IF NOT EXISTS pg_trgm');

  // The character: who the agent is and how it works, loaded at the start of every turn.
  await knex.schema.alterTable('agents', (t) => {
    t.text('persona');
    t.text('instructions');
    /** The agent's own model (OpenAI-compatible); null: the team's, then AI_BASE_URL / AI_MODEL. */
    t.text('model_base_url');
    t.text('model_name');
  });

  await knex.schema.createTable('rooms', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    t.text('id').primary();
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.uuid('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    /** What the creator called it; a POST with the same name for the same agent reuses the room. */
    t.text('name').notNullable();
    t.uuid('created_by');
    /** The last event sequence handed out: events are allocated under this row's lock, so gapless. */
    t.bigInteger('last_event_seq').notNullable().defaultTo(0);
    /** The last message sequence; a turn is `<roomId>:<seq of the message that started it>`. */
    t.bigInteger('last_message_seq').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_activity_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['agent_id', 'name']);
    t.index(['team_id', 'seq']);
  });

  await knex.schema.createTable('room_keys', (t) => {
    t.text('id').primary();
    t.text('room_id').notNullable().references('rooms.id').onDelete('CASCADE');
    /** sha256 of the key: the key itself is shown once. */
    t.text('key_hash').notNullable().unique();
    t.timestamp('expires_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('room_messages', (t) => {
    t.text('id').primary();
    t.text('room_id').notNullable().references('rooms.id').onDelete('CASCADE');
    t.uuid('team_id').notNullable();
    t.bigInteger('seq').notNullable();
    /** user | assistant | tool */
    t.text('role').notNullable();
    t.text('content').notNullable().defaultTo('');
    /** The turn an assistant or tool message belongs to; the turn a user message started. */
    t.text('turn_id');
    /** assistant: the tool calls it asked for `[{ id, name, arguments }]`. */
    t.jsonb('tool_calls');
    /** tool: the call it answers. */
    t.text('tool_call_id');
    t.uuid('author_user_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['room_id', 'seq']);
    t.index(['turn_id', 'seq']);
  });

  await knex.schema.createTable('room_turns', (t) => {
    /** `<roomId>:<seq>` of the user message that started it. */
    t.text('id').primary();
    t.text('room_id').notNullable().references('rooms.id').onDelete('CASCADE');
    t.uuid('team_id').notNullable();
    t.text('message_id').notNullable();
    t.bigInteger('message_seq').notNullable();
    /** Who posted the message: the user the agent's tool calls act for (null: a team's own client). */
    t.uuid('author_user_id');
    /** queued | running | waiting_approval | completed | failed */
    t.text('status').notNullable();
    t.integer('steps').notNullable().defaultTo(0);
    t.integer('prompt_tokens').notNullable().defaultTo(0);
    t.integer('completion_tokens').notNullable().defaultTo(0);
    t.text('reply_message_id');
    t.jsonb('error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('completed_at', { useTz: true });
    t.index(['room_id', 'created_at']);
  });

  // Every event a room's stream carries, in order: the stream is read from here, NOTIFY only wakes readers.
  await knex.schema.createTable('room_events', (t) => {
    t.text('room_id').notNullable().references('rooms.id').onDelete('CASCADE');
    t.bigInteger('seq').notNullable();
    t.text('type').notNullable();
    t.jsonb('data').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['room_id', 'seq']);
    t.index(['created_at']);
  });

  // The tool ledger: one row per tool call id `<turnId>:<step>:<i>`; a platform write commits with it.
  await knex.schema.createTable('tool_calls', (t) => {
    t.text('id').primary();
    t.text('turn_id').notNullable().references('room_turns.id').onDelete('CASCADE');
    t.uuid('team_id').notNullable();
    t.text('name').notNullable();
    t.jsonb('arguments');
    /** running | succeeded | failed | pending_approval | declined | expired */
    t.text('status').notNullable();
    t.jsonb('result');
    t.text('execution_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('completed_at', { useTz: true });
    t.index(['turn_id']);
  });

  // One row per model attempt with what it cost: a retried call is a second row, never a silent re-bill.
  await knex.schema.createTable('model_calls', (t) => {
    t.bigIncrements('id');
    t.text('turn_id').notNullable().references('room_turns.id').onDelete('CASCADE');
    t.uuid('team_id').notNullable();
    t.integer('step').notNullable();
    t.integer('attempt').notNullable();
    t.text('model').notNullable();
    /** running | succeeded | failed */
    t.text('status').notNullable();
    t.integer('prompt_tokens');
    t.integer('completion_tokens');
    t.integer('first_token_ms');
    t.jsonb('error');
    t.timestamp('started_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('finished_at', { useTz: true });
    t.unique(['turn_id', 'step', 'attempt']);
  });

  await knex.schema.createTable('memories', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    t.text('id').primary();
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.uuid('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    t.text('content').notNullable();
    t.specificType('tags', 'text[]').notNullable().defaultTo('{}');
    /** 1..5: ranks memories of equal relevance, and the top ones a turn always loads. */
    t.integer('importance').notNullable().defaultTo(3);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['agent_id', 'seq']);
  });
  await knex.raw(
    `ALTER TABLE memories ADD COLUMN search tsvector GENERATED ALWAYS AS (to_tsvector('simple', content)) STORED`,
  );
  await knex.raw('CREATE INDEX memories_search ON memories USING gin (search)');
  await knex.raw('CREATE INDEX memories_trgm ON memories USING gin (content gin_trgm_ops)');
  // The top memories (an empty search, and what every turn loads) without sorting the agent's all.
  await knex.raw('CREATE INDEX memories_agent_importance ON memories (agent_id, importance DESC, updated_at DESC)');

  await knex.schema.createTable('skills', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    t.text('id').primary();
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.uuid('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    t.text('name').notNullable();
    /** When it applies: what a turn matches the message against. */
    t.text('description').notNullable();
    t.text('instructions').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['agent_id', 'name']);
  });

  await knex.raw(
    `ALTER TABLE knowledge_chunks ADD COLUMN search tsvector GENERATED ALWAYS AS (to_tsvector('simple', content)) STORED`,
  );
  await knex.raw('CREATE INDEX knowledge_chunks_search ON knowledge_chunks USING gin (search)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS knowledge_chunks_search');
  await knex.raw('ALTER TABLE knowledge_chunks DROP COLUMN IF EXISTS search');
  for (const table of [
    'skills',
    'memories',
    'model_calls',
    'tool_calls',
    'room_events',
    'room_turns',
    'room_messages',
    'room_keys',
    'rooms',
  ])
    await knex.schema.dropTableIfExists(table);
  await knex.schema.alterTable('agents', (t) => {
    t.dropColumns('persona', 'instructions', 'model_base_url', 'model_name');
  });
}
