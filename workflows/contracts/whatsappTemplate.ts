import { defineSignal } from '@temporalio/workflow';
import type { WorkflowStart } from './start';

/** The contract of `wa-template-<campaignId>`: a WhatsApp campaign's template approval. */

export const whatsappTemplateWorkflowName = 'whatsappTemplateWorkflow';

export interface TemplateApprovalArgs {
  campaignId: string;
  /** How often to ask the provider when no webhook has come. */
  refreshEveryMs: number;
  /** Set when continuing as new: the template was submitted already. */
  templateId?: string;
}

/** The provider's word on a template (`APPROVED`, `REJECTED`, `PENDING` …). */
export interface TemplateStatusReport {
  status: string;
  reason?: string;
}

export type WhatsappTemplateWorkflow = (args: TemplateApprovalArgs) => Promise<{ status: string }>;

export const whatsappTemplateWorkflowId = (campaignId: string) => `wa-template-${campaignId}`;

export const whatsappTemplateStart = {
  name: whatsappTemplateWorkflowName,
  id: (args) => whatsappTemplateWorkflowId(args.campaignId),
  searchAttributes: (args) => ({ JobType: 'whatsapp-template', BusinessId: args.campaignId }),
  // A resubmission after a rejection or an edit starts a new run under the same id.
  idConflictPolicy: 'TERMINATE_EXISTING',
} as const satisfies WorkflowStart<WhatsappTemplateWorkflow>;

/** The provider's status webhook, forwarded by the API. */
export const templateStatus = defineSignal<[TemplateStatusReport]>('templateStatus');
/** POST /campaigns/{id}/whatsapp/refresh: look at the provider now. */
export const refreshStatus = defineSignal('refreshStatus');

export interface TemplateActivities {
  /** A permanent refusal comes back as a rejection with the provider's reason. */
  submitTemplate(campaignId: string): Promise<{ templateId: string } | { rejected: string }>;
  fetchTemplateStatus(campaignId: string, templateId: string): Promise<TemplateStatusReport>;
  /** Still waiting: the campaign is Pending with this very template (an edit sends it back to Draft). */
  campaignStillPending(campaignId: string, templateId: string): Promise<boolean>;
  settleTemplate(campaignId: string, outcome: TemplateStatusReport): Promise<{ status: string }>;
}
