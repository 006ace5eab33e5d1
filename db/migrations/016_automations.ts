import type { Knex } from 'knex';

/**
 * Automations (docs/AUTOMATIONS.md): a trigger and versioned steps per automation, one enrollment
 * per contact and journey (workflow `enrollment-<id>`), what each step did, the signals the event
 * dispatcher owes waiting enrollments, and the segment members a segment trigger has seen.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('automations', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    t.text('id').primary();
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.uuid('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    t.text('name').notNullable();
    /** `{ kind: inbound, source, mapping } | { kind: event, event } | { kind: segment, segmentId }`; fixed at creation. */
    t.jsonb('trigger').notNullable();
    /** The version new enrollments start on. */
    t.integer('version').notNullable().defaultTo(1);
    t.boolean('enabled').notNullable().defaultTo(true);
    t.uuid('created_by');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['team_id', 'seq']);
  });

  await knex.schema.createTable('automation_versions', (t) => {
    t.text('automation_id').notNullable().references('automations.id').onDelete('CASCADE');
    t.integer('version').notNullable();
    /** The steps as written (content, warps, conditions): read by the step activities. */
    t.jsonb('steps').notNullable();
    /** The control flow only (kinds, durations, targets), carried by each enrollment workflow. */
    t.jsonb('plan').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['automation_id', 'version']);
  });

  await knex.schema.createTable('automation_enrollments', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    /** `enr_…`; the workflow is `enrollment-<id>`. */
    t.text('id').primary();
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('automation_id').notNullable().references('automations.id').onDelete('CASCADE');
    t.integer('version').notNullable();
    t.text('contact_id').notNullable().references('contacts.id').onDelete('CASCADE');
    /** active | completed | exited | failed */
    t.text('status').notNullable().defaultTo('active');
    /** The step it is at (as last recorded by a step); the plan's length once it ran to the end. */
    t.integer('step').notNullable().defaultTo(0);
    /** While a waitForEvent step waits: the event type the dispatcher signals it on. */
    t.text('waiting_event');
    /** What enrolled it: `hook:<hookRunId>`, `event:<eventId>`, `api`. */
    t.text('enrolled_by').notNullable();
    /** exit_step | exit_requested (exited); the step's error (failed). */
    t.text('exit_reason');
    t.jsonb('error');
    t.timestamp('workflow_started_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('ended_at', { useTz: true });
    t.index(['automation_id', 'seq']);
    t.index(['team_id', 'seq']);
  });
  await knex.raw(
    'ALTER TABLE automation_enrollments ADD CONSTRAINT automation_enrollments_status_check ' +
      "CHECK (status IN ('active','completed','exited','failed'))",
  );
  // Once per automation while active: a repeated trigger finds the running enrollment.
  await knex.raw(
    "CREATE UNIQUE INDEX automation_enrollments_active ON automation_enrollments (automation_id, contact_id) WHERE status = 'active'",
  );
  await knex.raw(
    'CREATE INDEX automation_enrollments_waiting ON automation_enrollments (team_id, contact_id, waiting_event) ' +
      "WHERE status = 'active' AND waiting_event IS NOT NULL",
  );
  await knex.raw(
    'CREATE INDEX automation_enrollments_unstarted ON automation_enrollments (seq) WHERE workflow_started_at IS NULL',
  );

  await knex.schema.createTable('automation_step_runs', (t) => {
    t.text('enrollment_id').notNullable().references('automation_enrollments.id').onDelete('CASCADE');
    t.integer('step').notNullable();
    /** running (claimed, not settled) | sent | skipped | succeeded | failed */
    t.text('status').notNullable();
    /** sent: the outbound message; runWarp: the warp execution; skipped: the reason; failed: the error. */
    t.jsonb('detail');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['enrollment_id', 'step']);
  });

  await knex.schema.createTable('automation_signals', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    /** Derived from enrollment and event: the dispatcher queues it once. */
    t.text('id').primary();
    t.text('enrollment_id').notNullable().references('automation_enrollments.id').onDelete('CASCADE');
    t.text('event_id').notNullable();
    t.text('event_type').notNullable();
    t.timestamp('sent_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('CREATE INDEX automation_signals_unsent ON automation_signals (seq) WHERE sent_at IS NULL');

  await knex.schema.createTable('automation_segment_members', (t) => {
    t.text('automation_id').notNullable().references('automations.id').onDelete('CASCADE');
    t.text('contact_id').notNullable().references('contacts.id').onDelete('CASCADE');
    t.timestamp('entered_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['automation_id', 'contact_id']);
  });

  await knex.raw('ALTER TABLE outbound_messages DROP CONSTRAINT outbound_messages_source_kind_check');
  await knex.raw(
    'ALTER TABLE outbound_messages ADD CONSTRAINT outbound_messages_source_kind_check CHECK (source_kind IN ' +
      "('campaign','campaign_test','delivery','automation'))",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("DELETE FROM outbound_messages WHERE source_kind = 'automation'");
  await knex.raw('ALTER TABLE outbound_messages DROP CONSTRAINT outbound_messages_source_kind_check');
  await knex.raw(
    'ALTER TABLE outbound_messages ADD CONSTRAINT outbound_messages_source_kind_check CHECK (source_kind IN ' +
      "('campaign','campaign_test','delivery'))",
  );
  for (const table of [
    'automation_segment_members',
    'automation_signals',
    'automation_step_runs',
    'automation_enrollments',
    'automation_versions',
    'automations',
  ])
    await knex.schema.dropTableIfExists(table);
}
