import { defaultPayloadConverter } from '@temporalio/common';
import { turnToolRegistry } from '../../activities';
import { createDeliveryActivities, createWarpActivities } from '../../services/deliveries/activities';
import { createRoomActivities } from '../../services/rooms/activities';
import { loadConfig } from '../../config';
import { createLogger } from '../../logger';
import { AppContext, buildAppContext } from '../../services/platform/context';
import { postMessage } from '../../services/rooms/messages';
import { findOrCreateRoom } from '../../services/rooms/rooms';
import {
  cancelTurn,
  roomProgress,
  roomWorkflowId,
  roomWorkflowName,
  type RoomWorkflow,
} from '../../workflows/contracts/room';
import { approve, decline } from '../../workflows/contracts/warpExecution';
import { FakeModelServer, startModelServer } from '../fakes/modelServer';
import { recordHistory, sleep, useWorkflowSuite } from '../support/helpers';

/**
 * The room workflow and the turns it runs on the Temporal test environment, with their real
 * activities, Postgres and the fake model over HTTP. RECORD_HISTORIES=1 saves the replay histories.
 */
describe('the room workflow and its turns on the Temporal test environment', () => {
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
        ...createRoomActivities({ appContext: ctx, tools: turnToolRegistry }),
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
  const roomOf = (roomId: string) => suite.env.client.workflow.getHandle(roomWorkflowId(roomId));
  async function turnEnded(turnId: string) {
    let row = await turnRow(turnId);
    for (let i = 0; i < 150 && !['completed', 'failed'].includes(row.status); i++) {
      await sleep(100);
      row = await turnRow(turnId);
    }
    return row;
  }

  it('queues two messages and runs their turns one after the other, then reports progress', async () => {
    await setMode('auto');
    const r = await room('two-turns');
    fake.script({ text: 'first', firstTokenDelayMs: 300 }, { text: 'second' });
    const one = await postMessage(ctx, team(), r, 'one', suite.team.userId);
    const two = await postMessage(ctx, team(), r, 'two', suite.team.userId);
    const handle = suite.env.client.workflow.getHandle(roomWorkflowId(r.id));
    const progress = await handle.query(roomProgress);
    expect([progress.current, ...progress.queued]).toEqual([one.turnId, two.turnId].slice(progress.current ? 0 : 1));
    // While the first turn runs (its model takes 300 ms to its first token), the room shows where it is.
    let running = await handle.query(roomProgress);
    for (let i = 0; i < 50 && running.current !== one.turnId; i++) running = await handle.query(roomProgress);
    expect(running).toMatchObject({ current: one.turnId, queued: [two.turnId], turn: { status: 'running', step: 1 } });
    expect(await turnEnded(two.turnId)).toMatchObject({ status: 'completed', steps: 1 });
    const [first, second] = [await turnRow(one.turnId), await turnRow(two.turnId)];
    expect(first.status).toBe('completed');
    expect(new Date(first.completed_at).getTime()).toBeLessThanOrEqual(new Date(second.completed_at).getTime());
    expect(await handle.query(roomProgress)).toMatchObject({ current: null, turn: null, queued: [], turnsRun: 2 });
    // What the Temporal UI shows of the room.
    const metadata = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
    expect(metadata.currentDetails).toBe('Waiting for messages; 2 turns run in this run');
    // Turns run in the room itself: no turn workflow of their own.
    const described = await handle.describe();
    expect(described.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value])).toEqual(
      expect.arrayContaining([
        ['TeamSlug', suite.team.slug],
        ['BusinessId', r.id],
        ['JobType', 'agent.room'],
      ]),
    );
    const children = (await handle.fetchHistory()).events!.filter(
      (e) => e.startChildWorkflowExecutionInitiatedEventAttributes,
    );
    expect(children).toHaveLength(0);
    recordHistory(suite.env, 'room-two-turns', roomWorkflowId(r.id));
  });

  it('a run due to continue as new takes the next message itself, then carries it to the next run', async () => {
    await setMode('auto');
    const r = await room('continues');
    const room1 = await suite.env.client.workflow.start<RoomWorkflow>(roomWorkflowName, {
      taskQueue,
      workflowId: roomWorkflowId(r.id),
      args: [{ roomId: r.id, teamSlug: suite.team.slug, turnsPerRun: 1 }],
    });
    fake.script({ text: 'first' }, { text: 'second' });
    const one = await postMessage(ctx, team(), r, 'one', suite.team.userId);
    expect(await turnEnded(one.turnId)).toMatchObject({ status: 'completed' });
    // Its one turn run (the turn's row ends a moment before the room's task does), the first run
    // waits for the next message instead of closing at once.
    const firstRun = suite.env.client.workflow.getHandle(roomWorkflowId(r.id), room1.firstExecutionRunId);
    let progress = await firstRun.query(roomProgress);
    for (let i = 0; i < 50 && progress.turnsRun < 1; i++) {
      await sleep(100);
      progress = await firstRun.query(roomProgress);
    }
    expect(progress).toMatchObject({ current: null, queued: [], turnsRun: 1 });
    const metadata = await firstRun.query<{ currentDetails: string }>('__temporal_workflow_metadata');
    expect(metadata.currentDetails).toBe(
      'Waiting for messages; 1 turns run in this run, the next goes on in a new run',
    );
    expect((await firstRun.describe()).status.name).toBe('RUNNING');
    const two = await postMessage(ctx, team(), r, 'two', suite.team.userId);
    expect(await turnEnded(two.turnId)).toMatchObject({ status: 'completed' });
    expect((await firstRun.describe()).status.name).toBe('CONTINUED_AS_NEW');
    // The first run accepted the message (no refusal, no retry) and handed its turn to the next.
    const events = (await firstRun.fetchHistory()).events!;
    const accepted = events.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
    expect(
      accepted.map((e) => e.workflowExecutionUpdateAcceptedEventAttributes!.acceptedRequest!.meta!.updateId),
    ).toEqual([one.turnId, two.turnId]);
    const continued = events.at(-1)!.workflowExecutionContinuedAsNewEventAttributes!;
    expect(defaultPayloadConverter.fromPayload(continued.input!.payloads![0])).toMatchObject({ queued: [two.turnId] });
    recordHistory(
      suite.env,
      'room-continued-as-new-with-the-next-message',
      roomWorkflowId(r.id),
      room1.firstExecutionRunId,
    );
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
    let state = await turnRow(posted.turnId);
    for (let i = 0; i < 100 && state?.status !== 'waiting_approval'; i++) {
      await sleep(100);
      state = await turnRow(posted.turnId);
    }
    const handle = roomOf(r.id);
    const progress = await handle.query(roomProgress);
    expect(progress).toMatchObject({
      current: posted.turnId,
      turn: { status: 'waiting_approval', toolInFlight: 'secret_clear', step: 1 },
    });
    return { r, handle, posted, executionId: progress.turn!.executionId! };
  }

  it('waits for approval of a sensitive tool call, then runs it and goes on with its result', async () => {
    const { r, posted, executionId } = await sensitiveTurn('approved');
    await suite.env.client.workflow.getHandle(`warp-${executionId}`).executeUpdate(approve, { args: [{}] });
    expect(await turnEnded(posted.turnId)).toMatchObject({ status: 'completed', steps: 2 });
    const call = await suite.db('tool_calls').where({ turn_id: posted.turnId }).first();
    expect(call).toMatchObject({ status: 'succeeded', execution_id: executionId });
    expect(await suite.db('agent_secrets').where({ key: 'OLD_APPROVED' })).toHaveLength(0);
    expect((await turnRow(posted.turnId)).status).toBe('completed');
    recordHistory(suite.env, 'room-approval-approved', roomWorkflowId(r.id));
  });

  it('a declined call is answered as declined and the turn goes on', async () => {
    const { r, posted, executionId } = await sensitiveTurn('declined');
    await suite.env.client.workflow.getHandle(`warp-${executionId}`).signal(decline, { reason: 'not now' });
    expect(await turnEnded(posted.turnId)).toMatchObject({ status: 'completed', steps: 2 });
    const call = await suite.db('tool_calls').where({ turn_id: posted.turnId }).first();
    expect(call.status).toBe('declined');
    expect(call.result.error.message).toMatch(/not now/);
    expect(await suite.db('agent_secrets').where({ key: 'OLD_DECLINED' })).toHaveLength(1);
    const reply = await suite.db('room_messages').where({ turn_id: posted.turnId, role: 'assistant' }).orderBy('seq');
    expect(reply.at(-1).content).toMatch(/^Outcome: .*declined/);
    recordHistory(suite.env, 'room-approval-declined', roomWorkflowId(r.id));
  });

  it('an approval nobody gives expires (APPROVAL_TTL_SECONDS) and the turn goes on', async () => {
    const { r, posted } = await sensitiveTurn('expired');
    expect(await turnEnded(posted.turnId)).toMatchObject({ status: 'completed', steps: 2 });
    expect((await suite.db('tool_calls').where({ turn_id: posted.turnId }).first()).status).toBe('expired');
    expect(await suite.db('agent_secrets').where({ key: 'OLD_EXPIRED' })).toHaveLength(1);
    recordHistory(suite.env, 'room-approval-expired', roomWorkflowId(r.id));
  });

  it("an operator's cancelTurn ends a stuck turn as cancelled, and the room takes the next message", async () => {
    const { r, handle, posted, executionId } = await sensitiveTurn('cancelled');
    fake.script({ text: 'next one answered' });
    const next = await postMessage(ctx, team(), r, 'And now?', suite.team.userId);
    await handle.signal(cancelTurn, { turnId: posted.turnId });
    expect(await turnEnded(posted.turnId)).toMatchObject({
      status: 'failed',
      error: { error: { code: 'turn_cancelled' } },
    });
    expect(await turnEnded(next.turnId)).toMatchObject({ status: 'completed' });
    // The approval it waited on is not left open.
    const approval = await suite.env.client.workflow.getHandle(`warp-${executionId}`).describe();
    expect(approval.status.name).not.toBe('RUNNING');
    expect(await suite.db('agent_secrets').where({ key: 'OLD_CANCELLED' })).toHaveLength(1);
  });

  it('a room an operator cancels ends its running and queued turns as cancelled, each on its stream', async () => {
    const { r, handle, posted } = await sensitiveTurn('room-cancelled');
    const queued = await postMessage(ctx, team(), r, 'Anything else?', suite.team.userId);
    await handle.cancel();
    for (const turnId of [posted.turnId, queued.turnId])
      expect(await turnEnded(turnId)).toMatchObject({ status: 'failed', error: { error: { code: 'turn_cancelled' } } });
    const events = await suite.db('room_events').where({ room_id: r.id, type: 'turn.failed' }).select('data');
    expect(events.map((e) => e.data.turnId).sort()).toEqual([posted.turnId, queued.turnId].sort());
  });
});
