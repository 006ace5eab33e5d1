import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { decodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentRequirementsV1 } from '@x402/core/types';
import type { Db } from '../../db/knex';
import { issueApiToken } from '../../services/identity/apiTokens';
import type { RunningServer } from '../../server';
import { queueInternalHookRuns } from '../../services/hooks/hookRuns';
import { temporalUnavailable } from '../../temporal/client';
import { FakeFacilitator, startFacilitator, SVM_PAYER } from '../fakes/facilitator';
import { FakeModelServer, startModelServer } from '../fakes/modelServer';
import { apiClient, newTeam, startTestApi, testDb, TestTeam } from '../support/helpers';
import { mcpClient, ok } from '../support/mcpHelpers';
import { teamClientCredentials } from '../support/oauthHelpers';

const PAY_TO = '0x209693Bc6afc0C5328bA36FaF03C514EF312287C';
const USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const PAYER = '0x857b06519E91e3A54538791bDbb0E22373e36b66';
const BROKE = '0x1111111111111111111111111111111111111111';
const GATE = {
  kind: 'x402',
  network: 'base-sepolia',
  payTo: PAY_TO,
  asset: USDC,
  maxAmountRequired: '10000',
  description: 'A conversation with the agent',
  extra: { name: 'USDC', version: '2' },
};

/**
 * Outside callers and the payment gate (docs/AGENTS.md): a team opens prompt_agent on its agent's
 * /mcp/agents/{uuid} to other teams, behind an x402 gate whose facilitator is a fake over real
 * HTTP. The callers are the MCP SDK client and plain HTTP (what an x402 client reads).
 */
