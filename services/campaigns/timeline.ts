import { z } from 'zod';
import type { Db } from '../../db/knex';
import { findCampaign } from './campaignRow';

/** Bucket widths a timeline picks from: the smallest that keeps it to at most MAX_POINTS points. */
const BUCKETS = [1, 5, 10, 30, 60, 300, 900, 3600, 21600, 86400];
const MAX_POINTS = 120;

export const timelineSchema = z.object({
  campaignId: z.string(),
  /** The width of each point, in seconds. */
  bucketSeconds: z.number().int(),
  /** Every bucket from the first send to the last event, oldest first (empty buckets included, as zeros). */
  points: z.array(
    z.object({
      at: z.iso.datetime().describe('Start of the bucket'),
      sent: z.number().int().describe('Recipients sent in this bucket'),
      opened: z.number().int().describe('First opens in this bucket (email, providers that report them)'),
      clicked: z.number().int().describe('First clicks in this bucket'),
    }),
  ),
});
export type CampaignTimeline = z.infer<typeof timelineSchema>;

/** Messages sent, opened and clicked over time, from the recipients' own timestamps. */
export async function campaignTimeline(db: Db, teamId: string, campaignId: string): Promise<CampaignTimeline> {
  await findCampaign(db, teamId, campaignId);
  const events = db.raw(
    `SELECT 'sent' AS kind, sent_at AS at FROM campaign_recipients WHERE campaign_id = :id AND status = 'sent' AND sent_at IS NOT NULL
     UNION ALL SELECT 'opened', opened_at FROM campaign_recipients WHERE campaign_id = :id AND opened_at IS NOT NULL
     UNION ALL SELECT 'clicked', clicked_at FROM campaign_recipients WHERE campaign_id = :id AND clicked_at IS NOT NULL`,
    { id: campaignId },
  );
  const span = await db
    .from(events.wrap('(', ') e'))
    .first(db.raw('extract(epoch FROM min(at)) AS first'), db.raw('extract(epoch FROM max(at)) AS last'));
  if (span?.first === null || span?.first === undefined) return { campaignId, bucketSeconds: BUCKETS[0], points: [] };
  const first = Number(span.first);
  const last = Number(span.last);
  const bucket = BUCKETS.find((b) => (last - first) / b < MAX_POINTS) ?? BUCKETS[BUCKETS.length - 1];
  const rows: { kind: 'sent' | 'opened' | 'clicked'; t: string; n: string }[] = await db
    .from(events.wrap('(', ') e'))
    .groupBy('kind', 't')
    .select('kind', db.raw('floor(extract(epoch FROM at) / ?) * ? AS t', [bucket, bucket]), db.raw('count(*) AS n'));
  const start = Math.floor(first / bucket) * bucket;
  const end = Math.floor(last / bucket) * bucket;
  const points = new Map<number, { at: string; sent: number; opened: number; clicked: number }>();
  for (let t = start; t <= end; t += bucket)
    points.set(t, { at: new Date(t * 1000).toISOString(), sent: 0, opened: 0, clicked: 0 });
  for (const row of rows) {
    const point = points.get(Number(row.t));
    if (point) point[row.kind] += Number(row.n);
  }
  return { campaignId, bucketSeconds: bucket, points: [...points.values()] };
}
