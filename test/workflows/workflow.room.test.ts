import { createDeliveryActivities } from '../../activities/deliveries';
import { createRoomActivities } from '../../activities/rooms';
import { createWarpActivities } from '../../activities/warps';
import { loadConfig } from '../../config';
import { createLogger } from '../../logger';
import { AppContext, buildAppContext } from '../../services/platform/context';
import { postMessage } from '../../services/rooms/messages';
import { findOrCreateRoom } from '../../services/rooms/rooms';
import { roomProgress, roomWorkflowId, turnProgress, turnWorkflowId } from '../../workflows/contracts/room';
import { approve, decline } from '../../workflows/contracts/warpExecution';
import { FakeModelServer, startModelServer } from '../fakes/modelServer';
import { recordHistory, sleep, useWorkflowSuite } from '../support/helpers';

/**
 * The room and turn workflows on the Temporal test environment, with their real activities,
 * Postgres and the fake model over HTTP. RECORD_HISTORIES=1 saves the replay histories.
 */
describe('room and turn workflows on the Temporal test environment', () => {
  const taskQueue = 'room-unit';
  let fake: FakeModelServer;
  let ctx: AppContext;
  const contextFor = (db: Parameters<typeof buildAppContext>[1], address: string) =>
    buildAppContext(
      loadConfig({
        ...process.env,
        TEMPORAL_ADDRESS: address,
        TEMPORAL_TASK_QUEUE: taskQueue,
        APPROVAL_TTL_SECONDS: '3',
        LOG_LEVEL: 'silent',
      }),
      db,
      createLogger('silent', 'worker'),
    );
  const suite = useWorkflowSuite(
    'wfroom',
    taskQueue,
    (db) => {
      ctx = contextFor(db, suite.env.address);
      return {
        ...createRoomActivities({ appContext: ctx }),
        ...createWarpActivities({ appContext: ctx }),
        ...createDeliveryActivities({
          db,
          secretBox: ctx.secretBox,
          baseUrl: ctx.config.baseUrl,
          fileLinkTtlSeconds: 60,
        }),
      };
    },
    async (db, team) => {
      fake = await startModelServer();
      await db('agents').where({ id: team.agentId }).update({ model_base_url: fake.url, model_name: 'fake-model' });
    },
  );
  afterAll(async () => {
    await ctx?.temporal.close();
    await fake?.close();
  });
  beforeEach(() => fake.reset());

  const team = () => ({ id: suite.team.teamId, slug: suite.team.slug, plan: 'free' });
  const room = async (name: string) =>
    (await findOrCreateRoom(suite.db, suite.team.teamId, suite.team.agentId, name, suite.team.userId)).room;
  const turnRow = (turnId: string) => suite.db('room_turns').where({ id: turnId }).first();
  const setMode = (mode: 'auto' | 'manual') => suite.db('agents').where({ id: suite.team.agentId }).update({ mode });

  it('queues two messages and runs their turns one after the other, then reports progress', async () => {
    await setMode('auto');
    const r = await room('two-turns');
    fake.script({ text: 'first', firstTokenDelayMs: 300 }, { text: 'second' });
    const one = await postMessage(ctx, team(), r, 'one', suite.team.userId);
    const two = await postMessage(ctx, team(), r, 'two', suite.team.userId);
    const handle = suite.env.client.workflow.getHandle(roomWorkflowId(r.id));
    const progress = await handle.query(roomProgress);
    expect([progress.current, ...progress.queued]).toEqual([one.turnId, two.turnId].slice(progress.current ? 0 : 1));
    const secondTurn = suite.env.client.workflow.getHandle(turnWorkflowId(two.turnId));
    for (let i = 0; i < 100 && (await turnRow(two.turnId)).status !== 'completed'; i++) await sleep(100);
    expect(await secondTurn.result()).toEqual({ status: 'completed', steps: 1 });
    expect(await secondTurn.query(turnProgress)).toMatchObject({ status: 'completed', step: 1, toolInFlight: null });
    const [first, second] = [await turnRow(one.turnId), await turnRow(two.turnId)];
    expect(first.status).toBe('completed');
    expect(new Date(first.completed_at).getTime()).toBeLessThanOrEqual(new Date(second.completed_at).getTime());
    expect((await handle.query(roomProgress)).turnsRun).toBe(2);
    const described = await secondTurn.describe();
    expect(described.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value])).toEqual(
      expect.arrayContaining([
        ['TeamSlug', suite.team.slug],
        ['BusinessId', two.turnId],
        ['JobType', 'agent.turn'],
      ]),
    );
    recordHistory(suite.env, 'room-two-turns', roomWorkflowId(r.id));
    recordHistory(suite.env, 'turn-answer', turnWorkflowId(two.turnId));
  });

  async function sensitiveTurn(name: string) {
    await setMode('manual');
    const r = await room(name);
    await suite.db('agent_secrets').insert({
      team_id: suite.team.teamId,
      agent_id: suite.team.agentId,
      key: `OLD_${name.toUpperCase().replace(/-/g, '_')}`,
      value_sealed: ctx.secretBox.encrypt('x'),
    });
    fake.script(
      { toolCalls: [{ name: 'secret_clear', arguments: { key: `OLD_${name.toUpperCase().replace(/-/g, '_')}` } }] },
      (request) => ({ text: `Outcome: ${request.body.messages.at(-1)!.content}` }),
    );
    const posted = await postMessage(ctx, team(), r, 'Clear the old key', suite.team.userId);
    const turn = suite.env.client.workflow.getHandle(turnWorkflowId(posted.turnId));
    let state = await turnRow(posted.turnId);
    for (let i = 0; i < 100 && state?.status !== 'waiting_approval'; i++) {
      await sleep(100);
      state = await turnRow(posted.turnId);
    }
    const progress = await turn.query(turnProgress);
    expect(progress).toMatchObject({ status: 'waiting_approval', toolInFlight: 'secret_clear' });
    return { posted, turn, executionId: progress.executionId! };
  }

  it('waits for approval of a sensitive tool call, then runs it and goes on with its result', async () => {
    const { posted, turn, executionId } = await sensitiveTurn('approved');
    await suite.env.client.workflow.getHandle(`warp-${executionId}`).executeUpdate(approve, { args: [{}] });
    expect(await turn.result()).toEqual({ status: 'completed', steps: 2 });
    const call = await suite.db('tool_calls').where({ turn_id: posted.turnId }).first();
    expect(call).toMatchObject({ status: 'succeeded', execution_id: executionId });
    expect(await suite.db('agent_secrets').where({ key: 'OLD_APPROVED' })).toHaveLength(0);
    expect((await turnRow(posted.turnId)).status).toBe('completed');
    recordHistory(suite.env, 'turn-approval-approved', turnWorkflowId(posted.turnId));
  });

  it('a declined call is answered as declined and the turn goes on', async () => {
    const { posted, turn, executionId } = await sensitiveTurn('declined');
    await suite.env.client.workflow.getHandle(`warp-${executionId}`).signal(decline, { reason: 'not now' });
    expect(await turn.result()).toEqual({ status: 'completed', steps: 2 });
    const call = await suite.db('tool_calls').where({ turn_id: posted.turnId }).first();
    expect(call.status).toBe('declined');
    expect(call.result.error.message).toMatch(/not now/);
    expect(await suite.db('agent_secrets').where({ key: 'OLD_DECLINED' })).toHaveLength(1);
    const reply = await suite.db('room_messages').where({ turn_id: posted.turnId, role: 'assistant' }).orderBy('seq');
    expect(reply.at(-1).content).toMatch(/^Outcome: .*declined/);
    recordHistory(suite.env, 'turn-approval-declined', turnWorkflowId(posted.turnId));
  });

  it('an approval nobody gives expires (APPROVAL_TTL_SECONDS) and the turn goes on', async () => {
    const { posted, turn } = await sensitiveTurn('expired');
    expect(await turn.result()).toEqual({ status: 'completed', steps: 2 });
    expect((await suite.db('tool_calls').where({ turn_id: posted.turnId }).first()).status).toBe('expired');
    expect(await suite.db('agent_secrets').where({ key: 'OLD_EXPIRED' })).toHaveLength(1);
    recordHistory(suite.env, 'turn-approval-expired', turnWorkflowId(posted.turnId));
  });
});