describe('outside callers and the payment gate', () => {
  let db: Db;
  let server: RunningServer & { baseUrl: string };
  let facilitator: FakeFacilitator;
  let model: FakeModelServer;
  let owner: TestTeam;
  let outsider: TestTeam;
  let third: TestTeam;
  let agentUrl: string;
  let n = 0;
  const open: Client[] = [];

  beforeAll(async () => {
    db = testDb();
    facilitator = await startFacilitator();
    model = await startModelServer();
    server = await startTestApi(db, { X402_FACILITATOR_URL: facilitator.url });
    [owner, outsider, third] = await Promise.all([newTeam(db, 'pay-a'), newTeam(db, 'pay-b'), newTeam(db, 'pay-c')]);
    agentUrl = `${server.ctx.config.mcpEndpoint}/agents/${owner.agentId}`;
  });
  afterAll(async () => {
    await Promise.all(open.map((c) => c.close()));
    await server?.close();
    await facilitator?.close();
    await model?.close();
    await db?.destroy();
  });
  beforeEach(() => {
    facilitator.reset();
    model.reset();
  });

  const api = (team: TestTeam) => apiClient(server.baseUrl, team);
  const setAccess = (access: unknown, as: TestTeam = owner) =>
    api(as).call('PATCH', `/agents/${owner.agentId}`, { access });
  const sdk = async (team: TestTeam, headers: Record<string, string> = {}) => {
    const client = await mcpClient(agentUrl, team.token, { 'x-team-slug': team.slug, ...headers });
    open.push(client);
    return client;
  };
  /** A JSON-RPC POST as a plain HTTP client (an x402 client) sends it. */
  const rpc = async (team: TestTeam, method: string, params: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(agentUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${team.token}`,
        'x-team-slug': team.slug,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++n, method, params }),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };
  const prompt = (team: TestTeam, message: string, headers: Record<string, string> = {}) =>
    rpc(team, 'tools/call', { name: 'prompt_agent', arguments: { message, waitSeconds: 30 } }, headers);
  /** Someone else in a team, with a role and an API token of their own. */
  async function personIn(team: TestTeam, role: 'member' | 'admin'): Promise<TestTeam> {
    const [user] = await db('users')
      .insert({ email: `${role}-${Date.now()}-${++n}@example.test`, name: role })
      .returning('id');
    await db('memberships').insert({ team_id: team.teamId, user_id: user.id, role });
    return { ...team, userId: user.id, token: (await issueApiToken(db, user.id, 'test')).token };
  }
  /** The team's own backend: an OAuth client_credentials token with mcp:use. */
  const clientToken = async (team: TestTeam): Promise<TestTeam> => ({
    ...team,
    token: (await teamClientCredentials(server.url, team)).token,
  });
  const creditsUsed = async (team: TestTeam) => (await api(team).get('/credits')).body.used as number;

  it("closed by default: another team's caller gets the 404 it always got", async () => {
    const agents = await api(owner).get('/agents');
    expect(agents.body.data[0].access).toEqual({ public: false, paymentGate: { kind: 'off' } });
    const listed = await rpc(outsider, 'tools/list', {});
    expect(listed.status).toBe(404);
    expect(listed.body.error.code).toBe('not_found');
    await expect(sdk(outsider)).rejects.toMatchObject({ code: 404 });
  });

  it('access is set by a team admin, validated, and merged field by field', async () => {
    const member = await personIn(owner, 'member');
    const refused = await setAccess({ public: true }, member);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('forbidden');
    // A member still renames and sets modes as before.
    expect((await api(member).call('PATCH', `/agents/${owner.agentId}`, { mode: 'auto' })).status).toBe(200);
    // Another team's admin: the agent does not exist for it.
    expect((await api(outsider).call('PATCH', `/agents/${owner.agentId}`, { access: { public: true } })).status).toBe(
      404,
    );

    const bad = [
      [{ public: 'yes' }, 'access.public'],
      [{ paymentGate: { ...GATE, payTo: 'my wallet' } }, 'access.paymentGate.payTo'],
      [{ paymentGate: { ...GATE, maxAmountRequired: '0' } }, 'access.paymentGate.maxAmountRequired'],
      [{ paymentGate: { ...GATE, maxAmountRequired: '0.01' } }, 'access.paymentGate.maxAmountRequired'],
      [{ paymentGate: { kind: 'stripe' } }, 'access.paymentGate.kind'],
      [{ paymentGate: { ...GATE, facilitatorUrl: 'http://169.254.169.254/' } }, 'access.paymentGate'],
      [{ everyone: true }, 'access'],
    ] as const;
    for (const [access, path] of bad) {
      const res = await setAccess(access);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(res.body.error.details.issues.map((i: any) => i.path)).toContain(path);
    }
    expect((await api(owner).get('/agents')).body.data[0].access.public).toBe(false);

    const opened = await setAccess({ public: true });
    expect(opened.status).toBe(200);
    expect(opened.body.access).toEqual({ public: true, paymentGate: { kind: 'off' } });
    const gated = await setAccess({ paymentGate: GATE });
    expect(gated.body.access).toEqual({ public: true, paymentGate: { ...GATE, maxTimeoutSeconds: 60 } });
    const closed = await setAccess({ public: false, paymentGate: { kind: 'off' } });
    expect(closed.body.access).toEqual({ public: false, paymentGate: { kind: 'off' } });
  });

  it("public, gate off: outside callers prompt the agent in rooms of their own and see nothing else of the team's", async () => {
    expect((await setAccess({ public: true, paymentGate: { kind: 'off' } })).status).toBe(200);
    const teamRoom = (await api(owner).post('/rooms', { name: 'team-only' })).body.room.id as string;
    const ownerCredits = await creditsUsed(owner);
    const outsiderCredits = await creditsUsed(outsider);

    const b = await sdk(outsider);
    expect((await b.listTools()).tools.map((t) => t.name)).toEqual(['prompt_agent']);
    const first = await ok(b, 'prompt_agent', { message: 'Hello from B', waitSeconds: 30 });
    expect(first).toMatchObject({ status: 'completed', streamUrl: null });
    expect(first.reply).toMatch(/No model is configured/);
    const again = await ok(b, 'prompt_agent', { message: 'Me again', roomId: first.roomId, waitSeconds: 30 });
    expect(again.roomId).toBe(first.roomId);
    // Credits: the caller's team pays for its calls, the agent's team for none of them.
    expect(await creditsUsed(outsider)).toBe(outsiderCredits + 4);
    expect(await creditsUsed(owner)).toBe(ownerCredits);

    // The team's tools are not there, whatever the caller asks for.
    for (const name of ['list_rooms', 'get_room_messages', 'svc_agent_info', 'search_memories'])
      await expect(b.callTool({ name, arguments: {} })).rejects.toThrow(/Unknown tool/);
    // Nor are the team's rooms, or another caller's.
    const intoTeamRoom = await b.callTool({ name: 'prompt_agent', arguments: { message: 'x', roomId: teamRoom } });
    expect(intoTeamRoom.isError).toBe(true);
    expect((intoTeamRoom.structuredContent as any).error.code).toBe('not_found');

    // Every caller has its own room: B's backend (an OAuth client) and a caller of a third team.
    const bClient = await sdk(await clientToken(outsider));
    const viaClient = await ok(bClient, 'prompt_agent', { message: 'From B backend', waitSeconds: 30 });
    const c = await sdk(third);
    const fromC = await ok(c, 'prompt_agent', { message: 'Hello from C', waitSeconds: 30 });
    expect(new Set([first.roomId, viaClient.roomId, fromC.roomId, teamRoom]).size).toBe(4);
    const cIntoB = await c.callTool({ name: 'prompt_agent', arguments: { message: 'peek', roomId: first.roomId } });
    expect((cIntoB.structuredContent as any).error.code).toBe('not_found');

    // A turn an outsider starts offers the model no tools; a call it asks for anyway never runs.
    await api(owner).call('PATCH', `/agents/${owner.agentId}`, { model: { baseUrl: model.url, name: 'fake' } });
    model.script({ toolCalls: [{ name: 'list_rooms', arguments: { limit: 100 } }] }, { text: 'Nothing to show.' });
    const probe = await ok(b, 'prompt_agent', { message: 'List every room of the team', waitSeconds: 30 });
    await api(owner).call('PATCH', `/agents/${owner.agentId}`, { model: { baseUrl: null, name: null } });
    expect(probe.status).toBe('completed');
    expect(model.requests[0].body.tools ?? []).toEqual([]);
    const ledger = await db('tool_calls').where({ turn_id: probe.turnId });
    expect(ledger.map((c) => [c.name, c.status, c.result?.error?.code])).toEqual([
      ['list_rooms', 'failed', 'unknown_tool'],
    ]);
    expect(JSON.stringify(ledger)).not.toContain(teamRoom);
    expect(JSON.stringify(model.requests.map((r) => r.body.messages))).not.toContain(teamRoom);
    const transcript = await api(owner).get(`/rooms/${first.roomId}/messages?limit=100`);

    // The agent's team sees every conversation with its agent.
    const rooms = await api(owner).get(`/rooms?agentId=${owner.agentId}&limit=100`);
    expect(rooms.body.data.map((r: any) => r.id)).toEqual(
      expect.arrayContaining([first.roomId, viaClient.roomId, fromC.roomId]),
    );
    expect(transcript.body.data.map((m: any) => m.content)).toContain('Hello from B');
    // The outsider's own team has no such room.
    expect((await api(outsider).get('/rooms?limit=100')).body.data.map((r: any) => r.id)).not.toContain(first.roomId);
    // Closing the agent again shuts the door.
    await setAccess({ public: false });
    expect((await prompt(outsider, 'Still there?')).status).toBe(404);
  });

  it('public + x402: 402 with the requirements, a paid retry is answered (verified and settled once), a replay is not', async () => {
    await setAccess({ public: true, paymentGate: GATE });
    facilitator.fund(PAYER, 1_000_000n);

    // Plain HTTP: 402, and the body is the JSON-RPC error whose data is x402's PaymentRequired.
    const unpaid = await prompt(outsider, 'How much?');
    expect(unpaid.status).toBe(402);
    expect(unpaid.body.error).toMatchObject({
      code: 402,
      data: { code: 'payment_required', reason: 'payment_missing', x402Version: 1 },
    });
    const accepts = unpaid.body.error.data.accepts as PaymentRequirementsV1[];
    expect(accepts).toEqual([
      {
        scheme: 'exact',
        network: 'base-sepolia',
        maxAmountRequired: '10000',
        resource: agentUrl,
        description: 'A conversation with the agent',
        mimeType: 'application/json',
        outputSchema: {},
        payTo: PAY_TO,
        maxTimeoutSeconds: 60,
        asset: USDC,
        extra: { name: 'USDC', version: '2' },
      },
    ]);
    // The SDK client: the transport's error for HTTP 402, carrying the same body.
    const b = await sdk(outsider);
    expect((await b.listTools()).tools.map((t) => t.name)).toEqual(['prompt_agent']);
    const thrown = await b.callTool({ name: 'prompt_agent', arguments: { message: 'How much?' } }).catch((e) => e);
    expect(thrown.code).toBe(402);
    const carried = JSON.parse(thrown.message.slice(thrown.message.indexOf('{')));
    expect(carried.error.data.accepts).toEqual(accepts);
    expect(facilitator.calls).toEqual([]);

    // Paid over HTTP: the reply, X-PAYMENT-RESPONSE, one verify and one settle.
    const payment = facilitator.pay(PAYER, accepts[0]);
    const paid = await prompt(outsider, 'Here is my payment', { 'x-payment': facilitator.header(payment) });
    expect(paid.status).toBe(200);
    expect(paid.body.result.structuredContent).toMatchObject({ status: 'completed' });
    expect(paid.body.result.structuredContent.reply).toMatch(/No model is configured/);
    const receipt = decodePaymentResponseHeader(paid.headers.get('x-payment-response')!);
    expect(receipt).toMatchObject({ success: true, network: 'base-sepolia', payer: PAYER });
    expect(facilitator.calls.map((c) => c.path)).toEqual(['/verify', '/settle']);
    expect(facilitator.calls[1].body.paymentRequirements).toEqual(accepts[0]);
    expect(facilitator.transfers).toContainEqual({
      from: PAYER,
      to: PAY_TO,
      value: '10000',
      transaction: receipt.transaction,
    });
    expect(facilitator.balance(PAYER)).toBe(990_000n);

    // The same payment again, from the caller who paid: the turn it bought, answered again (not a
    // new one); the facilitator is not asked.
    const turnsOf = async (roomId: string) => (await db('room_turns').where({ room_id: roomId }).count())[0].count;
    const paidAnswer = paid.body.result.structuredContent;
    const turnsBefore = await turnsOf(paidAnswer.roomId);
    const again = await prompt(outsider, 'Again for free?', { 'x-payment': facilitator.header(payment) });
    expect(again.status).toBe(200);
    expect(again.body.result.structuredContent).toMatchObject({
      turnId: paidAnswer.turnId,
      messageId: paidAnswer.messageId,
      status: 'completed',
      reply: paidAnswer.reply,
    });
    expect(decodePaymentResponseHeader(again.headers.get('x-payment-response')!)).toEqual(receipt);
    expect(again.body.result._meta['x402/payment-response']).toEqual(receipt);
    expect(await turnsOf(paidAnswer.roomId)).toBe(turnsBefore);
    // Any other caller presenting it is refused before the facilitator is asked: another person of
    // the payer's team, or another team's caller.
    const colleague = await personIn(outsider, 'member');
    const replayed = await prompt(colleague, 'Again for free?', { 'x-payment': facilitator.header(payment) });
    expect(replayed.status).toBe(402);
    expect(replayed.body.error.data).toMatchObject({ reason: 'payment_replayed', accepts });
    const stolen = await prompt(third, 'Borrowed payment', { 'x-payment': facilitator.header(payment) });
    expect(stolen.body.error.data.reason).toBe('payment_replayed');
    expect(facilitator.calls).toHaveLength(2);

    // Over MCP: the payment in _meta["x402/payment"], the settlement in the result's _meta.
    const viaMeta = await b.callTool({
      name: 'prompt_agent',
      arguments: { message: 'Paying in _meta', waitSeconds: 30 },
      _meta: { 'x402/payment': facilitator.pay(PAYER, accepts[0]) },
    });
    expect(viaMeta.isError).toBeFalsy();
    expect(viaMeta.structuredContent).toMatchObject({ status: 'completed' });
    expect(viaMeta._meta?.['x402/payment-response']).toMatchObject({ success: true, payer: PAYER });
    // And with the header, as an x402-aware MCP host sends it.
    const withHeader = await sdk(outsider, { 'x-payment': facilitator.header(facilitator.pay(PAYER, accepts[0])) });
    expect((await ok(withHeader, 'prompt_agent', { message: 'Header payment', waitSeconds: 30 })).status).toBe(
      'completed',
    );
    expect(facilitator.calls.map((c) => c.path)).toEqual([
      '/verify',
      '/settle',
      '/verify',
      '/settle',
      '/verify',
      '/settle',
    ]);
    expect(facilitator.balance(PAYER)).toBe(970_000n);
  });

  it('refusals: an invalid payment with the reason, a mismatch, a malformed header, a failed settlement, the facilitator down', async () => {
    await setAccess({ public: true, paymentGate: GATE });
    facilitator.fund(PAYER, 1_000_000n);
    const accepts = (await prompt(outsider, 'price?')).body.error.data.accepts as PaymentRequirementsV1[];
    const attempt = (payment: unknown) =>
      prompt(outsider, 'attempt', { 'x-payment': facilitator.header(payment as never) });
    const roomMessages = async () => (await db('room_messages').where({ team_id: owner.teamId }).count())[0].count;
    const before = await roomMessages();
    const balance = facilitator.balance(PAYER);

    const forged = await attempt(facilitator.pay(PAYER, accepts[0], {}, `0x${'ab'.repeat(65)}`));
    expect(forged.status).toBe(402);
    expect(forged.body.error.data).toMatchObject({
      reason: 'payment_invalid',
      error: 'invalid_exact_evm_payload_signature',
      accepts,
    });
    const broke = await attempt(facilitator.pay(BROKE, accepts[0]));
    expect(broke.body.error.data).toMatchObject({ reason: 'payment_invalid', error: 'insufficient_funds' });
    const cheap = await attempt(facilitator.pay(PAYER, accepts[0], { value: '9999' }));
    expect(cheap.body.error.data.error).toBe('invalid_exact_evm_payload_authorization_value');
    expect(facilitator.calls.map((c) => c.path)).toEqual(['/verify', '/verify', '/verify']);

    const otherNetwork = await attempt(facilitator.pay(PAYER, { ...accepts[0], network: 'base' as never }));
    expect(otherNetwork.body.error.data.reason).toBe('payment_mismatch');
    const malformed = await prompt(outsider, 'attempt', { 'x-payment': 'not a payment!' });
    expect(malformed.status).toBe(402);
    expect(malformed.body.error.data.reason).toBe('payment_malformed');
    const notX402 = await prompt(outsider, 'attempt', { 'x-payment': Buffer.from('{"hello":1}').toString('base64') });
    expect(notX402.body.error.data.reason).toBe('payment_malformed');
    expect(facilitator.calls).toHaveLength(3);

    // Verified, but the settlement fails: 402 and the message is never posted.
    facilitator.failSettlement = 'unexpected_settle_error';
    const unsettled = await attempt(facilitator.pay(PAYER, accepts[0]));
    expect(unsettled.status).toBe(402);
    expect(unsettled.body.error.data).toMatchObject({
      reason: 'payment_settlement_failed',
      error: 'unexpected_settle_error',
    });
    facilitator.failSettlement = null;
    expect(await roomMessages()).toBe(before);

    // The facilitator down: a tool error (502), nothing taken; the same payment works once it is back.
    const payment = facilitator.pay(PAYER, accepts[0]);
    facilitator.unavailable = true;
    const down = await attempt(payment);
    expect(down.status).toBe(200);
    expect(down.body.result.isError).toBe(true);
    expect(down.body.result.structuredContent.error.code).toBe('payment_facilitator_unavailable');
    facilitator.unavailable = false;
    const retried = await attempt(payment);
    expect(retried.status).toBe(200);
    expect(retried.body.result.structuredContent.status).toBe('completed');
    // One payment taken in all of this: the one that was answered.
    expect(facilitator.balance(PAYER)).toBe(balance - 10_000n);
  });

  it("the agent's own team is never gated, on the agent's endpoint or elsewhere", async () => {
    await setAccess({ public: true, paymentGate: GATE });
    const a = await sdk(owner);
    const names = (await a.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['prompt_agent', 'list_rooms', 'svc_agent_info']));
    const answer = await ok(a, 'prompt_agent', { message: 'Team member here', waitSeconds: 30 });
    expect(answer.status).toBe('completed');
    const admin = await sdk(await personIn(owner, 'admin'));
    expect((await ok(admin, 'prompt_agent', { message: 'Admin here', waitSeconds: 30 })).status).toBe('completed');
    expect(
      (await api(owner).post(`/agents/${owner.agentId}/messages`, { message: 'HTTP', waitSeconds: 30 })).status,
    ).toBe(200);
    expect(facilitator.calls).toEqual([]);
  });

  /** An outside caller's turns with the agent (in every room of that caller's team). */
  const outsideTurns = async (callerTeam: TestTeam) =>
    Number(
      (
        await db('room_turns')
          .join('rooms', 'rooms.id', 'room_turns.room_id')
          .where({ 'rooms.agent_id': owner.agentId, 'rooms.caller_team_id': callerTeam.teamId })
          .count()
      )[0].count,
    );
  const priceList = async () => (await prompt(outsider, 'price?')).body.error.data.accepts as PaymentRequirementsV1[];

  it('everything that can refuse is checked before paying; after settling, every answer carries the receipt and the same payment gets the turn it paid for', async () => {
    await setAccess({ public: true, paymentGate: GATE });
    facilitator.fund(PAYER, 1_000_000n);
    const accepts = await priceList();
    const balance = facilitator.balance(PAYER);
    const credits = await creditsUsed(outsider);
    const teamRoom = (await api(owner).post('/rooms', { name: `team-only-${++n}` })).body.room.id as string;
    const header = { 'x-payment': facilitator.header(facilitator.pay(PAYER, accepts[0])) };
    const call = (args: Record<string, unknown>) =>
      rpc(outsider, 'tools/call', { name: 'prompt_agent', arguments: { waitSeconds: 30, ...args } }, header);

    // A room that is not the caller's own: 404 before the payment is looked at; nothing paid or charged.
    const wrongRoom = await call({ message: 'Into the team room', roomId: teamRoom });
    expect(wrongRoom.status).toBe(200);
    expect(wrongRoom.body.result.structuredContent.error.code).toBe('not_found');
    expect(wrongRoom.headers.get('x-payment-response')).toBeNull();
    expect(facilitator.calls).toEqual([]);
    expect(await creditsUsed(outsider)).toBe(credits);

    // Settled, then Temporal never gets the turn: 503 with the receipt (header and _meta).
    const turns = await outsideTurns(outsider);
    const temporal = jest
      .spyOn(server.ctx.temporal, 'call')
      .mockRejectedValueOnce(temporalUnavailable(undefined, true));
    const unqueued = await call({ message: 'Paid, then Temporal was away' });
    temporal.mockRestore();
    expect(unqueued.body.result.structuredContent.error.code).toBe('temporal_unavailable');
    expect(unqueued.body.result._meta['x402/payment-response']).toMatchObject({ success: true, payer: PAYER });
    const receipt = decodePaymentResponseHeader(unqueued.headers.get('x-payment-response')!);
    expect(receipt).toMatchObject({ success: true, payer: PAYER });
    // The same payment again: the message is posted now, with no new settlement.
    const retried = await call({ message: 'Paid, then Temporal was away' });
    expect(retried.body.result.structuredContent).toMatchObject({ status: 'completed' });
    expect(retried.body.result._meta['x402/payment-response']).toEqual(receipt);
    const turnId = retried.body.result.structuredContent.turnId;
    expect(await db('agent_payments').where({ turn_id: turnId }).first('status', 'credits')).toEqual({
      status: 'settled',
      credits: 2,
    });
    // And again: that same turn, nothing new.
    const third = await call({ message: 'Once more' });
    expect(third.body.result.structuredContent).toMatchObject({ turnId, status: 'completed' });
    expect(await outsideTurns(outsider)).toBe(turns + 2); // the one Temporal never got, and the one that ran
    expect(facilitator.calls.map((c) => c.path)).toEqual(['/verify', '/settle']);
    expect(facilitator.balance(PAYER)).toBe(balance - 10_000n);
    expect(await creditsUsed(outsider)).toBe(credits + 2);

    // Settled, then the message cannot be written (the database refuses it): an error with the
    // receipt, and the same payment posts its retry's message.
    await db.raw(`CREATE OR REPLACE FUNCTION refuse_paid_message() RETURNS trigger AS $$
      BEGIN IF NEW.content = 'Paid, then the database failed' THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`);
    await db.raw(
      `CREATE TRIGGER refuse_paid_message BEFORE INSERT ON room_messages FOR EACH ROW EXECUTE FUNCTION refuse_paid_message()`,
    );
    const header2 = { 'x-payment': facilitator.header(facilitator.pay(PAYER, accepts[0])) };
    let broken;
    try {
      broken = await prompt(outsider, 'Paid, then the database failed', header2);
    } finally {
      await db.raw('DROP TRIGGER refuse_paid_message ON room_messages');
      await db.raw('DROP FUNCTION refuse_paid_message()');
    }
    expect(broken.body.result.isError).toBe(true);
    expect(broken.body.result._meta['x402/payment-response']).toMatchObject({ success: true });
    const recovered = await prompt(outsider, 'After the database came back', header2);
    expect(recovered.body.result.structuredContent).toMatchObject({ status: 'completed' });
    expect(recovered.body.result._meta['x402/payment-response']).toMatchObject({ success: true });
    expect(facilitator.calls.map((c) => c.path)).toEqual(['/verify', '/settle', '/verify', '/settle']);
    expect(facilitator.balance(PAYER)).toBe(balance - 20_000n);
  });

  it('the same payment twice at once (EVM): one settlement, one turn', async () => {
    await setAccess({ public: true, paymentGate: GATE });
    facilitator.fund(PAYER, 1_000_000n);
    const accepts = await priceList();
    const balance = facilitator.balance(PAYER);
    const turns = await outsideTurns(outsider);
    const header = { 'x-payment': facilitator.header(facilitator.pay(PAYER, accepts[0])) };
    facilitator.settleDelayMs = 300;
    const answers = await Promise.all([prompt(outsider, 'Race one', header), prompt(outsider, 'Race two', header)]);
    expect(facilitator.calls.filter((c) => c.path === '/settle')).toHaveLength(1);
    expect(facilitator.calls.filter((c) => c.path === '/verify')).toHaveLength(1);
    expect(await outsideTurns(outsider)).toBe(turns + 1);
    expect(facilitator.balance(PAYER)).toBe(balance - 10_000n);
    const answered = answers.filter((a) => a.status === 200 && !a.body.result.isError);
    expect(answered.length).toBeGreaterThanOrEqual(1);
    // The other: refused as in progress, or (if it came after) the same turn.
    for (const a of answers)
      if (a.status === 402) expect(a.body.error.data.reason).toBe('payment_replayed');
      else expect(a.body.result.structuredContent.turnId).toBe(answered[0].body.result.structuredContent.turnId);
  });

  it('a settlement of unknown outcome is settled again by the same payment; a failed one refunds the credits', async () => {
    await setAccess({ public: true, paymentGate: GATE });
    facilitator.fund(PAYER, 1_000_000n);
    const accepts = await priceList();
    const balance = facilitator.balance(PAYER);
    const credits = await creditsUsed(outsider);
    const messages = async () => (await db('room_messages').where({ team_id: owner.teamId }).count())[0].count;
    const before = await messages();
    const header = { 'x-payment': facilitator.header(facilitator.pay(PAYER, accepts[0])) };

    facilitator.settleUnavailable = true;
    const unknown = await prompt(outsider, 'Settle me', header);
    expect(unknown.status).toBe(200);
    const error = unknown.body.result.structuredContent.error;
    expect(error).toMatchObject({
      code: 'payment_facilitator_unavailable',
      details: { phase: 'settle', outcome: 'unknown', paymentId: expect.stringMatching(/^pay_/) },
    });
    expect(error.message).toMatch(/unknown/);
    expect(error.message).not.toMatch(/nothing was charged/);
    expect(await messages()).toBe(before);
    expect((await db('agent_payments').where({ id: error.details.paymentId }).first('status')).status).toBe(
      'settle_unknown',
    );
    // The same payment again: the facilitator is asked to settle it again (not refused as replayed).
    facilitator.settleUnavailable = false;
    const settled = await prompt(outsider, 'Settle me', header);
    expect(settled.body.result.structuredContent).toMatchObject({ status: 'completed' });
    expect(decodePaymentResponseHeader(settled.headers.get('x-payment-response')!)).toMatchObject({ success: true });
    expect(facilitator.calls.map((c) => c.path)).toEqual(['/verify', '/settle', '/settle']);
    expect(facilitator.balance(PAYER)).toBe(balance - 10_000n);
    expect(await creditsUsed(outsider)).toBe(credits + 2); // charged once for the one payment

    // A settlement that definitely failed: 402 saying so, and the credits charged for it given back.
    facilitator.failSettlement = 'unexpected_settle_error';
    const failed = await prompt(outsider, 'Fail me', {
      'x-payment': facilitator.header(facilitator.pay(PAYER, accepts[0])),
    });
    expect(failed.status).toBe(402);
    expect(failed.body.error.data).toMatchObject({
      reason: 'payment_settlement_failed',
      phase: 'settle',
      outcome: 'failed',
      paymentId: expect.stringMatching(/^pay_/),
      error: 'unexpected_settle_error',
    });
    expect(await creditsUsed(outsider)).toBe(credits + 2);
    expect(facilitator.balance(PAYER)).toBe(balance - 10_000n);
  });

  it('payments are strict x402 payloads: an unknown key is malformed', async () => {
    await setAccess({ public: true, paymentGate: GATE });
    facilitator.fund(PAYER, 1_000_000n);
    const accepts = await priceList();
    const payment = facilitator.pay(PAYER, accepts[0]) as any;
    // An unknown key anywhere would have made the same authorization look new: refused as malformed.
    for (const reshaped of [
      { ...payment, memo: 'x' },
      { ...payment, payload: { ...payment.payload, memo: 'x' } },
      { ...payment, payload: { ...payment.payload, authorization: { ...payment.payload.authorization, memo: 'x' } } },
    ]) {
      const res = await prompt(outsider, 'reshaped', { 'x-payment': facilitator.header(reshaped) });
      expect(res.status).toBe(402);
      expect(res.body.error.data.reason).toBe('payment_malformed');
    }
    expect(facilitator.calls).toEqual([]);
  });

  it("_meta['x402/payment'] wins over a stale X-PAYMENT header", async () => {
    await setAccess({ public: true, paymentGate: GATE });
    facilitator.fund(PAYER, 1_000_000n);
    const accepts = await priceList();
    const payment = facilitator.pay(PAYER, accepts[0]);
    // A host whose transport still sends an earlier payment's header, paying this call in _meta.
    const first = await prompt(outsider, 'First', { 'x-payment': facilitator.header(payment) });
    const stale = await sdk(outsider, { 'x-payment': facilitator.header(payment) });
    const fresh = await stale.callTool({
      name: 'prompt_agent',
      arguments: { message: 'Paid in _meta', waitSeconds: 30 },
      _meta: { 'x402/payment': facilitator.pay(PAYER, accepts[0]) },
    });
    expect(fresh.isError).toBeFalsy();
    expect((fresh.structuredContent as any).turnId).not.toBe(first.body.result.structuredContent.turnId);
    expect(facilitator.calls.map((c) => c.path)).toEqual(['/verify', '/settle', '/verify', '/settle']);
  });

  it('Solana (SVM) payments are keyed by the transaction: re-encoded, the same transaction settles once', async () => {
    const SVM_GATE = {
      kind: 'x402',
      network: 'solana-devnet',
      payTo: '2wmVCSfPxGPjrnMMn7rchp4uaeoTqN39mXFC2zhPdri9',
      asset: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
      maxAmountRequired: '10000',
    };
    expect((await setAccess({ public: true, paymentGate: SVM_GATE })).status).toBe(200);
    const accepts = await priceList();
    expect(accepts[0].network).toBe('solana-devnet');
    const payment = facilitator.paySvm(accepts[0]);
    const tx = (payment.payload as { transaction: string }).transaction;
    const bytes = Buffer.from(tx, 'base64');
    // The same transaction: unpadded base64, or other bytes in the fee payer's (empty) signature slot.
    const unpadded = { ...payment, payload: { transaction: tx.replace(/=+$/, '') } };
    const feeSlot = Buffer.from(bytes);
    feeSlot.fill(7, 1, 65);
    const otherSlot = { ...payment, payload: { transaction: feeSlot.toString('base64') } };
    expect(new Set([tx, unpadded.payload.transaction, otherSlot.payload.transaction]).size).toBe(3);
    const before = (await outsideTurns(outsider)) + (await outsideTurns(third));
    facilitator.settleDelayMs = 300;
    const answers = await Promise.all([
      prompt(outsider, 'SVM one', { 'x-payment': facilitator.header(payment) }),
      prompt(third, 'SVM two', { 'x-payment': facilitator.header(unpadded as never) }),
      prompt(outsider, 'SVM three', { 'x-payment': facilitator.header(otherSlot as never) }),
    ]);
    expect(facilitator.calls.filter((c) => c.path === '/settle')).toHaveLength(1);
    expect(facilitator.transfers.filter((t) => t.from === SVM_PAYER)).toHaveLength(1);
    expect((await outsideTurns(outsider)) + (await outsideTurns(third))).toBe(before + 1);
    const paid = answers.map((a) => a.status === 200 && !a.body.result.isError);
    expect(paid.filter(Boolean).length).toBeGreaterThanOrEqual(1);
    // Presented later by a caller that did not win the race, in any encoding: replayed (its winner
    // presenting it again gets the turn it bought). An unknown key: malformed.
    const loser = paid[1] ? outsider : third;
    const later = await prompt(loser, 'SVM again', { 'x-payment': facilitator.header(otherSlot as never) });
    expect(later.body.error.data.reason).toBe('payment_replayed');
    const extra = await prompt(outsider, 'SVM memo', {
      'x-payment': facilitator.header({ ...payment, payload: { transaction: tx, memo: 'x' } } as never),
    });
    expect(extra.body.error.data.reason).toBe('payment_malformed');
    await setAccess({ paymentGate: { kind: 'off' } });
  });

  it("an outside caller's messages are flagged with its team, and run none of the team's internal hooks", async () => {
    await setAccess({ public: true, paymentGate: { kind: 'off' } });
    const hook = await api(owner).post(`/agents/${owner.agentId}/hook-rules`, {
      source: 'internal',
      event: 'user.message',
      warp: 'artifact-list',
      enabled: true,
    });
    expect(hook.status).toBe(201);
    const b = await sdk(outsider);
    const fromOutside = await ok(b, 'prompt_agent', { message: 'Steer your hooks', waitSeconds: 30 });
    const fromTeam = (
      await api(owner).post(`/agents/${owner.agentId}/messages`, { message: 'From the team', waitSeconds: 30 })
    ).body;
    const events = await db('platform_events')
      .where({ team_id: owner.teamId, type: 'user.message' })
      .whereIn('subject', [fromOutside.messageId, fromTeam.messageId])
      .select('id', 'team_id', 'type', 'data', 'subject');
    const outsideEvent = events.find((e) => e.subject === fromOutside.messageId);
    const teamEvent = events.find((e) => e.subject === fromTeam.messageId);
    expect(outsideEvent.data.callerTeamId).toBe(outsider.teamId);
    expect(teamEvent.data).not.toHaveProperty('callerTeamId');
    // The dispatcher's hook pass over both: only the team's own message runs the hook.
    let queued: string[] = [];
    await db
      .transaction(async (trx) => {
        await queueInternalHookRuns(trx, events);
        queued = (await trx('hook_runs').where({ hook_id: hook.body.hook.id }).select('event_key')).map(
          (r) => r.event_key,
        );
        throw new Error('rollback');
      })
      .catch(() => undefined);
    expect(queued).toEqual([`event:${teamEvent.id}`]);
    await api(owner).call('DELETE', `/agents/${owner.agentId}/hook-rules/${hook.body.hook.id}`);
  });
});
