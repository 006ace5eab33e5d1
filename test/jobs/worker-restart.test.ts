import type { Db } from '../../db/knex';
import { startWorkerProcess, WorkerProcess } from '../setup/stack';
import { apiClient, newTeam, startTestApi, temporalClient, testDb, waitForJob } from '../support/helpers';

/**
 * A worker process is killed (SIGKILL, as in a crash) in the middle of a 100 000-row import and
 * another one is started. The job still succeeds, every row is imported exactly once, and the
 * workflow history stays small (batched activities, not one per row).
 */
describe('a worker that dies mid-import', () => {
  const taskQueue = `restart-${process.pid}`;
  let db: Db;
  let server: Awaited<ReturnType<typeof startTestApi>>;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    db = testDb();
    server = await startTestApi(db, { TEMPORAL_TASK_QUEUE: taskQueue, IMPORT_BATCH_SIZE: '2000' });
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await server.close();
    await db.destroy();
  });

  it('resumes on a new worker; 100 000 rows imported, none twice', async () => {
    const env = { TEMPORAL_TASK_QUEUE: taskQueue };
    workers.push(await startWorkerProcess(env));
    const team = await newTeam(db, 'restart');
    const api = apiClient(server.baseUrl, team);
    const total = 100_000;
    const rows = Array.from({ length: total }, (_, i) => ({
      name: `Person ${i}`,
      email: `person${i}@example.com`,
      company: `Company ${i % 97}`,
    }));

    const accepted = await api.post('/jobs', { type: 'contacts.import', input: { rows } });
    expect(accepted.status).toBe(202);
    const jobId = accepted.body.jobId;

    const midway = await waitForJob(api, jobId, { timeoutMs: 120_000, done: (j) => j.progress?.completed >= 10_000 });
    expect(midway.status).toBe('running');
    await workers[0].kill();
    const importedAtCrash = Number((await db('contacts').where({ import_job_id: jobId }).count({ n: '*' }))[0].n);
    expect(importedAtCrash).toBeLessThan(total);

    workers.push(await startWorkerProcess(env));
    const job = await waitForJob(api, jobId, { timeoutMs: 180_000 });
    expect(job.status).toBe('succeeded');
    expect(job.result).toEqual({
      total,
      imported: total,
      duplicates: 0,
      failed: 0,
      errors: [],
      errorsTruncated: false,
    });

    const [{ contacts, emails, rowsSeen }] = await db('contacts')
      .where({ team_id: team.teamId })
      .select(
        db.raw('count(*)::int AS contacts'),
        db.raw('count(DISTINCT lower(email))::int AS emails'),
        db.raw('count(DISTINCT import_row)::int AS "rowsSeen"'),
      );
    expect({ contacts, emails, rowsSeen }).toEqual({ contacts: total, emails: total, rowsSeen: total });

    const client = await temporalClient();
    try {
      const description = await client.workflow.getHandle(`job-${jobId}`).describe();
      // 50 batches of 2 000 rows: a handful of events per batch, far below Temporal's 50 000 limit.
      expect(description.historyLength).toBeLessThan(50 * 8 + 40);
      process.stdout.write(
        `[worker-restart] imported ${importedAtCrash} rows before the kill; history length ${description.historyLength}\n`,
      );
    } finally {
      await client.connection.close();
    }
  });
});
