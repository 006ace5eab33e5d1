import type { Knex } from 'knex';

/**
 * A payment and the turn it bought (docs/AGENTS.md › Outside callers and the payment gate): the
 * caller it was taken from, the credits charged for it, the payload that was verified (settled
 * again, unchanged, when the first settlement's outcome is unknown) and, once the message is
 * posted, its turn. A settled payment its caller presents again answers that turn, or posts the
 * message if none was posted; one turn per payment at most (the unique `turn_id`).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('agent_payments', (t) => {
    /** Who paid, exactly: the outside caller's room name (`outside:<callerTeamId>:prompt:user:<id>`). */
    t.text('caller_key');
    /** The caller's credits charged for this payment: refunded when its settlement definitely failed. */
    t.integer('credits').notNullable().defaultTo(0);
    /**
     * `{ paymentPayload, paymentRequirements }` as verified; `json`, not `jsonb`, so it is sent again
     * exactly as it came (key order and all).
     */
    t.json('payload');
    /** The turn the payment bought; null until its message is posted. */
    t.text('turn_id').unique().references('room_turns.id').onDelete('SET NULL');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('agent_payments', (t) => {
    t.dropColumn('turn_id');
    t.dropColumn('payload');
    t.dropColumn('credits');
    t.dropColumn('caller_key');
  });
}
