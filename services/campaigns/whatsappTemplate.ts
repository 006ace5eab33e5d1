import { WorkflowNotFoundError } from '@temporalio/client';
import {
  refreshStatus,
  templateStatus,
  whatsappTemplateStart,
  whatsappTemplateWorkflowId,
  type TemplateStatusReport,
} from '../../workflows/contracts/whatsappTemplate';
import type { Db } from '../../db/knex';
import type { SecretBox } from '../platform/secretBox';
import type { AppContext, TeamRef } from '../platform/context';
import { invalidState, ruleBroken } from '../platform/errors';
import { whatsappTemplatesFor } from '../agents/integrations';
import { campaignAgent, CampaignRow, findCampaign, presentCampaign } from './campaignRow';
import { checkWhatsappTemplate } from './editRules';
import type { CampaignJson } from './schemas';
import { WHATSAPP_SUBMITTABLE_STATES } from './stateTable';
import { settled } from './workflowRun';

/** A WhatsApp campaign's template: submit it for approval, refresh its status, hear the provider's webhook, remove it. */
/** Best effort: the provider's template of a deleted campaign goes too. */
export async function removeTemplate(ctx: AppContext, row: CampaignRow): Promise<void> {
  await (
    await whatsappTemplatesFor(ctx.db, ctx.secretBox, row.team_id, await campaignAgent(ctx.db, row))
  )?.remove(row.name);
}

export { whatsappTemplateWorkflowId };

/**
 * Submit (WhatsApp): Draft or Rejected → Pending when the template is valid (every placeholder
 * mapped, slug name, language, category); the approval workflow takes it from there.
 */
export async function submitWhatsapp(ctx: AppContext, team: TeamRef, campaignId: string): Promise<CampaignJson> {
  const row = await findCampaign(ctx.db, team.id, campaignId);
  if (row.channel !== 'whatsapp') throw ruleBroken('not_whatsapp', 'Only WhatsApp campaigns have templates to submit');
  if (!WHATSAPP_SUBMITTABLE_STATES.includes(row.status))
    throw invalidState(`A ${row.status} campaign cannot be submitted`, { status: row.status });
  checkWhatsappTemplate({
    name: row.name,
    content: row.content,
    templateParams: row.template_params,
    aiParams: row.ai_params,
  });
  if (!row.language) throw ruleBroken('whatsapp_language_required', 'Set the template language (e.g. en or en_US)');
  if (!row.category)
    throw ruleBroken('whatsapp_category_required', 'Set the template category: MARKETING, UTILITY or AUTHENTICATION');
  const agentId = await campaignAgent(ctx.db, row);
  if (!(await whatsappTemplatesFor(ctx.db, ctx.secretBox, team.id, agentId))) {
    throw ruleBroken(
      'integration_inactive',
      'The campaign agent needs an active WhatsApp Cloud integration to submit templates',
      { agentId },
    );
  }
  const [updated] = await ctx
    .db('campaigns')
    .where({ id: row.id })
    .whereIn('status', WHATSAPP_SUBMITTABLE_STATES)
    .update({
      status: 'pending',
      agent_id: agentId,
      whatsapp_template_id: null,
      whatsapp_rejection_reason: null,
      updated_at: ctx.db.fn.now(),
    })
    .returning('*');
  if (!updated) throw invalidState('The campaign changed meanwhile; read it and try again');
  await ctx.temporal.startTracked(
    whatsappTemplateStart,
    { campaignId: row.id, refreshEveryMs: ctx.config.WHATSAPP_TEMPLATE_REFRESH_SECONDS * 1000 },
    { team, staticSummary: `WhatsApp template "${row.name}" of campaign ${row.id} (team ${team.slug})` },
    {
      onFailure: () =>
        ctx.db('campaigns').where({ id: row.id, status: 'pending' }).whereNull('whatsapp_template_id').update({
          status: row.status,
          whatsapp_rejection_reason: row.whatsapp_rejection_reason,
          updated_at: ctx.db.fn.now(),
        }),
    },
  );
  return presentCampaign(updated);
}

