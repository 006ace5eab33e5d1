import type { Knex } from 'knex';

/**
 * The two tables a bulk send writes a row to per recipient lose their foreign keys; Postgres
 * checks a foreign key once per row, however many rows a statement writes (docs/BENCHMARKS.md,
 * run 43):
 * - `campaign_recipients.campaign_id`: a third of the audience snapshot's insert. The snapshot
 *   inserts only while it holds the campaign's row, and deleting a campaign deletes its
 *   recipients in the same transaction (services/campaigns/archive.ts), as the cascade did.
 * - `outbound_messages.team_id`: a third of a campaign chunk's insert. The team is copied from the
 *   row the message belongs to (a campaign, a delivery, an enrollment, a form), which has the key.
 *   Teams are never deleted by the product.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE campaign_recipients DROP CONSTRAINT IF EXISTS campaign_recipients_campaign_id_foreign');
  await knex.raw('ALTER TABLE outbound_messages DROP CONSTRAINT IF EXISTS outbound_messages_team_id_foreign');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    'DELETE FROM campaign_recipients r WHERE NOT EXISTS (SELECT 1 FROM campaigns c WHERE c.id = r.campaign_id)',
  );
  await knex.raw(
    'ALTER TABLE campaign_recipients ADD CONSTRAINT campaign_recipients_campaign_id_foreign FOREIGN KEY (campaign_id) ' +
      'REFERENCES campaigns(id) ON DELETE CASCADE',
  );
  await knex.raw('DELETE FROM outbound_messages m WHERE NOT EXISTS (SELECT 1 FROM teams t WHERE t.id = m.team_id)');
  await knex.raw(
    'ALTER TABLE outbound_messages ADD CONSTRAINT outbound_messages_team_id_foreign FOREIGN KEY (team_id) ' +
      'REFERENCES teams(id) ON DELETE CASCADE',
  );
}
