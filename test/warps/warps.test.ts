import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { failing, mcpClient, ok } from '../support/mcpHelpers';
import { sleep, useApiSuite, waitForJob } from '../support/helpers';

/** Warps: every built-in warp through `execute` (MCP SDK client), approvals, private warps, `warp.run` jobs. */
describe('warps', () => {
  const suite = useApiSuite('warps');
  let mcp: Client;
  let n = 0;

  beforeAll(async () => {
    await suite.db('teams').where({ id: suite.team.teamId }).update({ plan: 'pro' });
    mcp = await mcpClient(suite.server.ctx.config.mcpEndpoint, suite.team.token);
    await suite.api.call('PUT', `/agents/${suite.team.agentId}/integrations/email`, { provider: 'sandbox' });
  });
  afterAll(async () => {
    await mcp?.close();
  });

  const setMode = async (mode: 'auto' | 'manual') =>
    expect((await suite.api.call('PATCH', `/agents/${suite.team.agentId}`, { mode })).body.mode).toBe(mode);
  const execute = (warp: string, inputs: Record<string, unknown> = {}) => ok(mcp, 'execute', { warp, inputs });
  async function contact() {
    const created = (
      await suite.api.post('/contacts', { name: `Wanda${++n} Warp`, email: `warp${n}-${Date.now()}@example.test` })
    ).body;
    await suite.api.call('PATCH', `/contacts/${created.id}`, { marketingConsent: 'granted' });
    return created as { id: string; email: string };
  }
  async function settled(executionId: string) {
    for (let i = 0; i < 200; i++) {
      const { executions } = await ok(mcp, 'check_warp_executions', { executionIds: [executionId] });
      if (!['pending_approval', 'running'].includes(executions[0].status)) return executions[0];
      await sleep(150);
    }
    throw new Error(`execution ${executionId} did not settle`);
  }
  const sentTo = async (email: string) =>
    (await suite.db('outbox').where({ to_address: email }).select('subject', 'body')) as { subject: string }[];

  it('runs every artifact warp by name, with real effects, each run a warp execution', async () => {
    const c = await contact();
    const created = await execute('artifact-create', { title: 'Proposal', type: 'offer', contactId: c.id });
    expect(created).toMatchObject({
      status: 'succeeded',
      warp: 'artifact-create',
      executionId: expect.stringMatching(/^wx_/),
    });
    const artifactId = created.result.artifact.id;
    expect((await suite.api.get(`/artifacts/${artifactId}`)).body).toMatchObject({
      title: 'Proposal',
      status: 'draft',
    });

    expect((await execute('artifact-list', { ids: [artifactId] })).result.data.map((a: any) => a.id)).toEqual([
      artifactId,
    ]);
    expect((await execute('artifact-list', { ids: artifactId })).result.data).toHaveLength(1);
    expect((await execute('artifact-get', { artifactId })).result.artifact.title).toBe('Proposal');
    expect((await execute('artifact-update', { artifactId, status: 'ready' })).result.artifact.status).toBe('ready');

    const delivered = await execute('artifact-deliver', {
      artifactIds: [artifactId],
      message: 'Here is the proposal.',
      integration: 'email',
    });
    expect(delivered).toMatchObject({ warp: 'artifact-deliver', executionId: expect.stringMatching(/^wx_/) });
    expect(await settled(delivered.executionId)).toMatchObject({ status: 'succeeded' });
    expect((await suite.api.get(`/artifacts/${artifactId}`)).body.status).toBe('sent');
    expect(await sentTo(c.email)).toHaveLength(1);

    const doomed = (await execute('artifact-create', { title: 'Old' })).result.artifact.id;
    expect((await execute('artifact-delete', { artifactId: doomed })).result).toEqual({
      deleted: true,
      artifactId: doomed,
    });
    expect((await suite.api.get(`/artifacts/${doomed}`)).status).toBe(404);

    // check_warp_executions reports the inline runs too.
    const { executions } = await ok(mcp, 'check_warp_executions', { executionIds: [created.executionId] });
    expect(executions[0]).toMatchObject({
      warp: 'artifact-create',
      status: 'succeeded',
      result: { artifact: { id: artifactId } },
    });
  });

  it('runs every campaign warp: create, preview, list, stats, send, delete, and a delayed send to one contact (once)', async () => {
    const c = await contact();
    const campaign = (
      await execute('svc-campaign-create', {
        name: 'Spring news',
        channel: 'email',
        subject: 'Spring',
        content: 'Hello {{first_name}}',
        templateParams: { first_name: 'firstName' },
        contactIds: [c.id],
      })
    ).result.campaign;
    expect(campaign).toMatchObject({ status: 'draft' });
    expect((await execute('svc-campaign-audience-preview', { campaignId: campaign.id })).result).toMatchObject({
      sendable: 1,
    });
    expect((await execute('svc-campaign-list')).result.data.map((x: any) => x.id)).toContain(campaign.id);
    expect((await execute('svc-campaign-stats', { campaignId: campaign.id })).result).toMatchObject({
      status: 'draft',
    });

    // To one contact, after a short durable timer: sent once.
    const single = await execute('svc-campaign-send-contact', { campaignId: campaign.id, email: c.email, delay: '2s' });
    expect(single).toMatchObject({ status: 'running', warp: 'svc-campaign-send-contact', delay: '2s' });
    expect(await sentTo(c.email)).toHaveLength(0);
    expect(await settled(single.executionId)).toMatchObject({
      status: 'succeeded',
      result: { sent: true, to: c.email },
    });
    const mail = await sentTo(c.email);
    expect(mail).toHaveLength(1);
    expect(mail[0].subject).toBe('Spring');
    expect(
      await suite
        .db('outbound_messages')
        .where({ idempotency_key: `${campaign.id}:${c.id}:contact-${single.executionId}` }),
    ).toHaveLength(1);

    const sent = await execute('svc-campaign-send', { campaignId: campaign.id });
    expect(sent.result.campaign.status).toMatch(/sending|completed/);
    for (let i = 0; i < 100 && (await suite.api.get(`/campaigns/${campaign.id}`)).body.status !== 'completed'; i++)
      await sleep(150);
    expect(await sentTo(c.email)).toHaveLength(2);

    const other = (
      await execute('svc-campaign-create', {
        name: 'Drop me',
        channel: 'email',
        subject: 'x',
        content: 'y',
        contactIds: [c.id],
      })
    ).result.campaign;
    await execute('svc-campaign-delete', { campaignId: other.id });
    expect((await suite.api.get(`/campaigns/${other.id}`)).status).toBe(404);

    expect(
      await failing(mcp, 'execute', {
        warp: 'svc-campaign-send-contact',
        inputs: { campaignId: campaign.id, email: 'nobody@example.test' },
      }),
    ).toMatchObject({ code: 'unknown_contact' });
  });

  it('answers clearly for an unknown warp, bad inputs and svc-automation-enroll', async () => {
    const unknown = await failing(mcp, 'execute', { warp: 'no-such-warp' });
    expect(unknown).toMatchObject({ code: 'unknown_warp' });
    expect(unknown.details.builtIn).toEqual(expect.arrayContaining(['artifact-create', 'svc-campaign-send-contact']));
    const bad = await failing(mcp, 'execute', { warp: 'artifact-create', inputs: { type: 'nonsense' } });
    expect(bad).toMatchObject({ code: 'validation_error' });
    expect(bad.details.issues.map((i: any) => i.path)).toEqual(expect.arrayContaining(['title', 'type']));
    expect(
      await failing(mcp, 'execute', {
        warp: 'svc-campaign-send-contact',
        inputs: { campaignId: 'cmp_x', email: 'a@b.test', delay: '2 weeks' },
      }),
    ).toMatchObject({ code: 'validation_error' });
    // svc-automation-enroll names its automation (test/automations runs it for real).
    expect(
      await failing(mcp, 'execute', { warp: 'svc-automation-enroll', inputs: { contactId: 'ct_1' } }),
    ).toMatchObject({ code: 'validation_error', details: { issues: [{ path: 'automationId' }] } });
    expect(
      await failing(mcp, 'execute', {
        warp: 'svc-automation-enroll',
        inputs: { automationId: 'au_nope', email: 'a@b.test' },
      }),
    ).toMatchObject({ code: 'unknown_automation' });

    const http = await suite.api.post('/warps/no-such-warp/execute', { inputs: {} });
    expect(http.status).toBe(404);
    expect(http.body.error.code).toBe('unknown_warp');
    const enroll = await suite.api.post('/warps/svc-automation-enroll/execute', {
      inputs: { automationId: 'au_nope', email: 'a@b.test' },
    });
    expect([enroll.status, enroll.body.error.code]).toEqual([422, 'unknown_automation']);
  });

  it('manual mode: a sensitive warp answers pending, a person approves, it runs; a send to one contact waits too', async () => {
    const c = await contact();
    const artifactId = (await execute('artifact-create', { title: 'Secret plan' })).result.artifact.id;
    const campaignId = (
      await execute('svc-campaign-create', {
        name: 'Solo',
        channel: 'email',
        subject: 'Solo',
        content: 'Hi',
        contactIds: [c.id],
      })
    ).result.campaign.id;
    await setMode('manual');
    try {
      const pending = await execute('artifact-delete', { artifactId });
      expect(pending).toMatchObject({ pending: true, status: 'pending_approval', warp: 'artifact-delete' });
      expect((await suite.api.get(`/artifacts/${artifactId}`)).status).toBe(200);
      expect((await suite.api.post(`/warp-executions/${pending.executionId}/approve`, {})).status).toBe(200);
      expect(await settled(pending.executionId)).toMatchObject({ status: 'succeeded' });
      expect((await suite.api.get(`/artifacts/${artifactId}`)).status).toBe(404);

      const single = await execute('svc-campaign-send-contact', { campaignId, email: c.email });
      expect(single).toMatchObject({ pending: true, status: 'pending_approval' });
      await sleep(500);
      expect(await sentTo(c.email)).toHaveLength(0);
      expect((await suite.api.post(`/warp-executions/${single.executionId}/approve`, {})).status).toBe(200);
      expect(await settled(single.executionId)).toMatchObject({ status: 'succeeded' });
      expect(await sentTo(c.email)).toHaveLength(1);

      // Over HTTP too: 202 with Location.
      const http = await suite.api.post('/warps/artifact-delete/execute', { inputs: { artifactId: 'art_whatever' } });
      expect(http.status).toBe(202);
      expect(http.body).toMatchObject({ pending: true });
      await suite.api.post(`/warp-executions/${http.body.executionId}/decline`, {});
    } finally {
      await setMode('auto');
    }
  });

  it('runs a private warp with a tool step, a wait and a branch, as the workflow private-warp-<executionId>', async () => {
    const c = await contact();
    const created = await ok(mcp, 'create_private_warp', {
      name: 'welcome-client',
      description: 'Prepares a welcome pack',
      inputs: { contactId: 'string', title: 'string' },
      steps: [
        { id: 'pack', tool: 'artifact-create', input: { title: '$.inputs.title', contactId: '$.inputs.contactId' } },
        { wait: '1s' },
        {
          if: { ref: '$.steps.pack.artifact.status', equals: 'draft' },
          then: [{ tool: 'artifact-update', input: { artifactId: '$.steps.pack.artifact.id', status: 'ready' } }],
          else: [
            { tool: 'set_contact_property', input: { contactId: '$.inputs.contactId', key: 'branch', value: 'else' } },
          ],
        },
        { tool: 'set_contact_property', input: { contactId: '$.inputs.contactId', key: 'welcomed', value: true } },
      ],
    });
    expect(created).toMatchObject({ id: expect.stringMatching(/^pw_/), name: 'welcome-client' });
    expect((await ok(mcp, 'list_private_warps')).data.map((w: any) => w.name)).toContain('welcome-client');
    expect((await suite.api.get('/warps/private')).body.data.map((w: any) => w.name)).toContain('welcome-client');

    expect(await failing(mcp, 'execute', { warp: 'welcome-client', inputs: { contactId: c.id } })).toMatchObject({
      code: 'validation_error',
    });
    const run = await execute('welcome-client', { contactId: c.id, title: 'Welcome pack' });
    expect(run).toMatchObject({ status: 'running', warp: 'welcome-client' });
    const done = await settled(run.executionId);
    expect(done).toMatchObject({ status: 'succeeded' });
    const artifactId = done.result.steps.pack.artifact.id;
    expect((await suite.api.get(`/artifacts/${artifactId}`)).body).toMatchObject({
      title: 'Welcome pack',
      status: 'ready',
    });
    const props = (await suite.api.get(`/contacts/${c.id}`)).body.properties;
    expect(props).toMatchObject({ welcomed: true });
    expect(props.branch).toBeUndefined();
    const steps = await suite
      .db('private_warp_steps')
      .where({ execution_id: run.executionId })
      .orderBy('id')
      .pluck('id');
    expect(steps).toEqual([`${run.executionId}:0`, `${run.executionId}:2.then.0`, `${run.executionId}:3`]);
    const wf = await suite.server.ctx.temporal.call((client) =>
      client.workflow.getHandle(`private-warp-${run.executionId}`).describe(),
    );
    expect(wf.status.name).toBe('COMPLETED');

    // Over HTTP, a private warp answers 202 and runs the same way.
    const http = await suite.api.post('/warps/welcome-client/execute', { inputs: { contactId: c.id, title: 'Again' } });
    expect(http.status).toBe(202);
    expect(await settled(http.body.executionId)).toMatchObject({ status: 'succeeded' });
  });

  it('refuses an invalid private warp at creation: unknown tool, bad references, bad wait, a taken name', async () => {
    const base = { name: 'broken', inputs: { contactId: 'string' } };
    const unknownTool = await failing(mcp, 'create_private_warp', { ...base, steps: [{ tool: 'launch_rocket' }] });
    expect(unknownTool).toMatchObject({ code: 'invalid_private_warp' });
    expect(unknownTool.details.issues[0]).toMatchObject({ path: 'steps.0.tool' });
    expect(
      await failing(mcp, 'create_private_warp', {
        ...base,
        steps: [{ tool: 'artifact-get', input: { artifactId: '$.inputs.nope' } }],
      }),
    ).toMatchObject({ code: 'invalid_private_warp', message: expect.stringContaining('nope') });
    expect(
      await failing(mcp, 'create_private_warp', {
        ...base,
        steps: [
          { tool: 'artifact-get', input: { artifactId: '$.steps.later.id' } },
          { id: 'later', tool: 'artifact-list' },
        ],
      }),
    ).toMatchObject({ code: 'invalid_private_warp' });
    expect(
      await failing(mcp, 'create_private_warp', {
        ...base,
        steps: [{ tool: 'artifact-get', input: { artifactId: '$.input.contactId' } }],
      }),
    ).toMatchObject({ code: 'invalid_private_warp' });
    expect(
      await failing(mcp, 'create_private_warp', { ...base, steps: [{ tool: 'artifact-get', input: {} }] }),
    ).toMatchObject({
      code: 'invalid_private_warp',
    });
    expect(await failing(mcp, 'create_private_warp', { ...base, steps: [{ wait: '10 minutes' }] })).toMatchObject({
      code: 'validation_error',
    });
    expect(await failing(mcp, 'create_private_warp', { ...base, steps: [{ tool: 'execute' }] })).toMatchObject({
      code: 'invalid_private_warp',
    });
    const http = await suite.api.post('/warps/private', { ...base, steps: [{ tool: 'launch_rocket' }] });
    expect([http.status, http.body.error.code]).toEqual([422, 'invalid_private_warp']);
    expect(
      (await suite.api.post('/warps/private', { ...base, name: 'artifact-create', steps: [{ wait: '1s' }] })).status,
    ).toBe(409);
    await ok(mcp, 'create_private_warp', { ...base, name: 'twice', steps: [{ wait: '1s' }] });
    expect((await suite.api.post('/warps/private', { ...base, name: 'twice', steps: [{ wait: '1s' }] })).status).toBe(
      409,
    );
  });

  it('runs a warp as a warp.run job, its answer in the job result', async () => {
    const accepted = await suite.api.post('/jobs', {
      type: 'warp.run',
      input: { warp: 'artifact-create', inputs: { title: 'By job' } },
    });
    expect(accepted.status).toBe(202);
    const job = await waitForJob(suite.api, accepted.body.jobId);
    expect(job).toMatchObject({ status: 'succeeded', result: { warp: 'artifact-create', status: 'succeeded' } });
    expect((await suite.api.get(`/artifacts/${job.result.result.artifact.id}`)).body.title).toBe('By job');

    const unknown = await suite.api.post('/jobs', { type: 'warp.run', input: { warp: 'nope' } });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'unknown_warp']);
    const bad = await suite.api.post('/jobs', { type: 'warp.run', input: { warp: 'artifact-create', inputs: {} } });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'validation_error']);
    const failed = await suite.api.post('/jobs', {
      type: 'warp.run',
      input: { warp: 'artifact-get', inputs: { artifactId: 'art_gone' } },
    });
    expect(await waitForJob(suite.api, failed.body.jobId)).toMatchObject({ status: 'failed' });
  });
});
