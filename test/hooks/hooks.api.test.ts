import { upsertAutomationHook } from '../../services/hooks/systemHooks';
import { FakeWebhookReceiver } from '../fakes/webhookReceiver';
import { TeamSlugKey } from '../../temporal/searchAttributes';
import { hookRunWorkflowId } from '../../workflows/contracts/hookRun';
import { apiClient, newTeam, sleep, temporalClient, useApiSuite } from '../support/helpers';

/**
 * Hooks over HTTP with the real worker: CRUD and its rules, AGENT_AUTH_KEYs, inbound hooks with
 * replayed deliveries, web hooks delivered signed, and the lifecycle types (session.start, a
 * permission.request approved by signed link, recorded events).
 */
describe('hooks over HTTP', () => {
  const suite = useApiSuite('hooks');
  let receiver: FakeWebhookReceiver;
  let key: string;
  beforeAll(async () => {
    receiver = await new FakeWebhookReceiver().start();
    const created = await suite.api.post(`/agents/${suite.team.agentId}/auth-keys`);
    expect(created.status).toBe(201);
    key = created.body.key;
  });
  afterAll(async () => {
    await receiver?.stop();
  });

  const rules = () => `/agents/${suite.team.agentId}/hook-rules`;
  const hooksUrl = (query = '') => `${suite.server.baseUrl}/agents/${suite.team.agentId}/hooks${query}`;
  const post = async (url: string, body: unknown, headers: Record<string, string> = {}, bearer = key) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };
  const get = async (url: string, bearer = key) => {
    const res = await fetch(url, { headers: { authorization: `Bearer ${bearer}` } });
    return { status: res.status, body: (await res.json()) as any };
  };
  let n = 0;
  const contact = async () =>
    (await suite.api.post('/contacts', { name: `Hook ${++n}`, email: `hook${n}-${Date.now()}@example.test` })).body;

  it('AGENT_AUTH_KEYs: shown once, listed by prefix, stored hashed; a revoked or wrong key is 401', async () => {
    const second = await suite.api.post(`/agents/${suite.team.agentId}/auth-keys`);
    expect(second.body).toMatchObject({ key: expect.stringMatching(/^ak_/), prefix: second.body.key.slice(0, 11) });
    const listed = await suite.api.get(`/agents/${suite.team.agentId}/auth-keys`);
    expect(listed.body.data.map((k: any) => k.id)).toEqual(expect.arrayContaining([second.body.id]));
    expect(JSON.stringify(listed.body)).not.toContain(second.body.key);
    const stored = await suite.db('agent_auth_keys').where({ id: second.body.id }).first();
    expect(stored.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(stored)).not.toContain(second.body.key);

    const start = { type: 'session.start' };
    expect((await post(hooksUrl(), start, {}, second.body.key)).status).toBe(200);
    expect(
      (await suite.api.get(`/agents/${suite.team.agentId}/auth-keys`)).body.data.find(
        (k: any) => k.id === second.body.id,
      ).lastUsedAt,
    ).not.toBeNull();
    // Rotation: the new key works, the old one is revoked.
    expect((await suite.api.call('DELETE', `/agents/${suite.team.agentId}/auth-keys/${second.body.id}`)).status).toBe(
      204,
    );
    const revoked = await post(hooksUrl(), start, {}, second.body.key);
    expect(revoked.status).toBe(401);
    expect(revoked.body.error.code).toBe('unauthorized');
    expect((await post(hooksUrl(), start, {}, 'ak_wrongwrongwrongwrongwrongwrong')).status).toBe(401);
    expect((await post(hooksUrl(), start, {}, suite.team.token)).status).toBe(401);
    const unknownAgent = await post(`${suite.server.baseUrl}/agents/00000000-0000-4000-8000-000000000000/hooks`, start);
    expect(unknownAgent.status).toBe(404);
  });

  it('create checks the source rules, the warp and its input names; list, toggle, delete', async () => {
    const bad = async (body: unknown, status: number, code: string) => {
      const res = await suite.api.post(rules(), body);
      expect({ status: res.status, code: res.body.error?.code }).toEqual({ status, code });
      return res.body.error;
    };
    await bad({ source: 'internal', event: 'contact.created' }, 400, 'validation_error');
    await bad({ source: 'internal', event: 'no.such', warp: 'artifact-list' }, 400, 'validation_error');
    await bad({ source: 'web', event: 'contact.created', url: receiver.url('/x') }, 400, 'validation_error');
    await bad({ source: 'inbound', event: 'Bad Source', warp: 'artifact-list' }, 400, 'validation_error');
    await bad({ source: 'inbound', event: 'shop', warp: 'no-such-warp' }, 404, 'unknown_warp');
    await bad(
      { source: 'inbound', event: 'shop', warp: 'artifact-create', inputs: { type: 'invoice' } },
      400,
      'validation_error',
    );
    const input = await bad(
      { source: 'inbound', event: 'shop', warp: 'artifact-create', mapping: { colour: '$.x' } },
      422,
      'unknown_warp_input',
    );
    expect(input.details.unknown).toEqual(['colour']);
    await bad(
      { source: 'inbound', event: 'shop', warp: 'artifact-create', mapping: { title: 'x.y' } },
      400,
      'validation_error',
    );

    const created = await suite.api.post(rules(), {
      source: 'internal',
      event: 'contact.updated',
      warp: 'artifact-list',
      enabled: false,
    });
    expect(created.status).toBe(201);
    expect(created.body.hook).toMatchObject({ source: 'internal', enabled: false, systemOwned: false });
    const toggled = await suite.api.call('PATCH', `${rules()}/${created.body.hook.id}`, { enabled: true });
    expect(toggled.body.enabled).toBe(true);
    expect((await suite.api.get(`${rules()}?source=internal`)).body.data.map((h: any) => h.id)).toContain(
      created.body.hook.id,
    );
    expect((await suite.api.call('DELETE', `${rules()}/${created.body.hook.id}`)).status).toBe(204);
    expect((await suite.api.get(`${rules()}/${created.body.hook.id}`)).status).toBe(404);

    // An automation's hook is listed but follows its automation.
    const { hookId } = await upsertAutomationHook(suite.db, {
      teamId: suite.team.teamId,
      agentId: suite.team.agentId,
      source: 'inbound',
      event: 'leads',
      automationId: `auto_${Date.now()}`,
      mapping: { email: '$.email' },
    });
    const system = (await suite.api.get(rules())).body.data.find((h: any) => h.id === hookId);
    expect(system).toMatchObject({
      systemOwned: true,
      warp: 'svc-automation-enroll',
      inputs: { automationId: expect.any(String) },
    });
    expect((await suite.api.call('PATCH', `${rules()}/${hookId}`, { enabled: false })).body.error.code).toBe(
      'system_owned_hook',
    );
    expect((await suite.api.call('DELETE', `${rules()}/${hookId}`)).body.error.code).toBe('system_owned_hook');
    await suite.db('hooks').where({ id: hookId }).delete();
  });

  it('inbound: two hooks on one source both run; the same webhook-id POSTed three times runs each once', async () => {
    const who = await contact();
    const hookFor = async (type: string) =>
      (
        await suite.api.post(rules(), {
          source: 'inbound',
          event: 'orders',
          warp: 'artifact-create',
          inputs: { type },
          mapping: { title: '$.order.title', contactId: '$.order.customer.id' },
        })
      ).body.hook;
    const [agreement, offer] = [await hookFor('agreement'), await hookFor('offer')];
    const payload = { order: { title: `Order ${Date.now()}`, customer: { id: who.id } } };
    const answers = [];
    for (let i = 0; i < 3; i++)
      answers.push(await post(hooksUrl('?source=orders'), payload, { 'webhook-id': 'msg_order_1' }));
    for (const a of answers) {
      expect(a.status).toBe(202);
      expect(a.body.runs.map((r: any) => r.hookId).sort()).toEqual([agreement.id, offer.id].sort());
    }
    expect(answers[0].body.runs).toEqual([
      expect.objectContaining({ state: 'succeeded', executionId: expect.any(String) }),
      expect.objectContaining({ state: 'succeeded', executionId: expect.any(String) }),
    ]);
    expect(answers[2].body.runs.map((r: any) => r.executionId)).toEqual(
      answers[0].body.runs.map((r: any) => r.executionId),
    );
    await sleep(500);
    const made = await suite.db('artifacts').where({ team_id: suite.team.teamId, contact_id: who.id });
    expect(made.map((a) => a.type).sort()).toEqual(['agreement', 'offer']);
    expect(made.every((a) => a.title === payload.order.title)).toBe(true);
    // Each run is a warp execution, as check_warp_executions reports it.
    const execution = await suite.api.get(`/warp-executions/${answers[0].body.runs[0].executionId}`);
    expect(execution.body).toMatchObject({ warp: 'artifact-create', status: 'succeeded' });
    // Every workflow carries its team: the runs' too.
    const runIds: string[] = await suite.db('hook_runs').whereIn('hook_id', [agreement.id, offer.id]).pluck('id');
    expect(runIds).toHaveLength(2);
    const client = await temporalClient();
    for (const runId of runIds) {
      const { typedSearchAttributes } = await client.workflow.getHandle(hookRunWorkflowId(runId)).describe();
      expect(typedSearchAttributes.get(TeamSlugKey)).toBe(suite.team.slug);
    }
    await client.connection.close();

    // A new delivery id runs them again; no matching hook answers no runs; a body that is not JSON is 400.
    const other = await post(hooksUrl('?source=orders'), payload, { 'idempotency-key': 'another' });
    expect(other.body.runs.map((r: any) => r.executionId)).not.toEqual(
      answers[0].body.runs.map((r: any) => r.executionId),
    );
    expect((await post(hooksUrl('?source=nobody'), payload)).body).toMatchObject({ source: 'nobody', runs: [] });
    const notJson = await post(hooksUrl('?source=orders'), 'not json{');
    expect(notJson.status).toBe(400);
    expect(notJson.body.error).toMatchObject({ code: 'validation_error', message: expect.stringContaining('JSON') });
  });

  it('web: the agent’s user.message is POSTed to the hook’s URL, signed per Standard Webhooks', async () => {
    const created = await suite.api.post(rules(), {
      source: 'web',
      event: 'user.message',
      url: receiver.url('/web-hook'),
    });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_/);
    receiver.setSecret('/web-hook', created.body.secret);
    // The hook's endpoint is its own: not in the team's endpoint list.
    expect((await suite.api.get('/webhooks/endpoints')).body.data.map((e: any) => e.url)).not.toContain(
      receiver.url('/web-hook'),
    );
    const said = await suite.api.post(`/agents/${suite.team.agentId}/messages`, {
      message: 'Hello hooks',
      waitSeconds: 1,
    });
    expect([200, 202]).toContain(said.status);
    await receiver.waitFor(() => receiver.forPath('/web-hook').length >= 1, 30_000);
    const [got] = receiver.forPath('/web-hook');
    expect(got).toMatchObject({ type: 'user.message', data: { agentId: suite.team.agentId, content: 'Hello hooks' } });
  });

  it('session.start answers the character, top memories and skills', async () => {
    await suite.api.call('PUT', `/agents/${suite.team.agentId}/character`, {
      persona: 'A careful studio manager',
      instructions: 'Answer in one paragraph',
    });
    await suite.api.post(`/agents/${suite.team.agentId}/memories`, {
      content: 'The client prefers blue logos',
      importance: 5,
    });
    await suite.api.post(`/agents/${suite.team.agentId}/skills`, {
      name: 'quote-writing',
      description: 'Writing a quote for a client',
      instructions: 'List items, then the total',
    });
    const res = await post(hooksUrl(), { type: 'session.start', sessionId: 's1' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      type: 'session.start',
      agent: { id: suite.team.agentId },
      character: { persona: 'A careful studio manager', instructions: 'Answer in one paragraph' },
    });
    expect(res.body.memories.map((m: any) => m.content)).toContain('The client prefers blue logos');
    expect(res.body.skills.map((s: any) => s.name)).toContain('quote-writing');
  });

  it('permission.request: pending after the long poll, approved by a person through the signed link', async () => {
    const asked = await post(hooksUrl('?wait=1'), {
      type: 'permission.request',
      tool: 'Bash',
      input: { command: 'rm -rf build' },
      requestId: 'req-1',
    });
    expect(asked.status).toBe(202);
    expect(asked.body).toMatchObject({
      decision: 'pending',
      requestId: 'req-1',
      executionId: expect.stringMatching(/^wx_/),
    });
    expect(asked.headers.get('location')).toBe(asked.body.pollUrl);
    // The same approval people use: in the inbox, with a signed link.
    const inbox = await suite.api.get('/warp-executions?status=pending_approval');
    expect(inbox.body.data.map((e: any) => e.id)).toContain(asked.body.executionId);
    const link = await suite.api.post(`/warp-executions/${asked.body.executionId}/approval-link`);
    expect(link.status).toBe(201);
    const page = await fetch(link.body.url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Bash');
    const approve = await fetch(link.body.url, { method: 'POST', body: new URLSearchParams({ decision: 'approve' }) });
    expect(approve.status).toBe(200);

    const polled = await get(`${asked.body.pollUrl}?wait=10`);
    expect(polled).toMatchObject({ status: 200, body: { decision: 'approved', executionId: asked.body.executionId } });
    // The same requestId answers the same decision, opening nothing new.
    const again = await post(hooksUrl('?wait=0'), { type: 'permission.request', tool: 'Bash', requestId: 'req-1' });
    expect(again).toMatchObject({ status: 200, body: { decision: 'approved', executionId: asked.body.executionId } });
    // Another agent's key cannot read it.
    expect((await get(asked.body.pollUrl, 'ak_wrongwrongwrongwrongwrongwrong')).status).toBe(401);
  });

  it("permission.request: a poll waiting when a person approves wakes with the decision; another team's real key reads nothing", async () => {
    const asked = await post(hooksUrl('?wait=0'), { type: 'permission.request', tool: 'Edit', requestId: 'req-wake' });
    expect(asked.status).toBe(202);
    const started = Date.now();
    const waiting = get(`${asked.body.pollUrl}?wait=20`);
    await sleep(500);
    expect((await suite.api.post(`/warp-executions/${asked.body.executionId}/approve`, {})).status).toBe(200);
    expect(await waiting).toMatchObject({
      status: 200,
      body: { decision: 'approved', executionId: asked.body.executionId },
    });
    // Woken by the decision, not by the end of its 20 s wait.
    expect(Date.now() - started).toBeLessThan(10_000);

    const other = await newTeam(suite.db, 'hooks-other');
    const theirKey = (await apiClient(suite.server.baseUrl, other).post(`/agents/${other.agentId}/auth-keys`)).body.key;
    expect(theirKey).toMatch(/^ak_/);
    const ours = await get(asked.body.pollUrl, theirKey);
    expect(ours.status).toBe(401);
    expect(JSON.stringify(ours.body)).not.toContain('Edit');
    const viaTheirAgent = await get(
      `${suite.server.baseUrl}/agents/${other.agentId}/hooks/permissions/${asked.body.executionId}`,
      theirKey,
    );
    expect(viaTheirAgent.status).toBe(404);
    expect(JSON.stringify(viaTheirAgent.body)).not.toContain('Edit');
  });

  it('permission.request declined in the product answers declined', async () => {
    const asked = await post(hooksUrl('?wait=0'), { type: 'permission.request', tool: 'Write', requestId: 'req-2' });
    expect(asked.status).toBe(202);
    const declined = await suite.api.post(`/warp-executions/${asked.body.executionId}/decline`, { reason: 'no' });
    expect(declined.status).toBe(200);
    expect((await get(`${asked.body.pollUrl}?wait=5`)).body.decision).toBe('declined');
  });

  it('board callbacks and stop hooks are recorded (202); an unknown type is 400 listing the known ones', async () => {
    for (const type of ['board.callback', 'stop', 'session.end', 'notification']) {
      const res = await post(hooksUrl(), { type, sessionId: 's1', detail: { ok: true } });
      expect(res).toMatchObject({ status: 202, body: { type, received: true, id: expect.stringMatching(/^hle_/) } });
    }
    const recorded = await suite.db('hook_lifecycle_events').where({ agent_id: suite.team.agentId, session_id: 's1' });
    expect(recorded.map((r) => r.type)).toEqual(
      expect.arrayContaining(['session.start', 'board.callback', 'stop', 'session.end', 'notification']),
    );
    const unknown = await post(hooksUrl(), { type: 'pre.tool' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details.knownTypes).toEqual(
      expect.arrayContaining(['session.start', 'permission.request', 'board.callback', 'stop']),
    );
  });

  it('auth keys are made by people: an agent’s OAuth-less bearer cannot, and there is no MCP tool for it', async () => {
    const other = apiClient(suite.server.baseUrl, { token: key, slug: suite.team.slug });
    expect((await other.post(`/agents/${suite.team.agentId}/auth-keys`)).status).toBe(401);
  });
});
