import { ApplicationFailure, Context } from '@temporalio/activity';
import { ProviderError } from '../../channels/types';
import type { Db } from '../../db/knex';
import type { CampaignActivities, DispatchBatchInput, DispatchedBatch } from '../../workflows/contracts/campaign';
import type { CampaignContactActivities } from '../../workflows/contracts/campaignContact';
import type { TemplateActivities, TemplateStatusReport } from '../../workflows/contracts/whatsappTemplate';
import type { AppContext } from '../platform/context';
import type { SecretBox } from '../platform/secretBox';
import { sendCampaignToContact } from './campaignContact';
import { PLACEHOLDER, placeholdersIn, type TextGenerator } from './content';
import { dispatchRecipients, type DispatchPosition } from './dispatch';
import { failRemaining, finishCampaign, remainingAfterDispatch, returnToDraft, snapshotAudience } from './runSteps';
import { pendingWithTemplate, recordSubmittedTemplate, settleTemplateOutcome, templateApiOf } from './whatsappTemplate';

/**
 * The activities of a campaign run (`campaign-<id>-run-<n>`, ./runSteps.ts and ./dispatch.ts) and
 * of a WhatsApp template's approval (`wa-template-<id>`, ./whatsappTemplate.ts): heartbeats and
 * Temporal's failures here, the writes in the services.
 */

export interface CampaignActivityDeps {
  db: Db;
  secretBox: SecretBox;
  textGenerator: TextGenerator;
  /** {base_url}, for the unsubscribe links. */
  baseUrl: string;
  /** The operator's send rate per provider (CAMPAIGN_RATE_LIMITS), for integrations that name none. */
  defaultRates: Record<string, number>;
}

const SNAPSHOT_HEARTBEAT_MS = 2_000;

/** A dispatch stops taking recipients after this long, so a slow send rate still ends its activities. */
const DISPATCH_TIME_BUDGET_MS = 60_000;

export function createCampaignActivities({
  db,
  secretBox,
  textGenerator,
  baseUrl,
  defaultRates,
}: CampaignActivityDeps) {
  return {
    /** The audience frozen into recipients (idempotent); answers how many. */
    async snapshotAudience(campaignId: string, run: number): Promise<number> {
      // One statement that can outlast the heartbeat timeout (a million recipients take ~15 s):
      // the worker says it is alive meanwhile, so Temporal does not start a second snapshot beside it.
      const context = Context.current();
      const alive = setInterval(() => context.heartbeat(), SNAPSHOT_HEARTBEAT_MS);
      return snapshotAudience(db, campaignId, run).finally(() => clearInterval(alive));
    },

    /**
     * Sends up to `batchSize` pending recipients (or what a minute allows, at a slow send rate),
     * recording them a chunk per statement and heartbeating the position recorded, so a retry
     * resumes after the last recorded chunk.
     */
    async dispatchBatch(input: DispatchBatchInput): Promise<DispatchedBatch> {
      const context = Context.current();
      const resumeFrom = context.info.heartbeatDetails as DispatchPosition | undefined;
      const stopTakingAt = Date.now() + DISPATCH_TIME_BUDGET_MS;
      const { processed, drained, lastSeq } = await dispatchRecipients(
        { db, secretBox, textGenerator, baseUrl, defaultRates },
        {
          campaignId: input.campaignId,
          limit: input.batchSize - (resumeFrom?.recorded ?? 0),
          afterSeq: resumeFrom?.lastSeq ?? input.afterSeq ?? 0,
        },
        {
          progress: (position) =>
            context.heartbeat({ ...position, recorded: position.recorded + (resumeFrom?.recorded ?? 0) }),
          // Out of time, or Temporal gave this attempt up (its retry may already be sending).
          stopTaking: () => Date.now() > stopTakingAt || context.cancellationSignal.aborted,
        },
      );
      const { remaining, open } = await remainingAfterDispatch(db, input.campaignId, drained);
      return {
        processed: processed + (resumeFrom?.recorded ?? 0),
        remaining,
        awaitingApproval: open,
        // Claims that ran dry start the next pass from the first recipient: one whose card was
        // approved meanwhile may sit before where this batch ended.
        continueAfterSeq: drained ? 0 : lastSeq,
      };
    },

    returnToDraft: (campaignId: string) => returnToDraft(db, campaignId),
    failRemaining: (campaignId: string) => failRemaining(db, campaignId),
    finishCampaign: (campaignId: string, cancelled: boolean) => finishCampaign(db, campaignId, cancelled),
  } satisfies CampaignActivities;
}

export interface TemplateActivityDeps {
  db: Db;
  secretBox: SecretBox;
}

export function createTemplateActivities({ db, secretBox }: TemplateActivityDeps) {
  /** The campaign and its agent's template API; a deleted campaign or a missing integration is final. */
  async function api(campaignId: string) {
    const found = await templateApiOf(db, secretBox, campaignId);
    if (!found) throw ApplicationFailure.nonRetryable('The campaign was deleted', 'CampaignDeleted');
    if (!found.templates)
      throw ApplicationFailure.nonRetryable(
        'The campaign agent has no active WhatsApp Cloud integration',
        'IntegrationMissing',
      );
    return { campaign: found.campaign, templates: found.templates };
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
          // Submit checked both (checkWhatsappTemplate).
          language: campaign.language!,
          category: campaign.category!,
          body,
          examples: names.map((n) => `example ${n}`),
        });
        if (!(await recordSubmittedTemplate(db, campaignId, created.id))) {
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

    campaignStillPending: (campaignId: string, templateId: string) => pendingWithTemplate(db, campaignId, templateId),
    settleTemplate: (campaignId: string, outcome: TemplateStatusReport) =>
      settleTemplateOutcome(db, campaignId, outcome),
  } satisfies TemplateActivities;
}

export interface CampaignContactActivityDeps {
  appContext: AppContext;
}

/** The activity of a send to one contact (`campaign-contact-<executionId>`, ./campaignContact.ts). */
export function createCampaignContactActivities({ appContext }: CampaignContactActivityDeps) {
  return {
    sendCampaignToContact: (executionId) => sendCampaignToContact(appContext, executionId),
  } satisfies CampaignContactActivities;
}