/** Refresh (WhatsApp): ask the provider now instead of waiting for the next periodic check. */
export async function refreshWhatsapp(ctx: AppContext, teamId: string, campaignId: string): Promise<CampaignJson> {
  const row = await findCampaign(ctx.db, teamId, campaignId);
  if (row.channel !== 'whatsapp') throw ruleBroken('not_whatsapp', 'Only WhatsApp campaigns have templates');
  if (row.status !== 'pending') throw invalidState('Only a Pending template can be refreshed', { status: row.status });
  try {
    await ctx.temporal.call((client) =>
      client.workflow.getHandle(whatsappTemplateWorkflowId(row.id)).signal(refreshStatus),
    );
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
    // The template's workflow ended without a verdict (it failed, or an operator ended it): back to Draft, to be submitted again.
    await ctx.db('campaigns').where({ id: row.id, status: 'pending' }).update({
      status: 'draft',
      whatsapp_template_id: null,
      submitted_at: null,
      whatsapp_rejection_reason: 'The template check ended without a verdict; submit again',
      updated_at: ctx.db.fn.now(),
    });
    throw invalidState(
      'The template check had ended without a verdict; the campaign is back in Draft, submit it again',
    );
  }
  return settled(ctx.db, teamId, campaignId, 'pending');
}

/** The provider's status webhook: the template's campaign hears it as a signal. */
export async function templateStatusChanged(
  ctx: AppContext,
  templateId: string,
  status: string,
  reason?: string,
): Promise<boolean> {
  const row = await ctx.db('campaigns').where({ whatsapp_template_id: templateId, status: 'pending' }).first('id');
  if (!row) return false;
  try {
    await ctx.temporal.call((client) =>
      client.workflow.getHandle(whatsappTemplateWorkflowId(row.id)).signal(templateStatus, { status, reason }),
    );
  } catch (err) {
    // No workflow waits any more (refresh puts such a campaign back to Draft): the event changes nothing.
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
  return true;
}

/**
 * The writes of the approval workflow `wa-template-<campaignId>` (its activities:
 * ./activities.ts). The campaign and its agent's template API (submit set the campaign's agent);
 * undefined: the campaign was deleted; `templates` undefined: the agent has no active WhatsApp
 * Cloud integration.
 */
export async function templateApiOf(db: Db, secretBox: SecretBox, campaignId: string) {
  const campaign: CampaignRow | undefined = await db('campaigns').where({ id: campaignId }).first();
  if (!campaign) return undefined;
  // Submit set the campaign's agent.
  return { campaign, templates: await whatsappTemplatesFor(db, secretBox, campaign.team_id, campaign.agent_id!) };
}

/** The provider created the template: recorded on the campaign; false when the campaign was deleted meanwhile. */
export async function recordSubmittedTemplate(db: Db, campaignId: string, templateId: string): Promise<boolean> {
  const stored = await db('campaigns')
    .where({ id: campaignId })
    .update({ whatsapp_template_id: templateId, submitted_at: db.fn.now(), updated_at: db.fn.now() });
  return stored > 0;
}

/** Still waiting: the campaign is Pending with this very template (an edit sends it back to Draft). */
export async function pendingWithTemplate(db: Db, campaignId: string, templateId: string): Promise<boolean> {
  return Boolean(
    await db('campaigns').where({ id: campaignId, status: 'pending', whatsapp_template_id: templateId }).first('id'),
  );
}

/** The provider's verdict: a Pending campaign becomes Approved or Rejected (with the reason). */
export async function settleTemplateOutcome(
  db: Db,
  campaignId: string,
  outcome: TemplateStatusReport,
): Promise<{ status: 'approved' | 'rejected' }> {
  const approved = outcome.status === 'APPROVED';
  await db('campaigns')
    .where({ id: campaignId, status: 'pending' })
    .update({
      status: approved ? 'approved' : 'rejected',
      whatsapp_rejection_reason: approved ? null : (outcome.reason ?? 'rejected by the provider'),
      updated_at: db.fn.now(),
    });
  return { status: approved ? 'approved' : 'rejected' };
}
