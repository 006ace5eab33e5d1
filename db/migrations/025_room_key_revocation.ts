import type { Knex } from 'knex';

/**
 * Room keys expire and can be revoked (docs/AGENTS.md › Room keys). A key's `seq` orders a room's
 * keys for listing; `revoked_at` ends it at once. Keys issued before this never expired: they now
 * expire 7 days from this migration (the default ROOM_KEY_TTL_SECONDS).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('room_keys', (t) => {
    t.bigIncrements('seq', { primaryKey: false });
    t.timestamp('revoked_at', { useTz: true });
    t.index(['room_id', 'seq']);
  });
  await knex('room_keys')
    .whereNull('expires_at')
    .update({ expires_at: knex.raw(`now() + interval '7 days'`) });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('room_keys', (t) => {
    t.dropIndex(['room_id', 'seq']);
    t.dropColumn('revoked_at');
    t.dropColumn('seq');
  });
}
