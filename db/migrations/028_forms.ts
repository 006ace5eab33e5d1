import type { Knex } from 'knex';

/**
 * Forms (docs/FORMS.md): hosted sign-up forms of a team, and one row per accepted submission (a
 * honeypot catch is never stored). A confirmation email is logged in outbound_messages as `form`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('forms', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    t.text('id').primary();
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('title').notNullable();
    t.text('description');
    /** [{ name, label, required }]: which contact fields the page asks for, in order. */
    t.jsonb('fields').notNullable();
    t.specificType('tags', 'text[]').notNullable().defaultTo('{}');
    t.text('consent_text');
    t.boolean('double_opt_in').notNullable().defaultTo(false);
    /** The agent whose email integration sends the confirmation link. */
    t.uuid('agent_id').references('agents.id').onDelete('SET NULL');
    t.text('language').notNullable().defaultTo('en');
    t.text('thank_you');
    t.boolean('active').notNullable().defaultTo(true);
    t.uuid('created_by');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['team_id', 'seq']);
  });

  await knex.schema.createTable('form_submissions', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    t.text('id').primary();
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('form_id').notNullable().references('forms.id').onDelete('CASCADE');
    t.text('contact_id').references('contacts.id').onDelete('SET NULL');
    t.text('email').notNullable();
    /** not_asked | granted | awaiting_confirmation | confirmed */
    t.text('consent').notNullable();
    t.timestamp('confirmation_sent_at', { useTz: true });
    t.timestamp('confirmed_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['form_id', 'seq']);
  });

  await knex.raw('ALTER TABLE outbound_messages DROP CONSTRAINT outbound_messages_source_kind_check');
  await knex.raw(
    'ALTER TABLE outbound_messages ADD CONSTRAINT outbound_messages_source_kind_check CHECK (source_kind IN ' +
      "('campaign','campaign_test','delivery','automation','form'))",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("DELETE FROM outbound_messages WHERE source_kind = 'form'");
  await knex.raw('ALTER TABLE outbound_messages DROP CONSTRAINT outbound_messages_source_kind_check');
  await knex.raw(
    'ALTER TABLE outbound_messages ADD CONSTRAINT outbound_messages_source_kind_check CHECK (source_kind IN ' +
      "('campaign','campaign_test','delivery','automation'))",
  );
  await knex.schema.dropTable('form_submissions');
  await knex.schema.dropTable('forms');
}
