import type { AppContext, TeamRef } from '../platform/context';
import { newId } from '../../db/ids';
import { credentialAgentId } from '../agents/agents';
import type { Principal } from '../identity/principal';
import { checkAudience, resolveAudience } from './audience';
import { presentCampaign } from './campaignRow';
import { checkAgent, checkCampaign } from './editRules';
import type { CampaignCreate, CampaignJson } from './schemas';

/**
 * A Draft campaign. Without `agentId` its agent is the caller's: the connected agent of an MCP
 * connection (`connectedAgentId`), or on /v1 the OAuth token's agent.
 */
export async function createCampaign(
  ctx: AppContext,
  team: TeamRef,
  principal: Principal,
  input: CampaignCreate,
  connectedAgentId: string | null = credentialAgentId(principal),
): Promise<CampaignJson> {
  const { db } = ctx;
  await checkAgent(db, team.id, input.agentId);
  const agentId = input.agentId ?? connectedAgentId;
  await checkCampaign(
    db,
    team.id,
    {
      name: input.name,
      channel: input.channel,
      subject: input.subject ?? null,
      title: input.title ?? null,
      content: input.content,
      contentHtml: input.contentHtml ?? null,
      templateParams: input.templateParams,
      aiParams: input.aiParams,
      agentId,
      language: input.language ?? null,
      category: input.category ?? null,
    },
    principal,
  );
  await checkAudience(db, team.id, input.channel, await resolveAudience(db, team.id, input));
  const [row] = await db('campaigns')
    .insert({
      id: newId('cmp'),
      team_id: team.id,
      name: input.name,
      channel: input.channel,
      // A push title lives in the subject column (campaignRow.ts › channelFields).
      subject: (input.channel === 'push' ? input.title : input.subject) ?? null,
      content: input.content,
      content_html: input.contentHtml ?? null,
      segment_id: input.segmentId ?? null,
      tags: input.tags ?? null,
      contact_ids: input.contactIds ?? null,
      template_params: JSON.stringify(input.templateParams),
      ai_params: JSON.stringify(input.aiParams),
      agent_id: agentId,
      scheduled_at: input.scheduledAt ? new Date(input.scheduledAt) : null,
      language: input.language ?? null,
      category: input.category ?? null,
    })
    .returning('*');
  return presentCampaign(row);
}
