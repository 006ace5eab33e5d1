import type { Db } from '../../db/knex';
import { chunkRows, chunkValues, insertOutboundMessages } from '../deliveries/outboundMessages';
import type { ErrorBody } from '../platform/errors';
import { runStatement, statement } from '../../db/statement';
import type { CampaignRow } from './campaignRow';

/** What became of one recipient of a chunk. */
export type RecipientOutcome =
  | { contactId: string; status: 'sent'; address: string; idempotencyKey: string; providerMessageId: string }
  | { contactId: string; status: 'failed'; address: string; idempotencyKey: string; error: ErrorBody }
  | { contactId: string; status: 'skipped'; skipReason: string };

/**
 * Records a chunk of a campaign send in one statement: each recipient's status, its outbound
 * message, and the campaign's counters. Only recipients still pending are written, so recording
 * the same chunk twice (a retried activity) changes nothing and counts nothing twice.
 * The outcomes go as one JSON value (services/deliveries/outboundMessages.ts › chunkRows).
 */
export async function recordChunk(
  db: Db,
  campaign: Pick<CampaignRow, 'id' | 'team_id' | 'agent_id' | 'channel'>,
  provider: string,
  outcomes: RecipientOutcome[],
): Promise<void> {
  if (!outcomes.length) return;
  await runStatement(db, recordChunkStatement, [
    ...chunkValues(outcomes),
    campaign.id,
    campaign.team_id,
    campaign.agent_id,
    campaign.channel,
    provider,
  ]);
}

/** `recordChunk`'s one text, prepared once per connection. */
const recordChunkStatement = statement(`
    WITH v AS (
      ${chunkRows(
        `"contactId" text, status text, address text, "providerMessageId" text, error jsonb, "skipReason" text,
         "idempotencyKey" text`,
        'contact_id, status, address, provider_message_id, error, skip_reason, idempotency_key',
      )}
    ), written AS (
      UPDATE campaign_recipients r
      SET status = v.status,
          address = coalesce(v.address, r.address),
          provider_message_id = v.provider_message_id,
          error = v.error,
          skip_reason = coalesce(v.skip_reason, r.skip_reason),
          sent_at = CASE WHEN v.status = 'sent' THEN now() ELSE r.sent_at END
      FROM v
      WHERE r.campaign_id = $3 AND r.contact_id = v.contact_id AND r.status = 'pending'
      RETURNING r.contact_id, r.status
    ), messages AS (
      ${insertOutboundMessages(`
        SELECT v.message_id, $4::uuid, $5::uuid, $6, v.contact_id, v.address, $7, v.provider_message_id, v.status, v.error,
               v.idempotency_key, 'campaign', $3
        FROM v JOIN written USING (contact_id) WHERE v.status <> 'skipped'`)}
    )
    UPDATE campaigns SET
      sent_count = sent_count + (SELECT count(*) FROM written WHERE status = 'sent'),
      failed_count = failed_count + (SELECT count(*) FROM written WHERE status = 'failed'),
      skipped_count = skipped_count + (SELECT count(*) FROM written WHERE status = 'skipped'),
      updated_at = now()
    WHERE id = $3`);

/** The campaign's counters from its recipients (a send's end, a retry's start). */
export async function recountCampaign(db: Db, campaignId: string): Promise<Record<string, number>> {
  const rows: { status: string; n: string }[] = await db('campaign_recipients')
    .where({ campaign_id: campaignId })
    .groupBy('status')
    .select('status', db.raw('count(*) AS n'));
  const count = (status: string) => Number(rows.find((r) => r.status === status)?.n ?? 0);
  const counts = { sent: count('sent'), failed: count('failed'), skipped: count('skipped'), pending: count('pending') };
  await db('campaigns')
    .where({ id: campaignId })
    .update({
      sent_count: counts.sent,
      failed_count: counts.failed,
      skipped_count: counts.skipped,
      recipient_count: rows.reduce((s, r) => s + Number(r.n), 0),
      updated_at: db.fn.now(),
    });
  return counts;
}
