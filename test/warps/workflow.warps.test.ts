import { createDeliveryActivities } from '../../services/deliveries/activities';
import { createCampaignContactActivities } from '../../services/campaigns/activities';
import { createWarpRunActivities } from '../../services/warps/activities';
import { loadConfig } from '../../config';
import { createLogger } from '../../logger';
import { setIntegration } from '../../services/agents/integrations';
import { createCampaign } from '../../services/campaigns/create';
import { createContact } from '../../services/contacts/contacts';
import type { Principal } from '../../services/identity/principal';
import { AppContext, buildAppContext } from '../../services/platform/context';
import { newId } from '../../db/ids';
import { campaignContactWorkflowId } from '../../services/campaigns/campaignContact';
import { privateWarpWorkflowId } from '../../services/warps/privateWarpRuns';
import {
  approve,
  campaignContactWorkflowName,
  CampaignContactWorkflow,
} from '../../workflows/contracts/campaignContact';
import { privateWarpWorkflowName, PrivateWarpWorkflow, progress } from '../../workflows/contracts/privateWarp';
import { recordHistory, useWorkflowSuite } from '../support/helpers';

/**
 * The private-warp and campaign-contact workflows on the Temporal test environment, with their real
 * activities and Postgres. RECORD_HISTORIES=1 saves the replay histories.
 */
describe('private-warp and campaign-contact workflows on the Temporal test environment', () => {
  const taskQueue = 'warps-unit';
  let appContext: AppContext;
  const suite = useWorkflowSuite('wfwarps', taskQueue, (db) => {
    appContext = buildAppContext(
      loadConfig({ ...process.env, LOG_LEVEL: 'silent' }),
      db,
      createLogger('silent', 'worker'),
    );
    return {
      ...createWarpRunActivities({ appContext }),
      ...createCampaignContactActivities({ appContext }),
      ...createDeliveryActivities({
        db,
        secretBox: appContext.secretBox,
        baseUrl: appContext.config.baseUrl,
        fileLinkTtlSeconds: 60,
      }),
    };
  });
  const execution = (id: string) => suite.db('warp_executions').where({ id }).first();
  const principal = (): Principal => ({
    kind: 'api_token',
    userId: suite.team.userId,
    credentialId: 'test',
    scopes: ['mcp:use'],
  });

  async function grantedContact(name: string) {
    const email = `${name}-${Date.now()}@example.test`;
    return createContact(suite.db, suite.team.teamId, { name, email, marketingConsent: 'granted' } as never);
  }

  it('interprets a private warp: a tool step, a wait, a branch, each tool call once under <executionId>:<stepKey>', async () => {
    const contact = await grantedContact('Pia');
    const warpId = `pw_${newId('wx').slice(3)}`;
    await suite.db('private_warps').insert({
      id: warpId,
      team_id: suite.team.teamId,
      name: 'tag-and-wait',
      inputs: JSON.stringify({ contactId: 'string' }),
      steps: JSON.stringify([
        {
          id: 'first',
          tool: 'set_contact_property',
          input: { contactId: '$.inputs.contactId', key: 'stage', value: 'one' },
        },
        { wait: '1s' },
        {
          if: { ref: '$.steps.first.properties.stage', equals: 'one' },
          then: [
            { tool: 'set_contact_property', input: { contactId: '$.inputs.contactId', key: 'stage', value: 'two' } },
          ],
          else: [
            { tool: 'set_contact_property', input: { contactId: '$.inputs.contactId', key: 'stage', value: 'never' } },
          ],
        },
      ]),
    });
    const executionId = newId('wx');
    await suite.db('warp_executions').insert({
      id: executionId,
      team_id: suite.team.teamId,
      agent_id: suite.team.agentId,
      warp: 'tag-and-wait',
      status: 'running',
      input: JSON.stringify({ privateWarpId: warpId, inputs: { contactId: contact.id } }),
      workflow_id: privateWarpWorkflowId(executionId),
    });
    const handle = await suite.env.client.workflow.start<PrivateWarpWorkflow>(privateWarpWorkflowName, {
      taskQueue,
      workflowId: privateWarpWorkflowId(executionId),
      args: [{ executionId }],
    });
    expect(await handle.result()).toEqual({ status: 'succeeded', step: null });
    expect(await handle.query(progress)).toEqual({ status: 'succeeded', step: null });
    recordHistory(suite.env, 'private-warp', handle.workflowId);
    expect((await execution(executionId)).status).toBe('succeeded');
    const row = await suite.db('contacts').where({ id: contact.id }).first('properties');
    expect(row.properties.stage).toBe('two');
    expect(
      await suite.db('private_warp_steps').where({ execution_id: executionId }).orderBy('id').select('id', 'status'),
    ).toEqual([
      { id: `${executionId}:0`, status: 'succeeded' },
      { id: `${executionId}:2.then.0`, status: 'succeeded' },
    ]);
  });

  it('sends a campaign to one contact after approval and a durable timer, once', async () => {
    await setIntegration(
      suite.db,
      appContext.secretBox,
      { inboxDomain: 'example.test' },
      suite.team.teamId,
      suite.team.agentId,
      'email',
      { provider: 'sandbox', config: {}, secrets: {} } as never,
    );
    const contact = await grantedContact('Ola');
    const team = { id: suite.team.teamId, slug: suite.team.slug, plan: 'free' };
    const campaign = await createCampaign(
      appContext,
      team,
      principal(),
      {
        name: 'One',
        channel: 'email',
        subject: 'Just you',
        content: 'Hello',
        contactIds: [contact.id],
        templateParams: {},
        aiParams: {},
      },
      suite.team.agentId,
    );
    const executionId = newId('wx');
    await suite.db('warp_executions').insert({
      id: executionId,
      team_id: suite.team.teamId,
      agent_id: suite.team.agentId,
      warp: 'svc-campaign-send-contact',
      status: 'pending_approval',
      input: JSON.stringify({ campaignId: campaign.id, email: contact.email, contactId: contact.id, delay: '1s' }),
      workflow_id: campaignContactWorkflowId(executionId),
    });
    const handle = await suite.env.client.workflow.start<CampaignContactWorkflow>(campaignContactWorkflowName, {
      taskQueue,
      workflowId: campaignContactWorkflowId(executionId),
      args: [{ executionId, waitsForApproval: true, approvalTimeoutMs: 60_000, delayMs: 1000 }],
    });
    await handle.executeUpdate(approve, { args: [{}] });
    expect(await handle.result()).toEqual({ status: 'succeeded' });
    recordHistory(suite.env, 'campaign-contact-approved', handle.workflowId);
    expect(await execution(executionId)).toMatchObject({
      status: 'succeeded',
      result: { sent: true, to: contact.email },
    });
    expect(await suite.db('outbox').where({ to_address: contact.email }).select('subject')).toEqual([
      { subject: 'Just you' },
    ]);
  });
});
