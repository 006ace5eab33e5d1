import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { createJobActivities } from '../../services/jobs/activities';
import { newId } from '../../db/ids';
import { contactRowValues } from '../../services/contacts/contacts';
import { storeJobRows } from '../../services/jobs/jobs';
import { LocalDiskStorage } from '../../services/media/storage';
import {
  JobProgress,
  JobWorkflow,
  jobWorkflowName,
  JobWorkflowArgs,
  progress as progressQuery,
} from '../../workflows/contracts/job';
import { recordHistory, sleep, useWorkflowSuite } from '../support/helpers';

/**
 * The job workflow on the Temporal test environment (a local dev server started from the project's
 * CLI binary; the time-skipping server cannot be had here), with the real activities and Postgres.
 * RECORD_HISTORIES=1 saves the histories that the replay test checks determinism against.
 */
describe('jobWorkflow on the Temporal test environment', () => {
  const taskQueue = 'workflow-unit';
  const storageDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tap-media-'));
  const suite = useWorkflowSuite('wf', taskQueue, (db) =>
    createJobActivities({ db, storage: new LocalDiskStorage(storageDir) }),
  );

  async function insertJob(
    type: JobWorkflowArgs['type'],
    input: Record<string, unknown>,
    rows?: { rows: unknown[]; batchSize: number },
  ): Promise<string> {
    const id = newId('job');
    await suite.db('jobs').insert({
      id,
      team_id: suite.team.teamId,
      type,
      input: JSON.stringify(rows ? { rowCount: rows.rows.length } : input),
      workflow_id: `job-${id}`,
    });
    if (rows) await storeJobRows(suite.db, id, rows.rows, rows.batchSize);
    return id;
  }

  it('imports in batches, continuing as new, and reports the same totals as one run would', async () => {
    const rows = Array.from({ length: 60 }, (_, i) =>
      i === 7 ? { email: 'broken' } : { name: `Wf ${i}`, email: `wf${i}@example.com` },
    );
    rows.push({ name: 'Dup', email: 'wf3@example.com' });
    const jobId = await insertJob('contacts.import', {}, { rows, batchSize: 5 });
    const workflowId = `job-${jobId}`;
    const result = await suite.env.client.workflow.execute<JobWorkflow>(jobWorkflowName, {
      taskQueue,
      workflowId,
      args: [{ jobId, type: 'contacts.import', importBatchSize: 5, continueAfterEvents: 20 }],
    });
    expect(result).toEqual({
      total: 61,
      imported: 59,
      duplicates: 1,
      failed: 1,
      errorsTruncated: false,
      errors: [{ index: 7, field: 'email', message: 'email: Invalid email address' }],
    });
    const runs = [];
    for await (const run of suite.env.client.workflow.list({ query: `WorkflowId = "${workflowId}"` }))
      runs.push(run.status.name);
    expect(runs.length).toBeGreaterThan(1);
    expect(runs.filter((s) => s === 'CONTINUED_AS_NEW')).toHaveLength(runs.length - 1);
    const row = await suite.db('jobs').where({ id: jobId }).first();
    expect(row.status).toBe('succeeded');
    expect(row.result.imported).toBe(59);
    expect(await suite.db('contacts').where({ import_job_id: jobId }).count({ n: '*' })).toEqual([{ n: 59 }]);
  });

  it('answers the progress query while it runs', async () => {
    const rows = Array.from({ length: 400 }, (_, i) => ({ email: `progress-wf${i}@example.com` }));
    const jobId = await insertJob('contacts.import', {}, { rows, batchSize: 10 });
    const handle = await suite.env.client.workflow.start<JobWorkflow>(jobWorkflowName, {
      taskQueue,
      workflowId: `job-${jobId}`,
      args: [{ jobId, type: 'contacts.import', importBatchSize: 10 }],
    });
    const seen: JobProgress[] = [];
    while (seen.length < 200) {
      const progress = await handle.query(progressQuery);
      seen.push(progress);
      if (progress.phase === 'importing' && progress.completed > 0) break;
      await sleep(20);
    }
    const last = seen[seen.length - 1];
    expect(last).toMatchObject({ phase: 'importing', total: 400 });
    expect(last.completed).toBeGreaterThan(0);
    await handle.result();
    expect(await handle.query(progressQuery)).toEqual({ phase: 'finishing', completed: 400, total: 400 });
    recordHistory(suite.env, 'contacts-import', handle.workflowId);
  });

  it('marks the job failed with job_cancelled when cancelled, and the workflow ends cancelled', async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => ({ email: `cancel-wf${i}@example.com` }));
    const jobId = await insertJob('contacts.import', {}, { rows, batchSize: 10 });
    const handle = await suite.env.client.workflow.start<JobWorkflow>(jobWorkflowName, {
      taskQueue,
      workflowId: `job-${jobId}`,
      args: [{ jobId, type: 'contacts.import', importBatchSize: 10 }],
    });
    while ((await handle.query(progressQuery)).completed === 0) await sleep(20);
    await handle.cancel();
    await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    const row = await suite.db('jobs').where({ id: jobId }).first();
    expect(row.status).toBe('failed');
    expect(row.error).toEqual({
      error: { code: 'job_cancelled', message: 'The job was cancelled by an operator before it finished' },
    });
    recordHistory(suite.env, 'contacts-import-cancelled', handle.workflowId);
  });

  it('fails the job with the cause when the input can no longer be used (no retries)', async () => {
    const jobId = await insertJob('knowledge.ingest', {
      agentId: '00000000-0000-4000-8000-000000000000',
      title: 'Gone',
      text: 'Some text.',
      chunkSize: 1200,
      chunkOverlap: 150,
    });
    const handle = await suite.env.client.workflow.start<JobWorkflow>(jobWorkflowName, {
      taskQueue,
      workflowId: `job-${jobId}`,
      args: [{ jobId, type: 'knowledge.ingest', importBatchSize: 10 }],
    });
    await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    const row = await suite.db('jobs').where({ id: jobId }).first();
    expect(row.status).toBe('failed');
    expect(row.error.error).toEqual({
      code: 'job_failed',
      message: 'Agent 00000000-0000-4000-8000-000000000000 no longer exists',
    });
  });

  /** What an operator sees in the history: the activities scheduled, and how many local activities ran. */
  async function activitiesOf(workflowId: string) {
    const { events } = await suite.env.client.workflow.getHandle(workflowId).fetchHistory();
    return {
      scheduled: (events ?? []).flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []),
      localActivities: (events ?? []).filter(
        (e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity',
      ).length,
    };
  }

  /** Every event of a run's history, in order, named by its attributes (`workflowTaskCompleted`). */
  async function eventTypesOf(workflowId: string) {
    const { events } = await suite.env.client.workflow.getHandle(workflowId).fetchHistory();
    return (events ?? []).map((e) =>
      (Object.keys(e).find((key) => key.endsWith('EventAttributes')) ?? '?').replace(/EventAttributes$/, ''),
    );
  }

  it('exports contacts that do not fit in one page as an activity, page by page, every one of them', async () => {
    const tag = `bulk-${Date.now()}`;
    const rows = Array.from({ length: 5_001 }, (_, i) => ({
      id: newId('ct'),
      team_id: suite.team.teamId,
      ...contactRowValues({ name: `Bulk ${i}`, email: `bulk${i}-${tag}@example.com`, tags: [tag] }),
    }));
    for (let i = 0; i < rows.length; i += 1_000) await suite.db('contacts').insert(rows.slice(i, i + 1_000));
    const jobId = await insertJob('contacts.export', { tags: [tag] });
    const exported = await suite.env.client.workflow.execute<JobWorkflow>(jobWorkflowName, {
      taskQueue,
      workflowId: `job-${jobId}`,
      args: [{ jobId, type: 'contacts.export', importBatchSize: 10, onePageExportFirst: true }],
    });
    expect(exported).toMatchObject({ mediaId: `med_${jobId.slice(4)}`, rowCount: 5_001 });
    // The one-page try read one row too many and gave up; the activity wrote the file.
    expect(await activitiesOf(`job-${jobId}`)).toEqual({ scheduled: ['exportContacts'], localActivities: 2 });
    expect(await suite.db('jobs').where({ id: jobId }).first('status', 'result')).toEqual({
      status: 'succeeded',
      result: exported,
    });
    const media = await suite.db('media').where({ id: exported.mediaId }).first('storage_key', 'size_bytes');
    const csv = fs.readFileSync(path.join(storageDir, media.storage_key), 'utf8');
    const lines = csv.trim().split('\n');
    expect(lines).toHaveLength(5_002);
    expect(lines[0]).toMatch(/^id,name,/);
    expect(new Set(lines.slice(1).map((l) => l.split(',')[0]))).toEqual(new Set(rows.map((r) => r.id)));
    expect(Buffer.byteLength(csv)).toBe(Number(media.size_bytes));
    // The other exports here are of the whole team, which fits in one page without these.
    await suite.db('contacts').where({ team_id: suite.team.teamId }).whereRaw('? = ANY(tags)', [tag]).delete();
  });

  it('runs an export started without onePageExportFirst (as before it existed) the same way, by its patch marker', async () => {
    const exportId = await insertJob('contacts.export', {});
    const exported = await suite.env.client.workflow.execute<JobWorkflow>(jobWorkflowName, {
      taskQueue,
      workflowId: `job-${exportId}`,
      args: [{ jobId: exportId, type: 'contacts.export', importBatchSize: 10 }],
    });
    expect(exported).toMatchObject({ mediaId: `med_${exportId.slice(4)}`, rowCount: expect.any(Number) });
    expect(await activitiesOf(`job-${exportId}`)).toEqual({ scheduled: [], localActivities: 1 });
    const { events } = await suite.env.client.workflow.getHandle(`job-${exportId}`).fetchHistory();
    expect((events ?? []).map((e) => e.markerRecordedEventAttributes?.markerName).filter(Boolean)).toEqual([
      'core_patch',
      'core_local_activity',
    ]);
    expect(await suite.db('jobs').where({ id: exportId }).first('status')).toEqual({ status: 'succeeded' });
    recordHistory(suite.env, 'contacts-export-by-patch', `job-${exportId}`);
  });

  it('exports and ingests through the same workflow', async () => {
    const exportId = await insertJob('contacts.export', {});
    const exported = await suite.env.client.workflow.execute<JobWorkflow>(jobWorkflowName, {
      taskQueue,
      workflowId: `job-${exportId}`,
      args: [{ jobId: exportId, type: 'contacts.export', importBatchSize: 10, onePageExportFirst: true }],
    });
    expect(exported).toMatchObject({ mediaId: `med_${exportId.slice(4)}`, contentType: 'text/csv' });
    // Contacts that fit in one page: the whole job is one local activity in the workflow task, and
    // nothing else is recorded (no patch marker, no search-attribute upsert for the server to index).
    expect(await eventTypesOf(`job-${exportId}`)).toEqual([
      'workflowExecutionStarted',
      'workflowTaskScheduled',
      'workflowTaskStarted',
      'workflowTaskCompleted',
      'markerRecorded',
      'workflowExecutionCompleted',
    ]);
    expect(await activitiesOf(`job-${exportId}`)).toEqual({ scheduled: [], localActivities: 1 });
    const job = await suite.db('jobs').where({ id: exportId }).first('status', 'result', 'started_at', 'finished_at');
    expect(job).toMatchObject({ status: 'succeeded', result: exported });
    expect(job.started_at.getTime()).toBeLessThanOrEqual(job.finished_at.getTime());
    recordHistory(suite.env, 'contacts-export', `job-${exportId}`);

    const ingestId = await insertJob('knowledge.ingest', {
      agentId: suite.team.agentId,
      title: 'Doc',
      text: 'One. Two. Three.',
      chunkSize: 1200,
      chunkOverlap: 150,
    });
    const ingested = await suite.env.client.workflow.execute<JobWorkflow>(jobWorkflowName, {
      taskQueue,
      workflowId: `job-${ingestId}`,
      args: [{ jobId: ingestId, type: 'knowledge.ingest', importBatchSize: 10 }],
    });
    expect(ingested).toEqual({
      documentId: `kd_${ingestId.slice(4)}`,
      agentId: suite.team.agentId,
      title: 'Doc',
      chunkCount: 1,
      charCount: 16,
    });
    recordHistory(suite.env, 'knowledge-ingest', `job-${ingestId}`);
  });
});
