import { createHookActivities } from '../../services/hooks/activities';
import { loadConfig } from '../../config';
import { createLogger } from '../../logger';
import { createHook } from '../../services/hooks/hooks';
import { createArtifact } from '../../services/deliveries/artifacts';
import { queueInboundHookRuns, startHookRun } from '../../services/hooks/hookRuns';
import type { TemporalGateway } from '../../temporal/client';
import { buildAppContext } from '../../services/platform/context';
import { hookRunWorkflowId, hookRunWorkflowName, type HookRunResult } from '../../workflows/contracts/hookRun';
import { AppError } from '../../services/platform/errors';
import { hookRunExecutionId, runHook } from '../../services/hooks/runHook';
import { ApplicationFailure } from '@temporalio/common';
import { recordHistory, useWorkflowSuite } from '../support/helpers';

/** `hook-run-<runId>` on the Temporal test environment with its real activity and Postgres. RECORD_HISTORIES=1 saves its history. */
describe('hookRunWorkflow on the Temporal test environment', () => {
  const taskQueue = 'hook-run-unit';
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
  const appContext = (db: Parameters<typeof buildAppContext>[1]) =>
    buildAppContext(config, db, createLogger('silent', 'worker'));
  // Runs whose activity meets an outage that outlasts its retries (here: at once, not after 20 attempts).
  const outage = new Set<string>();
  const suite = useWorkflowSuite('wfhookrun', taskQueue, (db) => {
    const real = createHookActivities({ appContext: appContext(db) });
    return {
      ...real,
      runHook: (runId: string) =>
        outage.has(runId) ? Promise.reject(ApplicationFailure.nonRetryable('the database away')) : real.runHook(runId),
    };
  });

  const run = (runId: string) =>
    suite.env.client.workflow.execute(hookRunWorkflowName, {
      workflowId: hookRunWorkflowId(runId),
      taskQueue,
      args: [{ runId }],
    }) as Promise<HookRunResult>;

  it('runs the warp once as a recorded execution; a second run of the same id runs nothing', async () => {
    const ctx = appContext(suite.db);
    const { hook } = await createHook(ctx, suite.team.teamId, suite.team.agentId, null, {
      source: 'inbound',
      event: 'wf-src',
      warp: 'artifact-create',
      inputs: { type: 'offer' },
      mapping: { title: '$.title' },
    });
    const row = await suite.db('hooks').where({ id: hook.id }).first();
    const [runId] = await queueInboundHookRuns(suite.db, [row], 'wf-src:d1', { title: 'From the workflow' });
    // This test starts the run's workflow itself, as the dispatcher would: marked started, so the
    // dispatcher of another suite's worker on the same database does not start it too.
    await suite.db('hook_runs').where({ id: runId }).update({ workflow_started_at: suite.db.fn.now() });
    const result = await run(runId);
    expect(result).toEqual({ status: 'succeeded', executionId: expect.stringMatching(/^wx_/) });
    recordHistory(suite.env, 'hook-run', hookRunWorkflowId(runId));
    const execution = await suite.db('warp_executions').where({ id: result.executionId }).first();
    expect(execution).toMatchObject({ warp: 'artifact-create', status: 'succeeded', agent_id: suite.team.agentId });

    // A second start of the SAME id after the first closed (a replayed delivery) is refused:
    // no second workflow runs, and the first's result stands.
    const gateway = {
      taskQueue,
      call: <T>(fn: (c: typeof suite.env.client) => Promise<T>) => fn(suite.env.client),
    } as unknown as TemporalGateway;
    const before = await suite.env.client.workflow.getHandle(hookRunWorkflowId(runId)).describe();
    await startHookRun(gateway, { id: runId, slug: suite.team.slug });
    const after = await suite.env.client.workflow.getHandle(hookRunWorkflowId(runId)).describe();
    expect(after.runId).toBe(before.runId);
    expect(await suite.env.client.workflow.getHandle(hookRunWorkflowId(runId)).result()).toEqual(result);
    const made = await suite.db('artifacts').where({ team_id: suite.team.teamId, title: 'From the workflow' });
    expect(made).toHaveLength(1);
  });

  async function inboundRun(source: string, title: string) {
    const ctx = appContext(suite.db);
    const { hook } = await createHook(ctx, suite.team.teamId, suite.team.agentId, null, {
      source: 'inbound',
      event: source,
      warp: 'artifact-create',
      inputs: { type: 'offer' },
      mapping: { title: '$.title' },
    });
    const row = await suite.db('hooks').where({ id: hook.id }).first();
    const [runId] = await queueInboundHookRuns(suite.db, [row], `${source}:d1`, { title });
    await suite.db('hook_runs').where({ id: runId }).update({ workflow_started_at: suite.db.fn.now() });
    return runId;
  }
  const artifactsTitled = (title: string) =>
    suite.db('artifacts').where({ team_id: suite.team.teamId, title }).select('id');

  it('a 5xx mid-warp is retried, and the retry runs the warp once: an inline warp commits with its record or not at all', async () => {
    const ctx = appContext(suite.db);
    const runId = await inboundRun('wf-src-5xx', 'Maybe made');
    // The executor meets a 5xx (Temporal or the database away) while the warp runs.
    const failing = Object.defineProperty({ ...ctx }, 'config', {
      get: () => {
        throw new AppError('temporal_unavailable', 'Temporal did not answer');
      },
    }) as typeof ctx;
    await expect(runHook(failing, runId)).rejects.toMatchObject({ status: 503 });
    expect((await suite.db('hook_runs').where({ id: runId }).first()).status).toBe('running');
    // The activity's retry: the same run, the same execution id, one artifact.
    const result = await runHook(ctx, runId);
    expect(result).toEqual({ status: 'succeeded', executionId: hookRunExecutionId(runId) });
    expect(await artifactsTitled('Maybe made')).toHaveLength(1);
    expect(await suite.db('warp_executions').where({ id: hookRunExecutionId(runId) })).toHaveLength(1);
  });

  it('a worker that died after the warp committed but before the run was settled: the retry finds the execution and makes nothing twice', async () => {
    const ctx = appContext(suite.db);
    const runId = await inboundRun('wf-src-crash', 'Made once');
    const first = await runHook(ctx, runId);
    expect(first.status).toBe('succeeded');
    // What such a crash leaves: the warp's writes and its execution committed, the run still running.
    await suite.db('hook_runs').where({ id: runId }).update({ status: 'running', execution_id: null });
    expect(await runHook(ctx, runId)).toEqual(first);
    expect(await artifactsTitled('Made once')).toHaveLength(1);
    expect((await suite.db('hook_runs').where({ id: runId }).first()).status).toBe('succeeded');
  });

  it('a retried run of a sensitive warp in manual mode finds the approval its first attempt opened', async () => {
    const ctx = appContext(suite.db);
    const artifact = await createArtifact(
      suite.db,
      suite.team.teamId,
      { type: 'offer', title: 'Keep me', status: 'draft' },
      'http://x',
    );
    await suite.db('agents').where({ id: suite.team.agentId }).update({ mode: 'manual' });
    try {
      const { hook } = await createHook(ctx, suite.team.teamId, suite.team.agentId, null, {
        source: 'inbound',
        event: 'wf-src-manual',
        warp: 'artifact-delete',
        inputs: { artifactId: artifact.id },
        mapping: {},
      });
      const row = await suite.db('hooks').where({ id: hook.id }).first();
      const [runId] = await queueInboundHookRuns(suite.db, [row], 'wf-src-manual:d1', {});
      await suite.db('hook_runs').where({ id: runId }).update({ workflow_started_at: suite.db.fn.now() });
      const first = await runHook(ctx, runId);
      expect(first).toEqual({ status: 'succeeded', executionId: hookRunExecutionId(runId) });
      await suite.db('hook_runs').where({ id: runId }).update({ status: 'running', execution_id: null });
      expect(await runHook(ctx, runId)).toEqual(first);
      const executions = await suite
        .db('warp_executions')
        .where({ team_id: suite.team.teamId, warp: 'artifact-delete' })
        .select('id', 'status');
      expect(executions).toEqual([{ id: first.executionId, status: 'pending_approval' }]);
      expect(await suite.db('artifacts').where({ id: artifact.id })).toHaveLength(1);
    } finally {
      await suite.db('agents').where({ id: suite.team.agentId }).update({ mode: 'auto' });
    }
  });

  it('a run whose activity fails for good is settled failed by the workflow, never left running', async () => {
    const runId = await inboundRun('wf-src-outage', 'Never made');
    outage.add(runId);
    const result = await run(runId);
    expect(result).toEqual({ status: 'failed', executionId: null });
    recordHistory(suite.env, 'hook-run-failed', hookRunWorkflowId(runId));
    const row = await suite.db('hook_runs').where({ id: runId }).first();
    expect(row.status).toBe('failed');
    expect(row.error).toMatchObject({
      error: { code: 'internal_error', message: expect.stringContaining('database away') },
    });
    expect(await artifactsTitled('Never made')).toHaveLength(0);
  });
});
