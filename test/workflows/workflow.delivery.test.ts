import { randomBytes } from 'node:crypto';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { createDeliveryActivities } from '../../services/deliveries/activities';
import type { DeliveryInput, DeliveryState } from '../../services/deliveries/deliveryTypes';
import { newId } from '../../db/ids';
import { setIntegration } from '../../services/agents/integrations';
import { SecretBox } from '../../services/platform/secretBox';
import { approve, decline, DeliveryWorkflow, deliveryWorkflowName, progress } from '../../workflows/contracts/delivery';
import { recordHistory, useWorkflowSuite } from '../support/helpers';

/**
 * The delivery workflow on the Temporal test environment with its real activities, Postgres and
 * the sandbox provider. RECORD_HISTORIES=1 saves the histories the replay test checks.
 */
describe('deliveryWorkflow on the Temporal test environment', () => {
  const taskQueue = 'delivery-unit';
  const box = new SecretBox(randomBytes(32));
  const suite = useWorkflowSuite(
    'wfdeliver',
    taskQueue,
    (db) =>
      createDeliveryActivities({ db, secretBox: box, baseUrl: 'http://localhost:3000/v1', fileLinkTtlSeconds: 3600 }),
    (db, team) =>
      setIntegration(db, box, { inboxDomain: 'inbox.localhost' }, team.teamId, team.agentId, 'email', {
        provider: 'sandbox',
        config: {},
        active: true,
      }).then(() => undefined),
  );

  let n = 0;
  async function setup(mode: 'auto' | 'manual', approvalTimeoutMs = 60_000): Promise<DeliveryInput> {
    const [contact] = await suite
      .db('contacts')
      .insert({
        id: newId('ct'),
        team_id: suite.team.teamId,
        name: 'Wf Client',
        email: `wf-client-${++n}-${Date.now()}@example.test`,
      })
      .returning('*');
    const [artifact] = await suite
      .db('artifacts')
      .insert({
        id: newId('art'),
        team_id: suite.team.teamId,
        title: `Proposal ${n}`,
        type: 'offer',
        status: 'ready',
        contact_id: contact.id,
      })
      .returning('*');
    const executionId = newId('wx');
    await suite.db('warp_executions').insert({
      id: executionId,
      team_id: suite.team.teamId,
      agent_id: suite.team.agentId,
      warp: 'artifact-deliver',
      status: mode === 'manual' ? 'pending_approval' : 'running',
      input: '{}',
      workflow_id: `delivery-${executionId}`,
    });
    return {
      executionId,
      teamId: suite.team.teamId,
      agentId: suite.team.agentId,
      channel: 'email',
      mode,
      approvalTimeoutMs,
      message: 'Hello from the workflow',
      subject: 'Your proposal',
      artifactIds: [artifact.id],
      recipients: [{ contactId: contact.id, address: contact.email }],
    };
  }
  const start = (input: DeliveryInput) =>
    suite.env.client.workflow.start<DeliveryWorkflow>(deliveryWorkflowName, {
      taskQueue,
      workflowId: `delivery-${input.executionId}`,
      args: [input],
    });

  async function waitForApproval(handle: Awaited<ReturnType<typeof start>>): Promise<DeliveryState> {
    for (let i = 0; i < 100; i++) {
      const state = await handle.query(progress);
      if (state.draft) return state;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('never waited for approval');
  }

  it('auto mode runs through: one message, a sent record, the artifact sent', async () => {
    const input = await setup('auto');
    const handle = await start(input);
    const result = await handle.result();
    expect(result.status).toBe('succeeded');
    expect(result.deliveries).toHaveLength(1);
    expect(result.deliveries[0]).toMatchObject({
      status: 'sent',
      subject: 'Your proposal',
      contactId: input.recipients[0].contactId,
    });
    expect(result.deliveries[0].message).toContain('Hello from the workflow');
    expect((await suite.db('artifacts').where({ id: input.artifactIds[0] }).first()).status).toBe('sent');
    expect((await handle.query(progress)).status).toBe('succeeded');
    recordHistory(suite.env, 'delivery-auto', handle.workflowId);
  });

  it('an approval that arrives before the draft is written waits for it, then applies its edits', async () => {
    const input = await setup('manual');
    const handle = await start(input);
    // At once, as a person who clicks the moment the API answered pending would.
    const draft = await handle.executeUpdate(approve, { args: [{ subject: 'Approved early' }] });
    expect(draft).toMatchObject({ subject: 'Approved early', message: 'Hello from the workflow' });
    const result = await handle.result();
    expect(result.status).toBe('succeeded');
    expect(result.deliveries[0].subject).toBe('Approved early');
  });

  it('manual mode waits; the approve Update applies edits; its validator refuses a second approval', async () => {
    const input = await setup('manual');
    const handle = await start(input);
    const waiting = await waitForApproval(handle);
    expect(waiting.status).toBe('pending_approval');
    expect((await suite.db('warp_executions').where({ id: input.executionId }).first()).status).toBe(
      'pending_approval',
    );
    const draft = await handle.executeUpdate(approve, { args: [{ message: 'Edited in approval' }] });
    expect(draft.message).toBe('Edited in approval');
    await expect(handle.executeUpdate(approve, { args: [{}] })).rejects.toBeInstanceOf(WorkflowUpdateFailedError);
    const result = await handle.result();
    expect(result.status).toBe('succeeded');
    expect(result.deliveries[0].message).toContain('Edited in approval');
    recordHistory(suite.env, 'delivery-manual-approved', handle.workflowId);
  });

  it('manual mode: the decline signal ends it declined, nothing sent', async () => {
    const input = await setup('manual');
    const handle = await start(input);
    await waitForApproval(handle);
    await handle.signal(decline, { reason: 'not now' });
    expect(await handle.result()).toEqual({ status: 'declined', deliveries: [] });
    const row = await suite.db('warp_executions').where({ id: input.executionId }).first();
    expect(row).toMatchObject({
      status: 'declined',
      error: { error: { code: 'declined', message: 'Declined: not now' } },
    });
    expect(await suite.db('deliveries').where({ execution_id: input.executionId })).toHaveLength(0);
    recordHistory(suite.env, 'delivery-declined', handle.workflowId);
  });

  it('manual mode: an approval that never comes expires', async () => {
    const input = await setup('manual', 1000);
    const handle = await start(input);
    expect(await handle.result()).toEqual({ status: 'expired', deliveries: [] });
    expect((await suite.db('warp_executions').where({ id: input.executionId }).first()).status).toBe('expired');
    recordHistory(suite.env, 'delivery-expired', handle.workflowId);
  });
});
