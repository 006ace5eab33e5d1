import { z } from 'zod';
import type { Db } from '../../db/knex';
import { findCampaign } from './campaignRow';
import { campaignStatusSchema } from './schemas';

export const campaignStatsSchema = z.object({
  awaitingApproval: z.number().int(),
  campaignId: z.string(),
  status: campaignStatusSchema,
  recipients: z.number().int(),
  pending: z.number().int(),
  sent: z.number().int(),
  failed: z.number().int(),
  skipped: z.number().int(),
  skipReasons: z.record(z.string(), z.number().int()),
  opened: z.number().int(),
  clicked: z.number().int(),
});

/**
 * Live counts from the recipients, in one pass over the campaign's rows (the campaign's counters
 * are settled from the same at the end of a run).
 */
export async function campaignStats(db: Db, teamId: string, campaignId: string) {
  const row = await findCampaign(db, teamId, campaignId);
  const rows: { status: string; skip_reason: string | null; n: string; open: string }[] = await db(
    'campaign_recipients',
  )
    .where({ campaign_id: campaignId })
    .groupBy('status', 'skip_reason')
    .select('status', 'skip_reason', db.raw('count(*) AS n'), db.raw("count(*) FILTER (WHERE card = 'open') AS open"));
  const count = (status: string) => rows.filter((r) => r.status === status).reduce((s, r) => s + Number(r.n), 0);
  const open = rows.filter((r) => r.status === 'pending').reduce((s, r) => s + Number(r.open), 0);
  return {
    awaitingApproval: open,
    campaignId,
    status: row.status,
    recipients: rows.reduce((s, r) => s + Number(r.n), 0),
    pending: count('pending'),
    sent: count('sent'),
    failed: count('failed'),
    skipped: count('skipped'),
    skipReasons: Object.fromEntries(rows.filter((r) => r.skip_reason).map((r) => [r.skip_reason, Number(r.n)])),
    opened: row.opened_count,
    clicked: row.clicked_count,
  };
}
