import { condition, continueAsNew, proxyActivities, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import {
  refreshStatus,
  TemplateActivities,
  TemplateApprovalArgs,
  TemplateStatusReport,
  templateStatus,
  WhatsappTemplateWorkflow,
} from './contracts/whatsappTemplate';
import { shouldContinueAsNew } from './continueAsNew';

const { submitTemplate, fetchTemplateStatus } = proxyActivities<TemplateActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});
const { settleTemplate, campaignStillPending } = proxyLocalActivities<TemplateActivities>({
  startToCloseTimeout: '30 seconds',
});

const DECIDED: readonly string[] = ['APPROVED', 'REJECTED'];

/**
 * A WhatsApp campaign's template approval: submit, then wait for the provider's status webhook
 * (a signal) or a periodic refresh, until Approved or Rejected. An edit that sends the campaign
 * back to Draft ends the wait.
 */
export async function whatsappTemplateWorkflow(args: TemplateApprovalArgs): Promise<{ status: string }> {
  let reported: TemplateStatusReport | undefined;
  let refreshNow = false;
  setHandler(templateStatus, (s) => {
    reported = s;
  });
  setHandler(refreshStatus, () => {
    refreshNow = true;
  });

  const submitted = args.templateId ? { templateId: args.templateId } : await submitTemplate(args.campaignId);
  if ('rejected' in submitted)
    return settleTemplate(args.campaignId, { status: 'REJECTED', reason: submitted.rejected });
  for (;;) {
    if (!reported) await condition(() => reported !== undefined || refreshNow, args.refreshEveryMs);
    if (!(await campaignStillPending(args.campaignId, submitted.templateId))) return { status: 'withdrawn' };
    if (!reported || refreshNow) {
      refreshNow = false;
      reported = await fetchTemplateStatus(args.campaignId, submitted.templateId);
    }
    if (DECIDED.includes(reported.status)) return settleTemplate(args.campaignId, reported);
    reported = undefined;
    if (shouldContinueAsNew(undefined, (info) => info.historyLength > 1_000))
      await continueAsNew<WhatsappTemplateWorkflow>({ ...args, templateId: submitted.templateId });
  }
}
whatsappTemplateWorkflow satisfies WhatsappTemplateWorkflow;
