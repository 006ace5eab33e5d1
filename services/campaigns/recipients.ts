import { z } from 'zod';
import type { Db } from '../../db/knex';
import { keysetPage } from '../platform/pagination';
import { findCampaign, iso } from './campaignRow';
import { retryableSql } from './retry';

export const recipientQuerySchema = z.object({
  status: z.enum(['sent', 'failed', 'skipped', 'pending']).optional(),
  perPage: z.coerce.number().int().min(1).max(100).default(25),
  cursor: z.string().optional(),
});

export const recipientSchema = z.object({
  contactId: z.string(),
  status: z.enum(['sent', 'failed', 'skipped', 'pending']),
  skipReason: z.string().optional(),
  retryable: z.boolean(),
  address: z.string().nullable(),
  error: z.unknown().nullable(),
  providerMessageId: z.string().nullable(),
  sentAt: z.iso.datetime().nullable(),
  /** Named as the spec names them (the rest of the recipient is camelCase). */
  opened_at: z.iso.datetime().nullable(),
  clicked_at: z.iso.datetime().nullable(),
});

/** A `campaign_recipients` row as the list reads it (with `retryable` computed by retryableSql). */
interface RecipientRow {
  seq: number;
  contact_id: string;
  status: z.infer<typeof recipientSchema>['status'];
  skip_reason: z.infer<typeof recipientSchema>['skipReason'] | null;
  retryable: boolean;
  address: string | null;
  error: z.infer<typeof recipientSchema>['error'];
  provider_message_id: string | null;
  sent_at: Date | null;
  opened_at: Date | null;
  clicked_at: Date | null;
}

export async function listRecipients(
  db: Db,
  teamId: string,
  campaignId: string,
  query: z.infer<typeof recipientQuerySchema>,
) {
  const campaign = await findCampaign(db, teamId, campaignId);
  const q = db('campaign_recipients').where({ campaign_id: campaignId });
  if (query.status) q.where({ status: query.status });
  return keysetPage(
    q.select('*', db.raw(`${retryableSql(campaign.channel)} AS retryable`)),
    { cursor: query.cursor, limit: query.perPage },
    (r: RecipientRow): z.infer<typeof recipientSchema> => ({
      contactId: r.contact_id,
      status: r.status,
      ...(r.skip_reason ? { skipReason: r.skip_reason } : {}),
      retryable: r.retryable,
      address: r.address,
      error: r.error,
      providerMessageId: r.provider_message_id,
      sentAt: iso(r.sent_at),
      opened_at: iso(r.opened_at),
      clicked_at: iso(r.clicked_at),
    }),
  );
}
