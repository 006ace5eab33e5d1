import type { Knex } from 'knex';

/**
 * Webhook deliveries in batches (docs/EVENTS.md › Delivery in batches): the batch a delivery's
 * first attempt belongs to, set by the dispatcher and committed before `webhook-batch-<batchId>`
 * is started, so a start repeated after a crash names the same deliveries.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    /** `whb_…`; null: not batched yet (or a delivery started on its own before batches). */
    t.text('batch_id');
    t.index(['batch_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.dropIndex(['batch_id']);
    t.dropColumn('batch_id');
  });
}
