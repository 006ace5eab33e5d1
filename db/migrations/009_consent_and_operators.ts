import type { Knex } from 'knex';

/**
 * Marketing consent keeps where and when it was recorded (an imported list carries its own
 * evidence), and platform operators are users marked by the CLI: they set teams' plans.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('contacts', (t) => {
    /** Free text such as "signup form"; null when the write did not say. */
    t.text('consent_source');
    /** When the current `marketing_consent` value was given (the source's time, else the write's). */
    t.timestamp('consent_at', { useTz: true });
  });
  await knex.schema.alterTable('users', (t) => {
    /** Set by `cli grant-admin`: the user may call /v1/admin/* with an API token. Null: not an operator. */
    t.timestamp('platform_admin_since', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.dropColumn('platform_admin_since');
  });
  await knex.schema.alterTable('contacts', (t) => {
    t.dropColumn('consent_at');
    t.dropColumn('consent_source');
  });
}
