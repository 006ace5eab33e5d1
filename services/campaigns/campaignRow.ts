import { campaignActions } from './stateTable';
import type { Knex } from 'knex';
import type { Channel } from '../../channels/types';
import type { Db } from '../../db/knex';
import { sendingAgent } from '../agents/agents';
import { notFound } from '../platform/errors';
import type { CampaignJson, CampaignStatus } from './schemas';

/** A campaign as stored, how it is answered, and how every use case finds it. */
export interface CampaignRow {
  seq: number;
  id: string;
  team_id: string;
  name: string;
  channel: Channel;
  subject: string | null;
  content: string;
  content_html: string | null;
  segment_id: string | null;
  tags: string[] | null;
  contact_ids: string[] | null;
  template_params: Record<string, string>;
  ai_params: Record<string, string>;
  agent_id: string | null;
  scheduled_at: Date | null;
  language: string | null;
  category: string | null;
  status: CampaignStatus;
  run: number;
  send_approved_by: string | null;
  cancel_requested_at: Date | null;
  whatsapp_template_id: string | null;
  whatsapp_rejection_reason: string | null;
  recipient_count: number;
  sent_count: number;
  skipped_count: number;
  failed_count: number;
  opened_count: number;
  clicked_count: number;
  archived_at: Date | null;
  started_at: Date | null;
  finished_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export const iso = (d: Date | null) => d?.toISOString() ?? null;

/**
 * The channel-only fields as the resource names them. A push title is stored in the `subject`
 * column (the message's subject is the notification's title), so push campaigns stored before
 * `title` existed read as they were written; an off-channel value stored then (an email's
 * `language`) is not the campaign's and reads as null.
 */
export function channelFields(row: Pick<CampaignRow, 'channel' | 'subject' | 'language' | 'category'>) {
  return {
    subject: row.channel === 'email' ? row.subject : null,
    title: row.channel === 'push' ? row.subject : null,
    language: row.channel === 'whatsapp' ? row.language : null,
    category: row.channel === 'whatsapp' ? row.category : null,
  };
}

export function presentCampaign(row: CampaignRow): CampaignJson {
  const { subject, title, language, category } = channelFields(row);
  return {
    id: row.id,
    name: row.name,
    channel: row.channel,
    subject,
    title,
    content: row.content,
    contentHtml: row.content_html,
    segmentId: row.segment_id,
    tags: row.tags,
    contactIds: row.contact_ids,
    templateParams: row.template_params,
    aiParams: row.ai_params,
    agentId: row.agent_id,
    scheduledAt: iso(row.scheduled_at),
    language,
    category,
    status: row.status,
    rejectionReason: row.whatsapp_rejection_reason,
    archived: row.archived_at !== null,
    recipientCount: row.recipient_count,
    sentCount: row.sent_count,
    skippedCount: row.skipped_count,
    failedCount: row.failed_count,
    openedCount: row.opened_count,
    clickedCount: row.clicked_count,
    startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    actions: campaignActions({ status: row.status, channel: row.channel, archived: row.archived_at !== null }),
  };
}

export async function findCampaign(
  db: Db | Knex.Transaction,
  teamId: string,
  campaignId: string,
  forUpdate = false,
): Promise<CampaignRow> {
  const q = (db as Db)('campaigns').where({ team_id: teamId, id: campaignId });
  const row = await (forUpdate ? q.forUpdate() : q).first();
  if (!row) throw notFound('Campaign');
  return row;
}

export const getCampaign = async (db: Db, teamId: string, id: string) =>
  presentCampaign(await findCampaign(db, teamId, id));

/** The agent that sends a campaign: its own, else the team's first (one rule with deliveries). */
export const campaignAgent = async (db: Db, row: CampaignRow) =>
  (await sendingAgent(db, row.team_id, null, row.agent_id)).id;
