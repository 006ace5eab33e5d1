import { z } from 'zod';
import { channelSchema } from '../../channels/types';
import type { Db } from '../../db/knex';
import { errorBodySchema } from '../platform/errors';
import { keysetPage, Page, pageQuerySchema } from '../platform/pagination';
import { outboundSourceKindSchema } from './outboundMessages';

/** One message a provider was asked to send, as `GET /v1/messages` shows it. */
export const outboundMessageSchema = z.object({
  id: z.string(),
  channel: channelSchema,
  agentId: z.string().nullable(),
  contactId: z.string().nullable(),
  address: z.string(),
  provider: z.string(),
  providerMessageId: z.string().nullable(),
  status: z.enum(['sent', 'failed']),
  error: errorBodySchema.nullable(),
  /** What it was sent for: a campaign recipient, a campaign's test send, an artifact delivery. */
  sourceKind: outboundSourceKindSchema,
  /** The campaign id, or the warp execution id of a delivery. */
  sourceId: z.string(),
  openedAt: z.iso.datetime().nullable(),
  clickedAt: z.iso.datetime().nullable(),
  createdAt: z.iso.datetime(),
});
export type OutboundMessageJson = z.infer<typeof outboundMessageSchema>;

export const messageListQuerySchema = pageQuerySchema.extend({
  status: z.enum(['sent', 'failed']).optional(),
  channel: channelSchema.optional(),
  sourceKind: outboundSourceKindSchema.optional(),
  sourceId: z.string().max(100).optional(),
  contactId: z.string().max(100).optional(),
});

interface MessageRow {
  seq: number;
  id: string;
  channel: OutboundMessageJson['channel'];
  agent_id: string | null;
  contact_id: string | null;
  address: string;
  provider: string;
  provider_message_id: string | null;
  status: OutboundMessageJson['status'];
  error: OutboundMessageJson['error'];
  source_kind: OutboundMessageJson['sourceKind'];
  source_id: string;
  opened_at: Date | null;
  clicked_at: Date | null;
  created_at: Date;
}

const present = (r: MessageRow): OutboundMessageJson => ({
  id: r.id,
  channel: r.channel,
  agentId: r.agent_id,
  contactId: r.contact_id,
  address: r.address,
  provider: r.provider,
  providerMessageId: r.provider_message_id,
  status: r.status,
  error: r.error,
  sourceKind: r.source_kind,
  sourceId: r.source_id,
  openedAt: r.opened_at?.toISOString() ?? null,
  clickedAt: r.clicked_at?.toISOString() ?? null,
  createdAt: r.created_at.toISOString(),
});

/** The team's message log, newest first: every campaign message, test send and delivery, sent or failed. */
export function listOutboundMessages(
  db: Db,
  teamId: string,
  query: z.infer<typeof messageListQuerySchema>,
): Promise<Page<OutboundMessageJson>> {
  const q = db('outbound_messages').where({ team_id: teamId });
  if (query.status) q.where({ status: query.status });
  if (query.channel) q.where({ channel: query.channel });
  if (query.sourceKind) q.where({ source_kind: query.sourceKind });
  if (query.sourceId) q.where({ source_id: query.sourceId });
  if (query.contactId) q.where({ contact_id: query.contactId });
  return keysetPage(q.select('*'), query, present, { newestFirst: true });
}
