import type { Knex } from 'knex';

/**
 * Every message a provider was asked to send, on any channel and for any purpose (campaign,
 * delivery, campaign test send): the one place provider events are matched against.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('outbound_messages', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    t.text('id').primary();
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.uuid('agent_id');
    t.text('channel').notNullable();
    t.text('contact_id');
    t.text('address').notNullable();
    t.text('provider').notNullable();
    t.text('provider_message_id');
    t.text('status').notNullable();
    t.jsonb('error');
    /** The key the provider call carried: a retried activity finds its row instead of adding one. */
    t.text('idempotency_key').notNullable();
    /** The business object the message belongs to: `campaign` (id = campaign id, the recipient is contact_id), `campaign_test`, `delivery` (id = execution id). */
    t.text('source_kind').notNullable();
    t.text('source_id').notNullable();
    t.timestamp('opened_at', { useTz: true });
    t.timestamp('clicked_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['team_id', 'idempotency_key']);
    t.index(['team_id', 'seq']);
  });
  await knex.raw(
    "ALTER TABLE outbound_messages ADD CONSTRAINT outbound_messages_status_check CHECK (status IN ('sent','failed'))",
  );
  await knex.raw(
    'ALTER TABLE outbound_messages ADD CONSTRAINT outbound_messages_source_kind_check CHECK (source_kind IN ' +
      "('campaign','campaign_test','delivery'))",
  );
  // Provider events (opens, clicks) name the message by the provider's id.
  await knex.raw(
    'CREATE INDEX outbound_messages_provider_message ON outbound_messages (provider, provider_message_id) ' +
      'WHERE provider_message_id IS NOT NULL',
  );
  // Messages sent before this table existed: opens and clicks that arrive for them later are matched
  // too. Same keys as the send paths write, so a send still in flight during the deploy adds nothing.
  await knex.raw(`
    INSERT INTO outbound_messages (id, team_id, agent_id, channel, contact_id, address, provider, provider_message_id,
      status, idempotency_key, source_kind, source_id, opened_at, clicked_at, created_at)
    SELECT 'msg_b' || md5(r.campaign_id || ':' || r.contact_id || ':' || r.attempt), c.team_id, c.agent_id, c.channel,
      r.contact_id, coalesce(r.address, ''), coalesce(i.provider, 'unknown'), r.provider_message_id, 'sent',
      r.campaign_id || ':' || r.contact_id || ':' || r.attempt, 'campaign', r.campaign_id, r.opened_at, r.clicked_at,
      coalesce(r.sent_at, now())
    FROM campaign_recipients r
    JOIN campaigns c ON c.id = r.campaign_id
    LEFT JOIN agent_integrations i ON i.agent_id = c.agent_id AND i.channel = c.channel
    WHERE r.status = 'sent' AND r.provider_message_id IS NOT NULL
    ON CONFLICT DO NOTHING`);
  await knex.raw(`
    INSERT INTO outbound_messages (id, team_id, agent_id, channel, contact_id, address, provider, provider_message_id,
      status, error, idempotency_key, source_kind, source_id, created_at)
    SELECT 'msg_b' || md5(d.id), d.team_id, x.agent_id, d.integration, d.contact_id, d.to_address, d.provider,
      d.provider_message_id, d.status, d.error, d.execution_id || ':' || d.contact_id, 'delivery', d.execution_id,
      coalesce(d.sent_at, d.created_at)
    FROM deliveries d
    JOIN warp_executions x ON x.id = d.execution_id
    WHERE d.status IN ('sent', 'failed')
    ON CONFLICT DO NOTHING`);
  // Events now find their recipient through the outbound message; the send path no longer pays for this index.
  await knex.raw('DROP INDEX IF EXISTS campaign_recipients_provider_message');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    'CREATE INDEX IF NOT EXISTS campaign_recipients_provider_message ON campaign_recipients ' +
      '(provider_message_id) WHERE provider_message_id IS NOT NULL',
  );
  await knex.schema.dropTableIfExists('outbound_messages');
}
