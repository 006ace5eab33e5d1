import type { Knex } from 'knex';

/**
 * Cohorts (docs/AUTOMATIONS.md › Cohorts): contacts that enter an automation together move
 * through its steps together, driven by one workflow `cohort-<id>` instead of one per contact.
 * An enrollment names its cohort; one without a cohort (and not a per-contact workflow of before)
 * waits to be formed into one: at entry, or after its event ended a wait or a branch split it off.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('automation_cohorts', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    /** `coh_…`; the workflow is `cohort-<id>`. */
    t.text('id').primary();
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('automation_id').notNullable().references('automations.id').onDelete('CASCADE');
    t.integer('version').notNullable();
    /** The step its members were at when it was formed. */
    t.integer('start_step').notNullable();
    t.integer('member_count').notNullable().defaultTo(0);
    /** A cohort a branch split off: the cohort its members came from. */
    t.text('parent_cohort_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('workflow_started_at', { useTz: true });
    t.index(['automation_id', 'seq']);
  });
  await knex.raw(
    'CREATE INDEX automation_cohorts_unstarted ON automation_cohorts (seq) WHERE workflow_started_at IS NULL',
  );
  await knex.schema.alterTable('automation_enrollments', (t) => {
    t.text('cohort_id').references('automation_cohorts.id').onDelete('SET NULL');
  });
  await knex.raw(
    'CREATE INDEX automation_enrollments_cohort ON automation_enrollments (cohort_id, seq) WHERE cohort_id IS NOT NULL',
  );
  // Enrollments waiting to be formed into a cohort (a per-contact workflow of before has workflow_started_at).
  await knex.raw(
    'CREATE INDEX automation_enrollments_unformed ON automation_enrollments (seq) ' +
      "WHERE status = 'active' AND cohort_id IS NULL AND workflow_started_at IS NULL",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS automation_enrollments_unformed');
  await knex.raw('DROP INDEX IF EXISTS automation_enrollments_cohort');
  await knex.schema.alterTable('automation_enrollments', (t) => {
    t.dropColumn('cohort_id');
  });
  await knex.schema.dropTable('automation_cohorts');
}
