import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { Db } from '../../db/knex';
import type { RunningServer } from '../../server';
import { newId } from '../../db/ids';
import { DevServer, startDevServer } from '../../temporal/devServer';
import { freePort } from '../../temporal/freePort';
import { cohortWorkflowId, type CohortResult } from '../../workflows/contracts/cohort';
import { FakeProviderServer } from '../fakes/providerServer';
import { startWorkerProcess, WorkerProcess } from '../setup/stack';
import { apiClient, ApiClient, newTeam, sleep, startTestApi } from '../support/helpers';
import { privateDatabase, type PrivateDatabase } from '../support/ownDatabase';

/**
 * Exactly once under faults (docs/AUTOMATIONS.md › Cohorts › Exactly once): 10 000 contacts
 * enrolled together in a wait → email over SMTP → wait journey. The worker is SIGKILLed twice
 * while the cohort sends and the Temporal server (its state in a SQLite file, as `npm start`
 * keeps it) is restarted after that. Every member gets exactly one message; the only repeats are
 * sends a kill caught between the server's answer and the chunk's record, each with its first
 * copy's Message-ID (derived from the key `automation:<enrollmentId>:<step>`); every enrollment
 * completes, and the cohort's counts, the step rows and the message log add up.
 */
describe('a 10 000-member journey through two worker kills and a Temporal restart', () => {
  const total = 10_000;
  /** The SMTP pool's default: 20 connections, two sends each in flight; chunks of 400 recorded per statement. */
  const IN_FLIGHT = 40;
  const CHUNK = 400;
  const taskQueue = `cohort-faults-${process.pid}`;
  const dbFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tap-cohort-')), 'temporal.db');
  let port: number;
  let temporal: DevServer;
  const workers: WorkerProcess[] = [];
  let db: Db;
  let own: PrivateDatabase;
  let server: RunningServer & { baseUrl: string };
  let fake: FakeProviderServer;
  let api: ApiClient;
  let env: Record<string, string>;
  const startTemporal = () => startDevServer({ cliPath: process.env.TEMPORAL_CLI_PATH!, port, uiPort: null, dbFile });
  const startWorker = async () => workers.push(await startWorkerProcess(env));

  beforeAll(async () => {
    port = await freePort();
    temporal = await startTemporal();
    // A database of its own: the worker's dispatcher, on this Temporal server, must form no other suite's journeys.
    own = await privateDatabase('cfault');
    db = own.db;
    env = { TEMPORAL_ADDRESS: temporal.address, TEMPORAL_TASK_QUEUE: taskQueue, DATABASE_URL: own.databaseUrl };
    await startWorker();
    server = await startTestApi(db, env);
    fake = await new FakeProviderServer().start();
  });
  afterAll(async () => {
    for (const worker of workers) await worker.stop().catch(() => undefined);
    await server?.close();
    await fake?.stop();
    await temporal?.stop();
    await own?.drop();
  });

  it('every member gets one email; repeats only among the sends in flight, with the first copy’s Message-ID', async () => {
    const team = await newTeam(db, 'cfault');
    api = apiClient(server.baseUrl, team);
    await api.call('PUT', `/agents/${team.agentId}/integrations/email`, {
      provider: 'smtp',
      config: { host: '127.0.0.1', port: fake.smtpPort },
      from: 'journeys@acme.example',
    });
    const automation = (
      await api.post('/automations', {
        name: 'Welcome, under faults',
        trigger: { kind: 'inbound', source: 'faults' },
        steps: [
          { type: 'wait', duration: '2s' },
          {
            type: 'send',
            channel: 'email',
            subject: 'Welcome {{first}}',
            content: 'Hello {{first}}',
            templateParams: { first: 'contact.firstName' },
          },
          { type: 'wait', duration: '8s' },
        ],
      })
    ).body;
    const contacts = Array.from({ length: total }, (_, i) => ({
      id: newId('ct'),
      team_id: team.teamId,
      name: `Person ${i}`,
      first_name: 'Person',
      email: `member${i}@faults.example`,
      marketing_consent: 'granted',
    }));
    for (let i = 0; i < total; i += 5000) await db('contacts').insert(contacts.slice(i, i + 5000));
    const enrolled = await api.post(`/automations/${automation.id}/enrollments`, {
      contactIds: contacts.map((c) => c.id),
    });
    expect(enrolled.body).toEqual({
      automationId: automation.id,
      enrolled: total,
      alreadyEnrolled: 0,
      unknownContactIds: [],
    });
    const cohorts = await db('automation_cohorts').where({ automation_id: automation.id });
    expect(cohorts).toEqual([expect.objectContaining({ member_count: total, start_step: 0 })]);

    const faults: string[] = [];
    for (const fraction of [0.2, 0.5]) {
      while (fake.messages.size < total * fraction) await sleep(20);
      await workers[workers.length - 1].kill();
      faults.push(`worker SIGKILLed after ${fake.messages.size} messages`);
      await startWorker();
    }
    while (fake.messages.size < total * 0.75) await sleep(20);
    const enrollments = () => db('automation_enrollments').where({ automation_id: automation.id });
    const [{ n: activeAtRestart }] = await enrollments().where({ status: 'active' }).count({ n: '*' });
    await temporal.stop();
    faults.push(`Temporal stopped after ${fake.messages.size} messages, ${activeAtRestart} journeys under way`);
    // Mid-journey: the cohort still sends, or waits on its last timer.
    expect(Number(activeAtRestart)).toBe(total);
    await sleep(1000);
    temporal = await startTemporal();

    for (let i = 0; i < 1200; i++) {
      const [{ n }] = await enrollments().where({ status: 'active' }).count({ n: '*' });
      if (Number(n) === 0) break;
      await sleep(250);
    }
    const statuses = await enrollments().groupBy('status').select('status').count({ n: '*' });
    expect(statuses.map((s) => ({ ...s, n: Number(s.n) }))).toEqual([{ status: 'completed', n: total }]);

    const received = [...fake.messages.values()].filter((m) => m.to.endsWith('@faults.example'));
    // The fake keeps one message per key (Message-ID): one per member, none missing.
    expect(received).toHaveLength(total);
    expect(new Set(received.map((m) => m.to)).size).toBe(total);
    const repeated = received.filter((m) => m.duplicates > 0);
    const repeats = repeated.reduce((sum, m) => sum + m.duplicates, 0);
    for (const m of repeated) {
      // The key `automation:<enrollmentId>:1`, spelled as a Message-ID (channels/providers.ts).
      expect(m.messageId).toMatch(/^<automation\.enr_[0-9a-z]+\.1@acme\.example>$/);
      expect(m.repeatMessageIds).toEqual(Array(m.duplicates).fill(m.messageId));
    }
    // What a fault can repeat, as for a campaign: the sends on the pool, and the answers of up to two
    // chunks not yet recorded (a Temporal outage can have a second attempt start beside the first).
    const bound = faults.length * (IN_FLIGHT + 2 * CHUNK);
    expect(repeats).toBeLessThanOrEqual(bound);

    const runs = await db('automation_step_runs as r')
      .join('automation_enrollments as e', 'e.id', 'r.enrollment_id')
      .where({ 'e.automation_id': automation.id })
      .groupBy('r.step', 'r.status')
      .select('r.step', 'r.status')
      .count({ n: '*' });
    expect(runs.map((r) => ({ ...r, n: Number(r.n) }))).toEqual([{ step: 1, status: 'sent', n: total }]);
    const [{ n: messages }] = await db('outbound_messages')
      .where({ team_id: team.teamId, source_kind: 'automation', status: 'sent' })
      .count({ n: '*' });
    expect(Number(messages)).toBe(total);

    const connection = await Connection.connect({ address: temporal.address });
    try {
      const handle = new Client({ connection }).workflow.getHandle(cohortWorkflowId(cohorts[0].id));
      const result: CohortResult = await handle.result();
      expect(result).toEqual({
        step: 3,
        steps: [
          { step: 0, kind: 'wait', entered: total, outcomes: { movedOn: total } },
          { step: 1, kind: 'send', entered: total, outcomes: { sent: total } },
          { step: 2, kind: 'wait', entered: total, outcomes: { movedOn: total } },
        ],
      });
      const { historyLength } = await handle.describe();
      process.stdout.write(
        `[cohort-faults] ${total} members over SMTP; ${faults.join('; ')}; messages per member: all 1; ` +
          `repeats (same Message-ID): ${repeats} across ${repeated.length} members (bound ${bound}); ` +
          `enrollments completed ${total}; cohort history ${historyLength} events\n`,
      );
    } finally {
      await connection.close();
    }
  }, 420_000);
});
