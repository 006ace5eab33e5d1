import type { Db } from '../../db/knex';
import { errorBody } from '../../services/platform/errors';
import { newId } from '../../db/ids';
import { OutboundMessageInput, recordOutboundMessage } from '../../services/deliveries/outboundMessages';
import { newTeam, testDb, TestTeam } from '../support/helpers';

/** The one writer of outbound messages, against real Postgres: what a retried activity does with its key. */
describe('recordOutboundMessage', () => {
  let db: Db;
  let team: TestTeam;
  beforeAll(async () => {
    db = testDb();
    team = await newTeam(db, 'outbound');
  });
  afterAll(() => db?.destroy());

  const message = (idempotencyKey: string, result: OutboundMessageInput['result']): OutboundMessageInput => ({
    teamId: team.teamId,
    agentId: team.agentId,
    channel: 'sms',
    contactId: 'ct_someone',
    address: '+15550001111',
    provider: 'twilio',
    idempotencyKey,
    sourceKind: 'delivery',
    sourceId: 'wx_some_execution',
    result,
  });
  const rows = (key: string) =>
    db('outbound_messages')
      .where({ team_id: team.teamId, idempotency_key: key })
      .select('id', 'status', 'provider_message_id');

  it('a retry with the same key leaves one row; a sent row is never overwritten', async () => {
    const key = `retry:${newId('wx')}`;
    const first = await recordOutboundMessage(db, message(key, { status: 'sent', providerMessageId: 'SM1' }));
    expect(first).toMatch(/^msg_/);
    expect(await recordOutboundMessage(db, message(key, { status: 'sent', providerMessageId: 'SM1' }))).toBeNull();
    expect(
      await recordOutboundMessage(
        db,
        message(key, { status: 'failed', error: errorBody('provider_unavailable', 'late') }),
      ),
    ).toBeNull();
    expect(await rows(key)).toEqual([{ id: first, status: 'sent', provider_message_id: 'SM1' }]);
  });

  it('a failed row becomes sent when the same key later gets through, still one row', async () => {
    const key = `late:${newId('wx')}`;
    const first = await recordOutboundMessage(
      db,
      message(key, { status: 'failed', error: errorBody('provider_unavailable', 'timeout') }),
    );
    expect(await recordOutboundMessage(db, message(key, { status: 'sent', providerMessageId: 'SM2' }))).toBe(first);
    expect(await rows(key)).toEqual([{ id: first, status: 'sent', provider_message_id: 'SM2' }]);
  });

  it("with a gate (the send's own status write) the row is written only when the gate wrote, in the same statement", async () => {
    const executionId = newId('wx');
    await db('warp_executions').insert({
      id: executionId,
      team_id: team.teamId,
      agent_id: team.agentId,
      warp: 'artifact-deliver',
      status: 'running',
      input: '{}',
      workflow_id: `delivery-${executionId}`,
    });
    const gate = () =>
      db('warp_executions')
        .where({ id: executionId, status: 'running' })
        .update({ status: 'succeeded' })
        .returning('id');
    const key = `gate:${executionId}`;
    expect(await recordOutboundMessage(db, message(key, { status: 'sent', providerMessageId: 'SM3' }), gate())).toMatch(
      /^msg_/,
    );
    expect((await db('warp_executions').where({ id: executionId }).first('status')).status).toBe('succeeded');
    // The gate writes nothing now (already settled): no row is added, even under a new key.
    expect(
      await recordOutboundMessage(db, message(`${key}:again`, { status: 'sent', providerMessageId: 'SM4' }), gate()),
    ).toBeNull();
    expect(await rows(`${key}:again`)).toEqual([]);
    expect(await rows(key)).toHaveLength(1);
  });

  it('keys are per team: another team may use the same key', async () => {
    const other = await newTeam(db, 'outbound-other');
    const key = `shared:${newId('wx')}`;
    await recordOutboundMessage(db, message(key, { status: 'sent', providerMessageId: 'SM5' }));
    expect(
      await recordOutboundMessage(db, {
        ...message(key, { status: 'sent', providerMessageId: 'SM6' }),
        teamId: other.teamId,
        agentId: other.agentId,
      }),
    ).toMatch(/^msg_/);
  });
});
