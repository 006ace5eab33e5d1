import type { Knex } from 'knex';

/**
 * Large job inputs (import rows) are stored in slices of one batch each, so that every batch
 * activity reads only its own slice instead of the whole input.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('job_input_chunks', (t) => {
    t.text('job_id').notNullable().references('jobs.id').onDelete('CASCADE');
    t.integer('position').notNullable();
    t.jsonb('rows').notNullable();
    t.primary(['job_id', 'position']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('job_input_chunks');
}
