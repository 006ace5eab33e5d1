import { z } from 'zod';
import { channelSchema, type Channel } from '../../channels/types';
import type { Db } from '../../db/knex';
import { skipReasonSql, SKIP_REASONS, type SkipReason } from '../contacts/channelAddress';
import { AppError } from '../platform/errors';
import { audienceQuery, Audience, resolveAudience } from './audience';
import { findCampaign } from './campaignRow';
import { campaignFields } from './schemas';

/** The one statement of a preview: the audience's contacts counted by skip reason (null: sendable). */
export const previewQuery = (db: Db, teamId: string, channel: Channel, audience: Audience) =>
  audienceQuery(db, teamId, audience)
    .select(db.raw(`${skipReasonSql(channel)} AS reason`), db.raw('count(*) AS n'))
    .groupByRaw('1');

/** Sendable and skipped counts (with reasons) for an audience on a channel. */
export async function previewAudience(db: Db, teamId: string, channel: Channel, audience: Audience) {
  const rows: { reason: string | null; n: string }[] = await previewQuery(db, teamId, channel, audience);
  const skipped = Object.fromEntries(rows.filter((r) => r.reason).map((r) => [r.reason, Number(r.n)]));
  const sendable = Number(rows.find((r) => r.reason === null)?.n ?? 0);
  const total = rows.reduce((sum, r) => sum + Number(r.n), 0);
  return {
    channel,
    total,
    sendable,
    skipped: { ...Object.fromEntries(SKIP_REASONS.map((reason) => [reason, 0])), ...skipped } as Record<
      SkipReason,
      number
    > &
      Record<string, number>,
  };
}

const skipCountsSchema = z
  .object({ pending_consent: z.number().int(), opted_out: z.number().int(), missing_channel: z.number().int() })
  .catchall(z.number().int());
export const audiencePreviewResultSchema = z.object({
  channel: z.string(),
  total: z.number().int(),
  sendable: z.number().int(),
  skipped: skipCountsSchema,
});

export const audiencePreviewSchema = z.strictObject({
  campaignId: z.string().optional(),
  channel: channelSchema.optional(),
  segmentId: z.string().optional(),
  tags: campaignFields.tags.optional(),
  contactIds: campaignFields.contactIds.optional(),
});

/** The spec's preview: of a campaign's audience, or of `channel` with segmentId / tags / contactIds. */
export async function previewCampaignAudience(db: Db, teamId: string, input: z.infer<typeof audiencePreviewSchema>) {
  if (input.campaignId) {
    const campaign = await findCampaign(db, teamId, input.campaignId);
    const audience = await resolveAudience(db, teamId, {
      segmentId: campaign.segment_id,
      tags: campaign.tags,
      contactIds: campaign.contact_ids,
    });
    return previewAudience(db, teamId, campaign.channel, audience);
  }
  if (!input.channel) {
    throw new AppError('validation_error', 'Give campaignId, or channel with segmentId / tags / contactIds', {
      issues: [{ path: 'channel', message: 'required without campaignId', code: 'invalid_type' }],
    });
  }
  return previewAudience(db, teamId, input.channel, await resolveAudience(db, teamId, input));
}
