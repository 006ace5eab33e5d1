import fs from 'node:fs';
import path from 'node:path';
import { startOptions } from '../../temporal/client';
import { BusinessIdKey, JobTypeKey, TeamSlugKey } from '../../temporal/searchAttributes';
import { campaignStart } from '../../workflows/contracts/campaign';
import { campaignContactStart } from '../../workflows/contracts/campaignContact';
import { cohortStart } from '../../workflows/contracts/cohort';
import { deliveryStart, type DeliveryInput } from '../../workflows/contracts/delivery';
import { hookRunStart } from '../../workflows/contracts/hookRun';
import { jobStart } from '../../workflows/contracts/job';
import { privateWarpStart } from '../../workflows/contracts/privateWarp';
import { roomStart } from '../../workflows/contracts/room';
import { AutomationIdKey, JourneyStepKey } from '../../workflows/contracts/searchAttributeKeys';
import type { AnyWorkflowStart, ArgsOf } from '../../workflows/contracts/start';
import { studioProduceStart } from '../../workflows/contracts/studioProduce';
import { warpExecutionStart } from '../../workflows/contracts/warpExecution';
import { webhookBatchStart } from '../../workflows/contracts/webhookBatch';
import { whatsappTemplateStart } from '../../workflows/contracts/whatsappTemplate';

/**
 * Each workflow's start is declared once in its contract (workflows/contracts/start.ts) and made
 * by temporal/client.ts: these are the ids and search attributes operators (and the Temporal UI's
 * saved queries) know, as they were written by hand at each start before.
 */
const team = { slug: 'acme' };
const options = <S extends AnyWorkflowStart>(start: S, args: ArgsOf<S>) =>
  startOptions(start, args, { team, staticSummary: 'summary' }, 'main-queue');
const attributes = (opts: ReturnType<typeof options>) =>
  Object.fromEntries(opts.typedSearchAttributes.map((pair) => [pair.key.name, pair.value]));
const delivery = { executionId: 'wx_1', teamId: 't', agentId: 'a', channel: 'email', recipients: [] };

describe('workflow starts', () => {
  it.each([
    [
      'jobWorkflow',
      options(jobStart, { jobId: 'job_1', type: 'contacts.export', importBatchSize: 5 }),
      'job-job_1',
      ['contacts.export', 'job_1'],
    ],
    [
      'deliveryWorkflow',
      options(deliveryStart, delivery as unknown as DeliveryInput),
      'delivery-wx_1',
      ['artifact-deliver', 'wx_1'],
    ],
    [
      'warpExecutionWorkflow',
      options(warpExecutionStart, { executionId: 'wx_2', warp: 'contact-delete', approvalTimeoutMs: 1 }),
      'warp-wx_2',
      ['contact-delete', 'wx_2'],
    ],
    [
      'privateWarpWorkflow',
      options(privateWarpStart, { executionId: 'wx_3' }),
      'private-warp-wx_3',
      ['private-warp', 'wx_3'],
    ],
    [
      'campaignContactWorkflow',
      options(campaignContactStart, { executionId: 'wx_4', waitsForApproval: false, approvalTimeoutMs: 1, delayMs: 0 }),
      'campaign-contact-wx_4',
      ['svc-campaign-send-contact', 'wx_4'],
    ],
    [
      'whatsappTemplateWorkflow',
      options(whatsappTemplateStart, { campaignId: 'cmp_1', refreshEveryMs: 1 }),
      'wa-template-cmp_1',
      ['whatsapp-template', 'cmp_1'],
    ],
    [
      'campaignWorkflow',
      options(campaignStart, {
        campaignId: 'cmp_2',
        teamId: 't',
        run: 3,
        scheduledAt: null,
        retry: false,
        batchSize: 1,
      }),
      'campaign-cmp_2-run-3',
      ['campaign', 'cmp_2'],
    ],
    [
      'studioProduceWorkflow',
      options(studioProduceStart, { productionId: 'ss_1:2' }),
      'studio-produce-ss_1:2',
      ['studio.produce', 'ss_1:2'],
    ],
    ['roomWorkflow', options(roomStart, { roomId: 'rm_1', teamSlug: 'acme' }), 'room-rm_1', ['agent.room', 'rm_1']],
    [
      'cohortWorkflow',
      options(cohortStart, { cohortId: 'coh_1', automationId: 'au_1', plan: [], step: 2, members: 1 }),
      'cohort-coh_1',
      ['automation.cohort', 'coh_1'],
    ],
    ['hookRunWorkflow', options(hookRunStart, { runId: 'hkr_1' }), 'hook-run-hkr_1', ['hook.run', 'hkr_1']],
    [
      'webhookBatchWorkflow',
      options(webhookBatchStart, { batchId: 'whb_1' }),
      'webhook-batch-whb_1',
      ['webhook.batch', 'whb_1'],
    ],
  ] as const)(
    '%s: its id, the task queue, its argument, and TeamSlug first',
    (_name, opts, id, [jobType, businessId]) => {
      expect(opts.workflowId).toBe(id);
      expect(opts.taskQueue).toBe('main-queue');
      expect(opts.args).toHaveLength(1);
      expect(opts.staticSummary).toBe('summary');
      expect(opts.typedSearchAttributes[0]).toEqual({ key: TeamSlugKey, value: 'acme' });
      expect(attributes(opts)).toMatchObject({
        [TeamSlugKey.name]: 'acme',
        [JobTypeKey.name]: jobType,
        [BusinessIdKey.name]: businessId,
      });
    },
  );

  it('a cohort also says its automation and its step; the policies are the declarations', () => {
    const cohort = options(cohortStart, { cohortId: 'coh_1', automationId: 'au_1', plan: [], step: 2, members: 1 });
    expect(attributes(cohort)).toEqual({
      TeamSlug: 'acme',
      JobType: 'automation.cohort',
      BusinessId: 'coh_1',
      [AutomationIdKey.name]: 'au_1',
      [JourneyStepKey.name]: 2,
    });
    expect(cohort.workflowIdReusePolicy).toBe('REJECT_DUPLICATE');
    expect(options(roomStart, { roomId: 'rm_1', teamSlug: 'acme' }).workflowIdConflictPolicy).toBe('USE_EXISTING');
    expect(options(whatsappTemplateStart, { campaignId: 'c', refreshEveryMs: 1 }).workflowIdConflictPolicy).toBe(
      'TERMINATE_EXISTING',
    );
    expect(options(jobStart, { jobId: 'j', type: 'contacts.import', importBatchSize: 1 })).not.toHaveProperty(
      'workflowIdReusePolicy',
    );
  });

  it('no start is written by hand: services, api and mcp start workflows through temporal/client.ts', () => {
    const root = path.resolve(__dirname, '../..');
    const sources = (dir: string): string[] =>
      fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) return sources(full);
        return entry.name.endsWith('.ts') ? [full] : [];
      });
    const handWritten = ['services', 'api', 'mcp', 'activities']
      .filter((dir) => fs.existsSync(path.join(root, dir)))
      .flatMap((dir) => sources(path.join(root, dir)))
      .filter((file) =>
        /workflow\.start\s*[<(]|typedSearchAttributes|WorkflowExecutionAlreadyStartedError/.test(
          fs.readFileSync(file, 'utf8'),
        ),
      )
      .map((file) => path.relative(root, file));
    expect(handWritten).toEqual([]);
  });
});
