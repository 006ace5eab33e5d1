import { z } from 'zod';
import { channelSchema } from '../../channels/types';
import type { Db } from '../../db/knex';
import { campaignStatusSchema, type CampaignStatus } from './schemas';

export const campaignTotalsQuerySchema = z.strictObject({
  channel: channelSchema.optional().describe('Only the campaigns of this channel'),
});

export const campaignTotalsSchema = z.object({
  campaigns: z.number().int().describe('Every campaign of the team, archived included'),
  archived: z.number().int().describe('Of those, how many are archived'),
  byStatus: z.record(campaignStatusSchema, z.number().int()).describe('Campaigns per status (every status listed)'),
  recipients: z.number().int(),
  sent: z.number().int(),
  skipped: z.number().int(),
  failed: z.number().int(),
  opened: z.number().int(),
  clicked: z.number().int(),
});
export type CampaignTotals = z.infer<typeof campaignTotalsSchema>;

const STATUSES = campaignStatusSchema.options;

/**
 * The spec's historical totals: every campaign the team has, archived ones included (archiving
 * only takes a campaign off the active list), summed from each campaign's counters in one
 * statement. A campaign still Sending counts what its counters hold so far.
 */
export async function campaignTotals(
  db: Db,
  teamId: string,
  query: z.infer<typeof campaignTotalsQuerySchema>,
): Promise<CampaignTotals> {
  const q = db('campaigns')
    .where({ team_id: teamId })
    .select(
      'status',
      db.raw('count(*)::int AS campaigns'),
      db.raw('count(archived_at)::int AS archived'),
      db.raw('sum(recipient_count)::bigint AS recipients'),
      db.raw('sum(sent_count)::bigint AS sent'),
      db.raw('sum(skipped_count)::bigint AS skipped'),
      db.raw('sum(failed_count)::bigint AS failed'),
      db.raw('sum(opened_count)::bigint AS opened'),
      db.raw('sum(clicked_count)::bigint AS clicked'),
    )
    .groupBy('status');
  if (query.channel) q.where({ channel: query.channel });
  const rows: ({ status: CampaignStatus } & Record<string, string | number>)[] = await q;
  const sum = (column: string) => rows.reduce((total, row) => total + Number(row[column]), 0);
  return {
    campaigns: sum('campaigns'),
    archived: sum('archived'),
    byStatus: Object.fromEntries(
      STATUSES.map((status) => [status, Number(rows.find((row) => row.status === status)?.campaigns ?? 0)]),
    ) as Record<CampaignStatus, number>,
    recipients: sum('recipients'),
    sent: sum('sent'),
    skipped: sum('skipped'),
    failed: sum('failed'),
    opened: sum('opened'),
    clicked: sum('clicked'),
  };
}
