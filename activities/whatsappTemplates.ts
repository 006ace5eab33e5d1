import { ApplicationFailure } from '@temporalio/activity';
import { ProviderError } from '../channels/types';
import type { Db } from '../db/knex';
import { PLACEHOLDER, placeholdersIn } from '../services/campaigns/content';
import { whatsappTemplatesFor } from '../services/agents/integrations';
import type { SecretBox } from '../services/platform/secretBox';
import type { TemplateActivities, TemplateStatusReport } from '../workflows/contracts/whatsappTemplate';

export interface TemplateActivityDeps {
  db: Db;
  secretBox: SecretBox;
}

export function createTemplateActivities({ db, secretBox }: TemplateActivityDeps) {
  /** The campaign and its agent's template API (submit set the campaign's agent). */
  async function api(campaignId: string) {
    const campaign = await db('campaigns').where({ id: campaignId }).first();
    if (!campaign) throw ApplicationFailure.nonRetryable('The campaign was deleted', 'CampaignDeleted');
    const templates = await whatsappTemplatesFor(db, secretBox, campaign.team_id, campaign.agent_id);
    if (!templates)
      throw ApplicationFailure.nonRetryable(
        'The campaign agent has no active WhatsApp Cloud integration',
        'IntegrationMissing',
      );
    return { campaign, templates };
  }
  const classify = (err: unknown): never => {
    if (err instanceof ProviderError && !err.retryable)
      throw ApplicationFailure.nonRetryable(err.message, 'ProviderRejected');
    throw err;
  };

  return {
    /** Submits the template; a permanent refusal comes back as a rejection with the provider's reason. */
    async submitTemplate(campaignId: string): Promise<{ templateId: string } | { rejected: string }> {
      const { campaign, templates } = await api(campaignId);
      // {{name}} placeholders become the positional {{1}}, {{2}} … WhatsApp templates use.
      const names = placeholdersIn(campaign.content);
      const body = campaign.content.replace(PLACEHOLDER, (_: string, name: string) => `{{${names.indexOf(name) + 1}}}`);
      try {
        const created = await templates.submit({
          name: campaign.name,
          language: campaign.language,
          category: campaign.category,
          body,
          examples: names.map((n) => `example ${n}`),
        });
        const stored = await db('campaigns')
          .where({ id: campaignId })
          .update({ whatsapp_template_id: created.id, submitted_at: db.fn.now(), updated_at: db.fn.now() });
        if (!stored) {
          // Deleted while the provider created it: its template goes too (the delete could not name it yet).
          await templates.remove(campaign.name);
          throw ApplicationFailure.nonRetryable('The campaign was deleted', 'CampaignDeleted');
        }
        return { templateId: created.id };
      } catch (err) {
        if (err instanceof ProviderError && !err.retryable) return { rejected: err.message };
        throw err;
      }
    },

    async fetchTemplateStatus(campaignId: string, templateId: string): Promise<TemplateStatusReport> {
      const { templates } = await api(campaignId);
      return templates.status(templateId).then((s) => ({ status: s.status, reason: s.rejectedReason }), classify);
    },

    /** Still waiting: the campaign is Pending with this very template (an edit sends it back to Draft). */
    async campaignStillPending(campaignId: string, templateId: string): Promise<boolean> {
      return Boolean(
        await db('campaigns')
          .where({ id: campaignId, status: 'pending', whatsapp_template_id: templateId })
          .first('id'),
      );
    },

    async settleTemplate(campaignId: string, outcome: TemplateStatusReport): Promise<{ status: string }> {
      const approved = outcome.status === 'APPROVED';
      await db('campaigns')
        .where({ id: campaignId, status: 'pending' })
        .update({
          status: approved ? 'approved' : 'rejected',
          whatsapp_rejection_reason: approved ? null : (outcome.reason ?? 'rejected by the provider'),
          updated_at: db.fn.now(),
        });
      return { status: approved ? 'approved' : 'rejected' };
    },
  } satisfies TemplateActivities;
}
