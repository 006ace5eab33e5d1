import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { failing, mcpClient, ok } from '../support/mcpHelpers';
import { sleep, useApiSuite } from '../support/helpers';

/**
 * The Automations app over the MCP SDK client: listed once installed; create, list, get, new
 * steps as a new version, enable/disable, a contact enrolled through `execute`
 * svc-automation-enroll, its enrollment listed and exited.
 */
describe('automation tools over MCP', () => {
  const suite = useApiSuite('mcpjourneys');
  let mcp: Client;
  beforeAll(async () => {
    mcp = await mcpClient(suite.server.ctx.config.mcpEndpoint, suite.team.token);
  });
  afterAll(async () => {
    await mcp?.close();
  });

  it('are offered with the app, and run a journey from creation to an exit', async () => {
    const names = async () => (await mcp.listTools()).tools.map((t) => t.name);
    expect(await names()).not.toContain('create_automation');
    await suite.api.call('PUT', '/apps/automations');
    expect(await names()).toEqual(
      expect.arrayContaining([
        'create_automation',
        'list_automations',
        'get_automation',
        'update_automation_steps',
        'set_automation_enabled',
        'list_enrollments',
        'exit_enrollment',
      ]),
    );

    const created = await ok(mcp, 'create_automation', {
      name: 'Follow up',
      trigger: { kind: 'inbound', source: 'mcp-leads' },
      steps: [{ type: 'wait', duration: '1d' }],
    });
    expect(created).toMatchObject({ name: 'Follow up', version: 1, enabled: true, agentId: suite.team.agentId });
    expect(
      await failing(mcp, 'create_automation', {
        name: 'Broken',
        trigger: { kind: 'inbound', source: 'mcp-leads' },
        steps: [{ type: 'branch', if: { conditions: [{ type: 'has_email' }] }, then: 0 }],
      }),
    ).toMatchObject({ code: 'invalid_automation', details: { issues: [{ path: 'steps.0.then' }] } });
    expect((await ok(mcp, 'list_automations', {})).data.map((a: any) => a.id)).toContain(created.id);
    expect(await ok(mcp, 'get_automation', { automationId: created.id })).toMatchObject({
      trigger: { kind: 'inbound', source: 'mcp-leads' },
    });

    // Enrolled through the warp the inbound hook runs, as an agent would with execute.
    const run = await ok(mcp, 'execute', {
      warp: 'svc-automation-enroll',
      inputs: { automationId: created.id, email: `mcp-${Date.now()}@example.test`, name: 'Mo Client' },
    });
    expect(run).toMatchObject({ status: 'succeeded', result: { enrolled: true, contactCreated: true } });
    const enrollmentId = run.result.enrollmentId;

    const updated = await ok(mcp, 'update_automation_steps', {
      automationId: created.id,
      steps: [{ type: 'wait', duration: '2d' }, { type: 'exit' }],
    });
    expect(updated).toMatchObject({ version: 2, steps: [{ duration: '2d' }, { type: 'exit' }] });
    expect(await ok(mcp, 'set_automation_enabled', { automationId: created.id, enabled: false })).toMatchObject({
      enabled: false,
    });
    expect(
      await failing(mcp, 'execute', {
        warp: 'svc-automation-enroll',
        inputs: { automationId: created.id, email: 'someone@example.test' },
      }),
    ).toMatchObject({ code: 'automation_disabled' });

    let listed: any;
    for (let i = 0; i < 50; i++) {
      listed = await ok(mcp, 'list_enrollments', { automationId: created.id, status: 'active' });
      if (listed.data.length) break;
      await sleep(100);
    }
    expect(listed.data).toEqual([expect.objectContaining({ id: enrollmentId, version: 1, status: 'active' })]);
    expect(await ok(mcp, 'exit_enrollment', { enrollmentId })).toMatchObject({
      status: 'exited',
      exitReason: 'exit_requested',
    });
    expect((await ok(mcp, 'list_enrollments', { automationId: created.id, status: 'active' })).data).toEqual([]);
    expect(await failing(mcp, 'exit_enrollment', { enrollmentId: 'enr_nope' })).toMatchObject({ code: 'not_found' });
  });
});
