import { WorkflowFailedError, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import {
  approve,
  decline,
  DeliveryActivities,
  DeliveryInput,
  DeliveryWorkflow,
  deliveryWorkflowName,
  progress as deliveryProgress,
} from '../../workflows/contracts/delivery';
import type { ExecutionActivities } from '../../workflows/contracts/execution';
import { JobActivities, JobError, JobWorkflow, jobWorkflowName } from '../../workflows/contracts/job';
import {
  WarpActivities,
  WarpExecutionWorkflow,
  warpExecutionWorkflowName,
} from '../../workflows/contracts/warpExecution';
import { useWorkflowSuite } from '../support/helpers';

/**
 * The workflows' own logic with stubbed activities (plain functions on a worker of the Temporal
 * test environment): the approval gate's three endings and the job's failure path, without
 * Postgres or providers in the way. The full-stack runs are the other workflow.*.test.ts files.
 */
describe('workflow logic with stubbed activities', () => {
  const taskQueue = 'stubbed-unit';
  const recorded: { executionId: string; status: string; error?: unknown }[] = [];
  const sentBodies: string[] = [];
  const failedJobs: { jobId: string; error: JobError }[] = [];
  const completedJobs: string[] = [];

  const deliveryStubs: DeliveryActivities = {
    async draftDelivery(input) {
      return { subject: input.subject, message: input.message, links: '• Proposal: https://example.test/p' };
    },
    async sendDeliveryMessage(input) {
      sentBodies.push(input.body);
      return { contactId: input.recipient.contactId, status: 'sent', deliveryId: `dl_${input.recipient.contactId}` };
    },
    async recordSendFailure(input) {
      return { contactId: input.recipient.contactId, status: 'failed', deliveryId: 'dl_failed' };
    },
    async recordExecution(executionId, patch) {
      recorded.push({ executionId, status: patch.status, error: patch.error });
    },
    async completeDelivery(_input, outcomes) {
      return { status: outcomes.every((o) => o.status === 'sent') ? 'succeeded' : 'failed', deliveries: [] };
    },
  };
  const warpStubs: WarpActivities & ExecutionActivities = {
    recordExecution: deliveryStubs.recordExecution,
    async runApprovedWrite() {
      return 'succeeded';
    },
  };
  const jobStubs: JobActivities = {
    async markJobRunning() {},
    async completeJob(jobId) {
      completedJobs.push(jobId);
    },
    async failJob(jobId, error) {
      failedJobs.push({ jobId, error });
    },
    async countImportRows() {
      return 0;
    },
    async importContactsBatch() {
      return { imported: 0, duplicates: 0, failed: 0, errors: [], errorsTruncated: false };
    },
    // Too many contacts for one page: the export goes on as an activity, which fails.
    async exportJobInOnePage() {
      return null;
    },
    async exportContactsInOnePage() {
      return null;
    },
    async exportContacts() {
      throw ApplicationFailure.nonRetryable('The media store refused the file (disk full)', 'InvalidJobInput');
    },
    async ingestKnowledge() {
      throw new Error('not used');
    },
  };
  const suite = useWorkflowSuite('wfstub', taskQueue, () => ({ ...deliveryStubs, ...warpStubs, ...jobStubs }));

  let n = 0;
  const manualDelivery = (approvalTimeoutMs = 60_000): DeliveryInput => ({
    executionId: `wx_stub_delivery_${Date.now()}_${++n}`,
    teamId: 'team',
    agentId: 'agent',
    channel: 'email',
    mode: 'manual',
    approvalTimeoutMs,
    message: 'Here is the proposal',
    subject: 'Proposal',
    artifactIds: ['art_1'],
    recipients: [{ contactId: `ct_${n}`, address: `c${n}@example.test` }],
  });
  const startDelivery = (input: DeliveryInput) =>
    suite.env.client.workflow.start<DeliveryWorkflow>(deliveryWorkflowName, {
      taskQueue,
      workflowId: `delivery-${input.executionId}`,
      args: [input],
    });
  const statusesOf = (executionId: string) =>
    recorded.filter((r) => r.executionId === executionId).map((r) => r.status);

  it('approved with edits: the update answers the edited draft, and that is what is sent', async () => {
    const input = manualDelivery();
    const handle = await startDelivery(input);
    const draft = await handle.executeUpdate(approve, { args: [{ message: 'Here is the revised proposal' }] });
    expect(draft).toEqual({
      subject: 'Proposal',
      message: 'Here is the revised proposal',
      links: '• Proposal: https://example.test/p',
    });
    expect(await handle.result()).toEqual({ status: 'succeeded', deliveries: [] });
    expect(sentBodies).toContain('Here is the revised proposal\n\n• Proposal: https://example.test/p');
    expect(statusesOf(input.executionId)).toEqual(['pending_approval', 'running']);
    expect((await handle.query(deliveryProgress)).status).toBe('succeeded');
  });

  it('refuses an approval that would empty the message, and stays open for a valid one', async () => {
    const input = manualDelivery();
    const handle = await startDelivery(input);
    await expect(handle.executeUpdate(approve, { args: [{ message: '   ' }] })).rejects.toThrow(
      WorkflowUpdateFailedError,
    );
    expect((await handle.query(deliveryProgress)).status).toBe('pending_approval');
    await handle.executeUpdate(approve, { args: [{}] });
    expect((await handle.result()).status).toBe('succeeded');
  });

  it('declined: ends declined with the reason recorded, nothing sent', async () => {
    const input = manualDelivery();
    const sentBefore = sentBodies.length;
    const handle = await startDelivery(input);
    await handle.signal(decline, { reason: 'wrong client' });
    expect(await handle.result()).toEqual({ status: 'declined', deliveries: [] });
    expect(recorded.filter((r) => r.executionId === input.executionId).pop()).toEqual({
      executionId: input.executionId,
      status: 'declined',
      error: { error: { code: 'declined', message: 'Declined: wrong client' } },
    });
    expect(sentBodies).toHaveLength(sentBefore);
  });

  it('expired: nobody decides within the approval timeout (a durable timer), and a late approval is refused', async () => {
    const input = manualDelivery(1_000);
    const handle = await startDelivery(input);
    expect(await handle.result()).toEqual({ status: 'expired', deliveries: [] });
    expect(statusesOf(input.executionId)).toEqual(['pending_approval', 'expired']);
    expect(recorded.filter((r) => r.executionId === input.executionId).pop()?.error).toEqual({
      error: { code: 'approval_expired', message: 'Nobody approved the delivery in time' },
    });
    await expect(handle.executeUpdate(approve, { args: [{}] })).rejects.toThrow(WorkflowNotFoundError);
  });

  it('a sensitive write takes no edits: that approval is refused, a plain one runs the write', async () => {
    const executionId = `wx_stub_warp_${Date.now()}`;
    const handle = await suite.env.client.workflow.start<WarpExecutionWorkflow>(warpExecutionWorkflowName, {
      taskQueue,
      workflowId: `warp-${executionId}`,
      args: [{ executionId, warp: 'artifact-delete', approvalTimeoutMs: 60_000 }],
    });
    await expect(handle.executeUpdate(approve, { args: [{ subject: 'changed' }] })).rejects.toThrow(
      WorkflowUpdateFailedError,
    );
    expect(await handle.executeUpdate(approve, { args: [{}] })).toEqual({ status: 'running' });
    expect(await handle.result()).toEqual({ status: 'succeeded' });
    expect(statusesOf(executionId)).toEqual(['running']);
  });

  it('a job whose work fails for good is marked failed with the cause, never completed, and the workflow fails', async () => {
    const jobId = `job_stub_${Date.now()}`;
    const handle = await suite.env.client.workflow.start<JobWorkflow>(jobWorkflowName, {
      taskQueue,
      workflowId: `job-${jobId}`,
      args: [{ jobId, type: 'contacts.export', importBatchSize: 10 }],
    });
    await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    expect((await handle.describe()).status.name).toBe('FAILED');
    expect(failedJobs).toEqual([
      { jobId, error: { error: { code: 'job_failed', message: 'The media store refused the file (disk full)' } } },
    ]);
    expect(completedJobs).not.toContain(jobId);
  });
});
