import type { Knex } from 'knex';

/**
 * A recipient's row is updated in place when its send is recorded (a HOT update: no new index
 * entries), instead of as a new row version with an entry in each of its indexes
 * (docs/BENCHMARKS.md, run 44). Postgres does that only when no indexed column changes and the
 * row's page has room:
 * - the index the claims and counts read by status, `(campaign_id, status, seq)`, becomes
 *   `(campaign_id, seq)`: the claims walk it from where the last chunk ended and skip what is
 *   no longer pending; the few reads by status of one campaign filter its rows;
 * - pages are filled to 40 %, so that a page's rows, updated together by one chunk's record,
 *   all fit beside their old versions. The table ends about the size it reached before, when
 *   every update wrote its new version on another page.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    'CREATE INDEX IF NOT EXISTS campaign_recipients_campaign_id_seq_index ON campaign_recipients (campaign_id, seq)',
  );
  await knex.raw('DROP INDEX IF EXISTS campaign_recipients_campaign_id_status_seq_index');
  await knex.raw('ALTER TABLE campaign_recipients SET (fillfactor = 40)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE campaign_recipients RESET (fillfactor)');
  await knex.raw(
    'CREATE INDEX IF NOT EXISTS campaign_recipients_campaign_id_status_seq_index ON campaign_recipients (campaign_id, status, seq)',
  );
  await knex.raw('DROP INDEX IF EXISTS campaign_recipients_campaign_id_seq_index');
}
