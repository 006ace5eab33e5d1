import type { Db } from '../../db/knex';
import { insertOutboundMessages } from '../deliveries/outboundMessages';
import type { ErrorBody } from '../platform/errors';
import { newTimeOrderedIds } from '../../db/ids';
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
 */
export async function recordChunk(
  db: Db,
  campaign: Pick<CampaignRow, 'id' | 'team_id' | 'agent_id' | 'channel'>,
  provider: string,
  outcomes: RecipientOutcome[],
): Promise<void> {
  if (!outcomes.length) return;
  // Postgres arrays take nulls; knex's binding type does not say so.
  const column = (pick: (o: RecipientOutcome) => string | null) => outcomes.map(pick) as string[];
  const sql = `
    WITH v AS (
      SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::jsonb[], ?::text[], ?::text[], ?::text[])
        AS v(contact_id, status, address, provider_message_id, error, skip_reason, idempotency_key, message_id)
    ), written AS (
      UPDATE campaign_recipients r
      SET status = v.status,
          address = coalesce(v.address, r.address),
          provider_message_id = v.provider_message_id,
          error = v.error,
          skip_reason = coalesce(v.skip_reason, r.skip_reason),
          sent_at = CASE WHEN v.status = 'sent' THEN now() ELSE r.sent_at END
      FROM v
      WHERE r.campaign_id = ? AND r.contact_id = v.contact_id AND r.status = 'pending'
      RETURNING r.contact_id, r.status
    ), messages AS (
      ${insertOutboundMessages(`
        SELECT v.message_id, ?::uuid, ?::uuid, ?, v.contact_id, v.address, ?, v.provider_message_id, v.status, v.error,
               v.idempotency_key, 'campaign', ?
        FROM v JOIN written USING (contact_id) WHERE v.status <> 'skipped'`)}
    )
    UPDATE campaigns SET
      sent_count = sent_count + (SELECT count(*) FROM written WHERE status = 'sent'),
      failed_count = failed_count + (SELECT count(*) FROM written WHERE status = 'failed'),
      skipped_count = skipped_count + (SELECT count(*) FROM written WHERE status = 'skipped'),
      updated_at = now()
    WHERE id = ?`;
  await db.raw(sql, [
    column((o) => o.contactId),
    column((o) => o.status),
    column((o) => (o.status === 'skipped' ? null : o.address)),
    column((o) => (o.status === 'sent' ? o.providerMessageId : null)),
    column((o) => (o.status === 'failed' ? JSON.stringify(o.error) : null)),
    column((o) => (o.status === 'skipped' ? o.skipReason : null)),
    column((o) => (o.status === 'skipped' ? null : o.idempotencyKey)),
    newTimeOrderedIds('msg', outcomes.length),
    campaign.id,
    campaign.team_id,
    campaign.agent_id,
    campaign.channel,
    provider,
    campaign.id,
    campaign.id,
  ]);
}

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
