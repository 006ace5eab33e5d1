import { createHookActivities } from '../../activities/hooks';
import { loadConfig } from '../../config';
import { createLogger } from '../../logger';
import { createHook } from '../../services/hooks/hooks';
import { queueInboundHookRuns, startHookRun } from '../../services/hooks/hookRuns';
import type { TemporalGateway } from '../../temporal/client';
import { buildAppContext } from '../../services/platform/context';
import { hookRunWorkflowId, hookRunWorkflowName, type HookRunResult } from '../../workflows/contracts/hookRun';
import { AppError } from '../../services/platform/errors';
import { runHook } from '../../services/hooks/runHook';
import { recordHistory, useWorkflowSuite } from '../support/helpers';

/** `hook-run-<runId>` on the Temporal test environment with its real activity and Postgres. RECORD_HISTORIES=1 saves its history. */
describe('hookRunWorkflow on the Temporal test environment', () => {
  const taskQueue = 'hook-run-unit';
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
  const appContext = (db: Parameters<typeof buildAppContext>[1]) =>
    buildAppContext(config, db, createLogger('silent', 'worker'));
  const suite = useWorkflowSuite('wfhookrun', taskQueue, (db) => createHookActivities({ appContext: appContext(db) }));

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
    await startHookRun(gateway, runId);
    const after = await suite.env.client.workflow.getHandle(hookRunWorkflowId(runId)).describe();
    expect(after.runId).toBe(before.runId);
    expect(await suite.env.client.workflow.getHandle(hookRunWorkflowId(runId)).result()).toEqual(result);
    const made = await suite.db('artifacts').where({ team_id: suite.team.teamId, title: 'From the workflow' });
    expect(made).toHaveLength(1);
  });

  it('a 5xx from the warp after the claim ends the run failed with the error; the warp is not run again', async () => {
    const ctx = appContext(suite.db);
    const { hook } = await createHook(ctx, suite.team.teamId, suite.team.agentId, null, {
      source: 'inbound',
      event: 'wf-src-5xx',
      warp: 'artifact-create',
      inputs: { type: 'offer' },
      mapping: { title: '$.title' },
    });
    const row = await suite.db('hooks').where({ id: hook.id }).first();
    const [runId] = await queueInboundHookRuns(suite.db, [row], 'wf-src-5xx:d1', { title: 'Maybe sent' });
    await suite.db('hook_runs').where({ id: runId }).update({ workflow_started_at: suite.db.fn.now() });
    // The warp takes effect (its artifact), then the executor meets a 5xx (as an ambiguous
    // answer from Temporal after a send started would be).
    const failing = Object.defineProperty({ ...ctx }, 'config', {
      get: () => {
        throw new AppError(503, 'unavailable', 'Temporal did not answer');
      },
    }) as typeof ctx;
    expect(await runHook(failing, runId)).toEqual({ status: 'failed', executionId: null });
    // A retried activity finds the run settled and runs nothing.
    expect(await runHook(ctx, runId)).toEqual({ status: 'failed', executionId: null });
    const made = await suite.db('artifacts').where({ team_id: suite.team.teamId, title: 'Maybe sent' });
    expect(made.length).toBeLessThanOrEqual(1);
    const after = await suite.db('hook_runs').where({ id: runId }).first();
    expect(after.status).toBe('failed');
    expect(after.error).toMatchObject({ error: { code: 'unavailable' } });
  });
});
