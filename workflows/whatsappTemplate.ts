import { condition, continueAsNew, proxyActivities, proxyLocalActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { createTemplateActivities } from '../activities/whatsappTemplates';
import { refreshStatus, templateStatus } from './whatsappTemplateMessages';

type Activities = ReturnType<typeof createTemplateActivities>;
const { submitTemplate, fetchTemplateStatus } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});
const { settleTemplate, campaignStillPending } = proxyLocalActivities<Activities>({ startToCloseTimeout: '30 seconds' });

export interface TemplateApprovalArgs {
  campaignId: string;
  /** How often to ask the provider when no webhook has come. */
  refreshEveryMs: number;
  /** Set when continuing as new: the template was submitted already. */
  templateId?: string;
}

const DECIDED = ['APPROVED', 'REJECTED'];

/**
 * A WhatsApp campaign's template approval: submit, then wait for the provider's status webhook
 * (a signal) or a periodic refresh, until Approved or Rejected. An edit that sends the campaign
 * back to Draft ends the wait.
 */
export async function whatsappTemplateWorkflow(args: TemplateApprovalArgs): Promise<{ status: string }> {
  let reported: { status: string; reason?: string } | undefined;
  let refreshNow = false;
  setHandler(templateStatus, (s) => { reported = s; });
  setHandler(refreshStatus, () => { refreshNow = true; });

  const submitted = args.templateId ? { templateId: args.templateId } : await submitTemplate(args.campaignId);
  if ('rejected' in submitted) return settleTemplate(args.campaignId, { status: 'REJECTED', reason: submitted.rejected });
  for (;;) {
    if (!reported) await condition(() => reported !== undefined || refreshNow, args.refreshEveryMs);
    if (!(await campaignStillPending(args.campaignId, submitted.templateId))) return { status: 'withdrawn' };
    if (!reported || refreshNow) {
      refreshNow = false;
      reported = await fetchTemplateStatus(args.campaignId, submitted.templateId);
    }
    if (DECIDED.includes(reported.status)) return settleTemplate(args.campaignId, reported);
    reported = undefined;
    if (workflowInfo().historyLength > 1000) await continueAsNew<typeof whatsappTemplateWorkflow>({ ...args, templateId: submitted.templateId });
  }
}
