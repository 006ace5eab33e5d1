import type { Knex } from 'knex';

/**
 * An agent's additional properties (spec: Agent accepts and may return properties beyond those
 * listed): any JSON, merged key by key by PATCH /v1/agents/{id}, answered under `properties`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('agents', (t) => {
    t.jsonb('properties').notNullable().defaultTo('{}');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('agents', (t) => t.dropColumn('properties'));
}
