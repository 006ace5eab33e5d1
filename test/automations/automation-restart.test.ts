import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { Db } from '../../db/knex';
import type { RunningServer } from '../../server';
import { DevServer, startDevServer } from '../../temporal/devServer';
import { freePort } from '../../temporal/freePort';
import { cohortWorkflowId } from '../../workflows/contracts/cohort';
import { FakeProviderServer } from '../fakes/providerServer';
import { startWorkerProcess, WorkerProcess } from '../setup/stack';
import { apiClient, ApiClient, newTeam, sleep, startTestApi } from '../support/helpers';
import { privateDatabase, type PrivateDatabase } from '../support/ownDatabase';

/**
 * An enrollment waiting on its timer survives its worker SIGKILLed and the Temporal server
 * restarted (its state in a SQLite file, as `npm start` keeps it): once both are back, the
 * timer fires, the one email goes out once, and the journey completes.
 */
describe('an enrollment waiting on a timer, through a worker kill and a Temporal restart', () => {
  const taskQueue = `automation-restart-${process.pid}`;
  const dbFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tap-journey-')), 'temporal.db');
  let port: number;
  let temporal: DevServer;
  let worker: WorkerProcess;
  let db: Db;
  let own: PrivateDatabase;
  let server: RunningServer & { baseUrl: string };
  let fake: FakeProviderServer;
  let api: ApiClient;
  let env: Record<string, string>;
  const startTemporal = () => startDevServer({ cliPath: process.env.TEMPORAL_CLI_PATH!, port, uiPort: null, dbFile });

  beforeAll(async () => {
    port = await freePort();
    temporal = await startTemporal();
    // A database of its own: the worker's dispatcher, on this Temporal server, must form no other suite's journeys.
    own = await privateDatabase('jrestart');
    db = own.db;
    env = { TEMPORAL_ADDRESS: temporal.address, TEMPORAL_TASK_QUEUE: taskQueue, DATABASE_URL: own.databaseUrl };
    worker = await startWorkerProcess(env);
    server = await startTestApi(db, env);
    fake = await new FakeProviderServer().start();
    const team = await newTeam(db, 'jrestart');
    api = apiClient(server.baseUrl, team);
    await api.call('PUT', `/agents/${team.agentId}/integrations/email`, {
      provider: 'resend',
      config: { baseUrl: fake.baseUrl },
      secrets: { apiKey: 'k' },
      from: 'journeys@acme.example',
    });
  });
  afterAll(async () => {
    await worker?.stop();
    await server?.close();
    await fake?.stop();
    await temporal?.stop();
    await own?.drop();
  });

  it('the timer fires after both come back, and the email goes out once', async () => {
    const automation = (
      await api.post('/automations', {
        name: 'Restart-proof',
        trigger: { kind: 'inbound', source: 'restart' },
        steps: [
          { type: 'wait', duration: '12s' },
          { type: 'send', channel: 'email', subject: 'Still here', content: 'The timer survived.' },
          { type: 'wait', duration: '1s' },
        ],
      })
    ).body;
    const email = `restart-${Date.now()}@example.test`;
    const enrolled = await api.post(`/automations/${automation.id}/enrollments`, {
      email,
      name: 'Rae Start',
      marketingConsent: 'granted',
    });
    expect(enrolled.body).toMatchObject({ enrolled: true });
    const enrollmentId: string = enrolled.body.enrollmentId;
    const started = Date.now();
    await sleep(1500);

    await worker.kill();
    await temporal.stop();
    await sleep(1000);
    temporal = await startTemporal();
    worker = await startWorkerProcess(env);
    const restartedAfter = Date.now() - started;

    const url = `/automations/${automation.id}/enrollments/${enrollmentId}`;
    let enrollment: any;
    for (let i = 0; i < 240; i++) {
      enrollment = (await api.get(url)).body;
      if (enrollment.status !== 'active') break;
      await sleep(250);
    }
    expect(enrollment).toMatchObject({ status: 'completed', step: 3, steps: [{ step: 1, status: 'sent' }] });
    const sent = fake.byRecipient(email);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ subject: 'Still here', duplicates: 0 });
    // Not early: the timer held its 12 s across the restart.
    expect(sent[0].receivedAt - started).toBeGreaterThanOrEqual(12_000);

    const connection = await Connection.connect({ address: temporal.address });
    try {
      // The journey is its cohort's: one contact enrolled alone is a cohort of one.
      const { cohort_id: cohortId } = await db('automation_enrollments').where({ id: enrollmentId }).first('cohort_id');
      const handle = new Client({ connection }).workflow.getHandle(cohortWorkflowId(cohortId));
      expect(await handle.result()).toMatchObject({
        step: 3,
        steps: [
          { step: 0, entered: 1 },
          { step: 1, outcomes: { sent: 1 } },
          { step: 2, entered: 1 },
        ],
      });
      const description = await handle.describe();
      process.stdout.write(
        `[automation-restart] worker killed and Temporal restarted within ${restartedAfter} ms of the enrollment; ` +
          `email after ${sent[0].receivedAt - started} ms; history ${description.historyLength} events\n`,
      );
    } finally {
      await connection.close();
    }
  }, 120_000);
});
