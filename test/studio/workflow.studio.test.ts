import { createStudioActivities } from '../../services/studio/activities';
import { loadConfig } from '../../config';
import { createLogger } from '../../logger';
import { AppContext, buildAppContext } from '../../services/platform/context';
import { studioSend } from '../../services/studio/sessions';
import {
  progress,
  studioProduceWorkflowId,
  studioProduceWorkflowName,
  StudioProduceWorkflow,
} from '../../workflows/contracts/studioProduce';
import { FakeModelServer, startModelServer } from '../fakes/modelServer';
import { recordHistory, useWorkflowSuite } from '../support/helpers';

/**
 * studio-produce-<sessionId>:<n> on the Temporal test environment with its real activities,
 * Postgres and the fake model over HTTP. RECORD_HISTORIES=1 saves the replay histories.
 */
describe('the studio-produce workflow on the Temporal test environment', () => {
  const taskQueue = 'studio-unit';
  let appContext: AppContext;
  let fake: FakeModelServer;
  const suite = useWorkflowSuite(
    'wfstudio',
    taskQueue,
    (db) => {
      appContext = buildAppContext(
        loadConfig({ ...process.env, LOG_LEVEL: 'silent' }),
        db,
        createLogger('silent', 'worker'),
      );
      return createStudioActivities({ appContext });
    },
    async (db, team) => {
      fake = await startModelServer();
      await db('agents').where({ id: team.agentId }).update({ model_base_url: fake.url, model_name: 'fake-model' });
    },
  );
  afterAll(() => fake?.close());

  async function production(brief: string) {
    const sent = await studioSend(suite.db, suite.team.teamId, suite.team.agentId, suite.team.userId, {
      message: brief,
    });
    const id = `${sent.session.id}:1`;
    await suite.db('studio_productions').insert({
      id,
      session_id: sent.session.id,
      n: 1,
      through_seq: 1,
      workflow_id: studioProduceWorkflowId(id),
    });
    return id;
  }
  const start = (productionId: string) =>
    suite.env.client.workflow.start<StudioProduceWorkflow>(studioProduceWorkflowName, {
      taskQueue,
      workflowId: studioProduceWorkflowId(productionId),
      args: [{ productionId }],
    });

  it('asks the model once and records the draft', async () => {
    const id = await production('A short concept for a bakery.');
    fake.script({ text: '# Bakery concept' });
    const handle = await start(id);
    expect(await handle.result()).toEqual({ status: 'succeeded' });
    expect(await handle.query(progress)).toEqual({ status: 'succeeded' });
    recordHistory(suite.env, 'studio-produce', handle.workflowId);
    expect(await suite.db('studio_productions').where({ id }).first()).toMatchObject({
      status: 'succeeded',
      result: '# Bakery concept',
      generated: true,
    });
    expect(fake.requests).toHaveLength(1);
  });

  it('a model that refuses (401) fails the production at once, with its error', async () => {
    fake.reset();
    const id = await production('Another brief.');
    fake.script({ status: 401, errorMessage: 'bad key' });
    const handle = await start(id);
    expect(await handle.result()).toEqual({ status: 'failed' });
    recordHistory(suite.env, 'studio-produce-refused', handle.workflowId);
    const row = await suite.db('studio_productions').where({ id }).first();
    expect(row).toMatchObject({ status: 'failed', error: { error: { code: 'model_error' } } });
    expect(fake.requests).toHaveLength(1);
  });
});
