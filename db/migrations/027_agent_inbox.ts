import type { Knex } from 'knex';

/**
 * The agents' receive-only mailboxes at INBOX_DOMAIN (docs/INBOX.md): one row per message and
 * agent it was addressed to. The body is kept as parsed (text, html); attachments as their names,
 * types and sizes only. A Message-ID is stored once per agent: a sender that retries after a lost
 * answer stores (and announces) nothing twice.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('inbox_messages', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    t.text('id').primary();
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.uuid('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    t.text('message_id');
    t.text('envelope_from');
    t.text('envelope_to').notNullable();
    t.jsonb('from').notNullable().defaultTo('[]');
    t.jsonb('to').notNullable().defaultTo('[]');
    t.jsonb('cc').notNullable().defaultTo('[]');
    t.text('subject');
    t.text('text');
    t.text('html');
    t.jsonb('headers').notNullable().defaultTo('{}');
    t.jsonb('attachments').notNullable().defaultTo('[]');
    t.integer('size').notNullable();
    t.text('contact_id');
    t.timestamp('sent_at', { useTz: true });
    t.timestamp('received_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['team_id', 'agent_id', 'seq']);
  });
  await knex.raw(
    'CREATE UNIQUE INDEX inbox_messages_agent_message_id ON inbox_messages (agent_id, message_id) WHERE message_id IS NOT NULL',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('inbox_messages');
}
