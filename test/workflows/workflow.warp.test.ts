import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { createDeliveryActivities, createWarpActivities } from '../../services/deliveries/activities';
import { loadConfig } from '../../config';
import { createLogger } from '../../logger';
import { buildAppContext } from '../../services/platform/context';
import { newId } from '../../db/ids';
import { dedupeKey } from '../../services/deliveries/warpExecutions';
import type { SensitiveWarp } from '../../services/catalog/sensitiveWrites';
import { WarpExecutionInput, warpWorkflowId } from '../../services/deliveries/warps';
import {
  approve,
  decline,
  progress,
  WarpExecutionWorkflow,
  warpExecutionWorkflowName,
} from '../../workflows/contracts/warpExecution';
import { recordHistory, useWorkflowSuite } from '../support/helpers';

/**
 * The warp-execution workflow (a sensitive MCP write waiting for a person) on the Temporal test
 * environment, with its real activities and Postgres. RECORD_HISTORIES=1 saves the replay histories.
 */
describe('warpExecutionWorkflow on the Temporal test environment', () => {
  const taskQueue = 'warp-unit';
  const suite = useWorkflowSuite('wfwarp', taskQueue, (db) => {
    const appContext = buildAppContext(
      loadConfig({ ...process.env, LOG_LEVEL: 'silent' }),
      db,
      createLogger('silent', 'worker'),
    );
    return {
      ...createWarpActivities({ appContext }),
      ...createDeliveryActivities({
        db,
        secretBox: appContext.secretBox,
        baseUrl: appContext.config.baseUrl,
        fileLinkTtlSeconds: 60,
      }),
    };
  });

  async function pendingDelete(approvalTimeoutMs = 60_000): Promise<{ input: WarpExecutionInput; artifactId: string }> {
    const [artifact] = await suite
      .db('artifacts')
      .insert({ id: newId('art'), team_id: suite.team.teamId, title: 'Old draft', type: 'other', status: 'draft' })
      .returning('id');
    const executionId = newId('wx');
    const args = { artifactId: artifact.id };
    const warp: SensitiveWarp = 'artifact-delete';
    await suite.db('warp_executions').insert({
      id: executionId,
      team_id: suite.team.teamId,
      agent_id: suite.team.agentId,
      warp,
      status: 'pending_approval',
      input: JSON.stringify(args),
      workflow_id: warpWorkflowId(executionId),
      dedupe_key: dedupeKey(suite.team.agentId, warp, args),
    });
    return { input: { executionId, warp, approvalTimeoutMs }, artifactId: artifact.id };
  }
  const start = (input: WarpExecutionInput) =>
    suite.env.client.workflow.start<WarpExecutionWorkflow>(warpExecutionWorkflowName, {
      taskQueue,
      workflowId: warpWorkflowId(input.executionId),
      args: [input],
    });
  const execution = (id: string) => suite.db('warp_executions').where({ id }).first();

  it('waits for approve, then runs the write once and records succeeded with its result', async () => {
    const { input, artifactId } = await pendingDelete();
    const handle = await start(input);
    expect(await handle.query(progress)).toEqual({ status: 'pending_approval' });
    await expect(handle.executeUpdate(approve, { args: [{ message: 'edited' }] })).rejects.toThrow(
      WorkflowUpdateFailedError,
    );
    await handle.executeUpdate(approve, { args: [{}] });
    expect(await handle.result()).toEqual({ status: 'succeeded' });
    expect(await execution(input.executionId)).toMatchObject({
      status: 'succeeded',
      result: { deleted: true, artifactId },
    });
    expect(await suite.db('artifacts').where({ id: artifactId }).first()).toBeUndefined();
    // Settled and closed: a late approval finds no workflow (the API answers 409 for it).
    await expect(handle.executeUpdate(approve, { args: [{}] })).rejects.toThrow(WorkflowNotFoundError);
    recordHistory(suite.env, 'warp-approved', handle.workflowId);
  });

  it('decline ends it declined with the reason, and nothing is written', async () => {
    const { input, artifactId } = await pendingDelete();
    const handle = await start(input);
    await handle.signal(decline, { reason: 'keep it' });
    expect(await handle.result()).toEqual({ status: 'declined' });
    expect(await execution(input.executionId)).toMatchObject({
      status: 'declined',
      error: { error: { code: 'declined', message: 'Declined: keep it' } },
    });
    expect(await suite.db('artifacts').where({ id: artifactId }).first()).toBeDefined();
    recordHistory(suite.env, 'warp-declined', handle.workflowId);
  });

  it('nobody approves in time: expired, nothing written', async () => {
    const { input, artifactId } = await pendingDelete(1500);
    const handle = await start(input);
    expect(await handle.result()).toEqual({ status: 'expired' });
    expect(await execution(input.executionId)).toMatchObject({
      status: 'expired',
      error: { error: { code: 'approval_expired' } },
    });
    expect(await suite.db('artifacts').where({ id: artifactId }).first()).toBeDefined();
    recordHistory(suite.env, 'warp-expired', handle.workflowId);
  });

  it("a rule broken by the time of approval settles it failed with the service's error", async () => {
    const { input, artifactId } = await pendingDelete();
    const handle = await start(input);
    await suite.db('artifacts').where({ id: artifactId }).delete();
    await handle.executeUpdate(approve, { args: [{}] });
    expect(await handle.result()).toEqual({ status: 'failed' });
    expect(await execution(input.executionId)).toMatchObject({
      status: 'failed',
      error: { error: { code: 'not_found' } },
    });
  });
});
