import type { Knex } from 'knex';

/**
 * Segments and campaigns, and the contact data their rules read: a linked user, a waiting /
 * follow-up state, and orders. Every audience is evaluated in SQL, so the indexes here are what
 * keep a million-contact team fast.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('contacts', (t) => {
    t.uuid('user_id').references('users.id').onDelete('SET NULL');
    t.text('waiting_on');
  });
  await knex.raw('CREATE INDEX contacts_team_tags ON contacts USING gin (tags)');
  await knex.raw('CREATE INDEX contacts_properties ON contacts USING gin (properties jsonb_path_ops)');

  await knex.schema.createTable('orders', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    t.text('id').primary();
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('contact_id').notNullable().references('contacts.id').onDelete('CASCADE');
    t.decimal('amount', 14, 2).notNullable();
    t.timestamp('ordered_at', { useTz: true }).notNullable();
    t.index(['contact_id', 'ordered_at']);
  });

  await knex.schema.createTable('segments', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    t.text('id').primary();
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.jsonb('definition').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['team_id', 'seq']);
  });

  await knex.schema.createTable('campaigns', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    t.text('id').primary();
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('channel').notNullable();
    t.text('subject');
    t.text('content').notNullable().defaultTo('');
    t.text('content_html');
    t.text('segment_id').references('segments.id').onDelete('SET NULL');
    t.specificType('tags', 'text[]');
    t.specificType('contact_ids', 'text[]');
    t.jsonb('template_params').notNullable().defaultTo('{}');
    t.jsonb('ai_params').notNullable().defaultTo('{}');
    t.uuid('agent_id').references('agents.id').onDelete('SET NULL');
    t.timestamp('scheduled_at', { useTz: true });
    t.text('language');
    t.text('category');
    t.text('status').notNullable().defaultTo('draft');
    /** How many sends and retries have run; the workflow of run n is campaign-<id>-run-<n>. */
    t.integer('run').notNullable().defaultTo(0);
    t.integer('recipient_count').notNullable().defaultTo(0);
    t.integer('sent_count').notNullable().defaultTo(0);
    t.integer('skipped_count').notNullable().defaultTo(0);
    t.integer('failed_count').notNullable().defaultTo(0);
    t.integer('opened_count').notNullable().defaultTo(0);
    t.integer('clicked_count').notNullable().defaultTo(0);
    /** WhatsApp template approval: the provider's template id and what it said. */
    t.text('whatsapp_template_id');
    t.text('whatsapp_rejection_reason');
    t.timestamp('submitted_at', { useTz: true });
    t.timestamp('archived_at', { useTz: true });
    t.timestamp('started_at', { useTz: true });
    t.timestamp('finished_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['team_id', 'seq']);
  });
  await knex.raw(
    "ALTER TABLE campaigns ADD CONSTRAINT campaigns_channel_check CHECK (channel IN ('email','sms','whatsapp','push'))",
  );
  await knex.raw(
    'ALTER TABLE campaigns ADD CONSTRAINT campaigns_status_check CHECK (status IN ' +
      "('draft','pending','approved','rejected','scheduled','sending','completed','failed'))",
  );

  await knex.schema.createTable('campaign_recipients', (t) => {
    t.text('campaign_id').notNullable().references('campaigns.id').onDelete('CASCADE');
    t.text('contact_id').notNullable();
    t.bigIncrements('seq', { primaryKey: false });
    t.text('status').notNullable();
    t.text('skip_reason');
    t.text('address');
    /** Manual-mode agents: the recipient's approval card (open, approved, skipped, closed); null: no card. */
    t.text('card');
    /** Which send of the campaign last touched this recipient; part of the provider idempotency key. */
    t.integer('attempt').notNullable().defaultTo(1);
    t.jsonb('error');
    t.text('provider_message_id');
    t.timestamp('sent_at', { useTz: true });
    t.timestamp('opened_at', { useTz: true });
    t.timestamp('clicked_at', { useTz: true });
    t.primary(['campaign_id', 'contact_id']);
    t.index(['campaign_id', 'status', 'seq']);
  });
  await knex.raw(
    'ALTER TABLE campaign_recipients ADD CONSTRAINT campaign_recipients_status_check CHECK (status IN ' +
      "('pending','sent','failed','skipped'))",
  );
  // Open and click events find their recipient by the provider's message id.
  await knex.raw(
    'CREATE INDEX campaign_recipients_provider_message ON campaign_recipients (provider_message_id) WHERE ' +
      'provider_message_id IS NOT NULL',
  );

  /** Provider webhook deliveries already handled (by their id), so a replayed one changes nothing. */
  await knex.schema.createTable('webhook_events', (t) => {
    t.text('provider').notNullable();
    t.text('event_id').notNullable();
    t.timestamp('received_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['provider', 'event_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['webhook_events', 'campaign_recipients', 'campaigns', 'segments', 'orders'])
    await knex.schema.dropTableIfExists(table);
  await knex.raw('DROP INDEX IF EXISTS contacts_team_tags');
  await knex.raw('DROP INDEX IF EXISTS contacts_properties');
  await knex.schema.alterTable('contacts', (t) => {
    t.dropColumn('user_id');
    t.dropColumn('waiting_on');
  });
}
