import type { Knex } from 'knex';

/**
 * The step a queued event signal is for (docs/AUTOMATIONS.md › Waiting for an event): the
 * waitForEvent step the enrollment was at when the event was matched. The journey accepts a
 * signal only at that step, so an event matched for an earlier wait never satisfies a later one.
 * Signals queued before this migration have none and are taken as before.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('automation_signals', (t) => {
    t.integer('step');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('automation_signals', (t) => {
    t.dropColumn('step');
  });
}
