import type { Knex } from 'knex';

/**
 * The Shop app (docs/SHOP.md): a team's products, and the orders table of 006 widened with items,
 * currency and an external id (the idempotency key of an import: one order per id and team).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('products', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    t.text('id').primary();
    t.uuid('team_id').notNullable().references('teams.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('sku').notNullable();
    t.text('description');
    t.decimal('price', 14, 2).notNullable();
    t.text('currency').notNullable();
    t.boolean('active').notNullable().defaultTo(true);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['team_id', 'sku']);
    t.index(['team_id', 'seq']);
  });

  await knex.schema.alterTable('orders', (t) => {
    // Orders recorded before the Shop app have no currency or items; they still count in segments.
    t.text('currency').notNullable().defaultTo('USD');
    /** [{ productId, sku, name, quantity, unitPrice }] */
    t.jsonb('items').notNullable().defaultTo('[]');
    t.text('external_id');
    t.text('source').notNullable().defaultTo('api');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['team_id', 'external_id']);
    t.index(['team_id', 'seq']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('orders', (t) => {
    t.dropUnique(['team_id', 'external_id']);
    t.dropIndex(['team_id', 'seq']);
    t.dropColumns('currency', 'items', 'external_id', 'source', 'created_at');
  });
  await knex.schema.dropTable('products');
}
