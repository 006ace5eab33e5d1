import type { AppContext, TeamRef } from '../platform/context';
import { invalidState } from '../platform/errors';
import type { Principal } from '../identity/principal';
import { checkAudience, resolveAudience } from './audience';
import { channelFields, findCampaign, presentCampaign } from './campaignRow';
import { checkAgent, checkCampaign } from './editRules';
import type { CampaignJson, CampaignUpdate } from './schemas';
import { EDITABLE_STATES } from './stateTable';

export async function updateCampaign(
  ctx: AppContext,
  team: TeamRef,
  principal: Principal,
  campaignId: string,
  input: CampaignUpdate,
): Promise<CampaignJson> {
  const { db } = ctx;
  const row = await findCampaign(db, team.id, campaignId);
  if (!EDITABLE_STATES.includes(row.status))
    throw invalidState(`A campaign cannot be edited while ${row.status}`, { status: row.status });
  if (row.archived_at) throw invalidState('Unarchive the campaign before editing it');
  // Off-channel values stored before the channel rules (an email's language) are dropped here.
  const stored = channelFields(row);
  const next = {
    name: input.name ?? row.name,
    channel: row.channel,
    subject: input.subject !== undefined ? input.subject : stored.subject,
    title: input.title !== undefined ? input.title : stored.title,
    content: input.content ?? row.content,
    contentHtml: input.contentHtml !== undefined ? input.contentHtml : row.content_html,
    templateParams: input.templateParams ?? row.template_params,
    aiParams: input.aiParams ?? row.ai_params,
    agentId: input.agentId !== undefined ? input.agentId : row.agent_id,
    language: input.language !== undefined ? input.language : stored.language,
    category: input.category !== undefined ? input.category : stored.category,
  };
  await checkAgent(db, team.id, next.agentId);
  await checkCampaign(db, team.id, next, principal);
  const audienceChanged = input.segmentId !== undefined || input.tags !== undefined || input.contactIds !== undefined;
  if (audienceChanged) {
    await checkAudience(
      db,
      team.id,
      row.channel,
      await resolveAudience(db, team.id, {
        segmentId: input.segmentId !== undefined ? input.segmentId : row.segment_id,
        tags: input.tags !== undefined ? input.tags : row.tags,
        contactIds: input.contactIds !== undefined ? input.contactIds : row.contact_ids,
      }),
    );
  }
  // scheduledAt is neither content nor audience: it leaves a WhatsApp approval as it is.
  const contentChanged = [
    'subject',
    'title',
    'content',
    'contentHtml',
    'templateParams',
    'aiParams',
    'language',
    'category',
    'name',
  ].some((k) => (input as Record<string, unknown>)[k] !== undefined);
  // An edit of content or audience sends a WhatsApp template back to Draft (to be resubmitted).
  const status =
    (row.status === 'pending' || row.status === 'approved') && (contentChanged || audienceChanged)
      ? 'draft'
      : row.status;
  // Only if nobody moved it meanwhile (a send, a submit): the checks above read that state.
  const [updated] = await db('campaigns')
    .where({ id: row.id, status: row.status })
    .whereNull('archived_at')
    .update({
      ...(status === 'draft' && row.status !== 'draft'
        ? { whatsapp_template_id: null, submitted_at: null, whatsapp_rejection_reason: null }
        : {}),
      name: next.name,
      subject: row.channel === 'push' ? next.title : next.subject,
      content: next.content,
      content_html: next.contentHtml,
      template_params: JSON.stringify(next.templateParams),
      ai_params: JSON.stringify(next.aiParams),
      agent_id: next.agentId,
      language: next.language,
      category: next.category,
      status,
      ...(input.scheduledAt !== undefined
        ? { scheduled_at: input.scheduledAt === null ? null : new Date(input.scheduledAt) }
        : {}),
      ...(input.segmentId !== undefined ? { segment_id: input.segmentId } : {}),
      ...(input.tags !== undefined ? { tags: input.tags } : {}),
      ...(input.contactIds !== undefined ? { contact_ids: input.contactIds } : {}),
      updated_at: db.fn.now(),
    })
    .returning('*');
  if (!updated) throw invalidState('The campaign changed while it was being edited; read it and edit again');
  return presentCampaign(updated);
}
