import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDb, Db, migrateLatest } from '../../db/knex';
import { startDevServer, DevServer } from '../../temporal/devServer';
import { freePort } from '../../temporal/freePort';
import { FakeProviderServer } from '../fakes/providerServer';
import { apiClient, ApiClient, newTeam, sleep, startTestApi, waitForJob } from '../support/helpers';
import { privateDatabase, type PrivateDatabase } from '../support/ownDatabase';
import { startWorkerProcess, WorkerProcess } from '../setup/stack';
import type { RunningServer } from '../../server';
import { Client, Connection } from '@temporalio/client';
import { campaignWorkflowName, type CampaignWorkflow } from '../../workflows/contracts/campaign';

/**
 * The edges of an outage, on a Temporal server and a Postgres of the test's own that it stops and
 * freezes for real: a request answers 503 in the envelope within the deadline, names what is down,
 * and leaves nothing stranded: once the dependency is back, the same request works.
 */
const DEADLINE_MS = 2_000;
/** The deadline plus what the request itself costs on a loaded 2-core machine. */
const ANSWERED_WITHIN_MS = DEADLINE_MS + 2_500;

/** A client that honours 503 + Retry-After, as the envelope asks (the API reconnects within about two seconds). */
async function retryingWhileUnavailable<T extends { status: number }>(call: () => Promise<T>): Promise<T> {
  let res = await call();
  for (let i = 0; i < 20 && res.status === 503; i++) {
    await sleep(500);
    res = await call();
  }
  return res;
}

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await fn();
  return { value, ms: Date.now() - started };
}

describe('Temporal stopped or frozen', () => {
  const taskQueue = `faults-${process.pid}`;
  const dbFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tap-faults-')), 'temporal.db');
  let port: number;
  let temporal: DevServer;
  let worker: WorkerProcess;
  let db: Db;
  let own: PrivateDatabase;
  let server: RunningServer & { baseUrl: string };
  let fake: FakeProviderServer;
  let api: ApiClient;
  let teamId: string;
  let agentId: string;

  const startTemporal = () => startDevServer({ cliPath: process.env.TEMPORAL_CLI_PATH!, port, uiPort: null, dbFile });

  beforeAll(async () => {
    port = await freePort();
    temporal = await startTemporal();
    // A database of its own: the worker's dispatcher, on this Temporal server, must form no other suite's journeys.
    own = await privateDatabase('faults');
    db = own.db;
    const env = {
      DATABASE_URL: own.databaseUrl,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_TASK_QUEUE: taskQueue,
      TEMPORAL_REQUEST_TIMEOUT_MS: String(DEADLINE_MS),
    };
    worker = await startWorkerProcess(env);
    server = await startTestApi(db, env);
    fake = await new FakeProviderServer().start();
    const team = await newTeam(db, 'faults');
    teamId = team.teamId;
    agentId = team.agentId;
    api = apiClient(server.baseUrl, team);
    await api.call('PUT', `/agents/${team.agentId}/integrations/email`, {
      provider: 'resend',
      config: { baseUrl: fake.baseUrl },
      secrets: { apiKey: 'k' },
      from: 'news@acme.example',
    });
  });

  afterAll(async () => {
    try {
      process.kill(temporal.pid, 'SIGCONT');
    } catch {
      // already gone
    }
    await worker?.stop();
    await server?.close();
    await fake?.stop();
    await temporal?.stop();
    await own?.drop();
  });

  async function draftCampaign(tag: string) {
    for (const who of ['ada', 'alan', 'grace']) {
      const created = (
        await api.post('/contacts', { name: `${who} Example`, email: `${who}-${tag}@example.test`, tags: [tag] })
      ).body;
      expect((await api.call('PATCH', `/contacts/${created.id}`, { marketingConsent: 'granted' })).status).toBe(200);
    }
    const res = await api.post('/campaigns', {
      name: `Outage ${tag}`,
      channel: 'email',
      subject: 'Hi',
      content: 'Hello',
      tags: [tag],
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  }

  async function completed(campaignId: string) {
    for (let i = 0; i < 240; i++) {
      const campaign = (await api.get(`/campaigns/${campaignId}`)).body;
      if (campaign.status === 'completed' || campaign.status === 'failed') return campaign;
      await sleep(250);
    }
    throw new Error(`campaign ${campaignId} did not finish`);
  }

  it('stopped: a send answers 503 within the deadline, the campaign stays Draft, and sends once Temporal is back', async () => {
    const campaignId = await draftCampaign('stopped');
    await temporal.stop();

    const { value: res, ms } = await timed(() => api.post(`/campaigns/${campaignId}/send`, {}));
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('temporal_unavailable');
    expect(res.headers.get('retry-after')).toBe('5');
    expect(ms).toBeLessThan(ANSWERED_WITHIN_MS);
    expect((await api.get(`/campaigns/${campaignId}`)).body.status).toBe('draft');

    const exportJob = () =>
      api.post('/jobs', { type: 'contacts.export', input: {} }, { 'idempotency-key': 'export-in-outage' });
    const job = await timed(exportJob);
    expect(job.value.status).toBe(503);
    expect(job.value.body.error.code).toBe('temporal_unavailable');
    expect(job.ms).toBeLessThan(ANSWERED_WITHIN_MS);
    const jobId: string = job.value.body.error.details.jobId;

    const health = await timed(() => fetch(server.baseUrl.replace(/\/v1$/, '/healthz')));
    expect(health.ms).toBeLessThan(1_500);
    expect(health.value.status).toBe(503);
    expect(await health.value.json()).toMatchObject({ ok: false, db: true, temporal: false, down: ['temporal'] });

    temporal = await startTemporal();
    const again = await retryingWhileUnavailable(() => api.post(`/campaigns/${campaignId}/send`, {}));
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('sending');
    expect(await completed(campaignId)).toMatchObject({ status: 'completed', sentCount: 3, failedCount: 0 });
    const delivered = [...fake.messages.values()].filter((m) => m.to.endsWith('-stopped@example.test'));
    expect(delivered).toHaveLength(3);

    // The same request with the same key, once Temporal is back: the same job, started now, done once.
    const retried = await retryingWhileUnavailable(exportJob);
    expect(retried.status).toBe(202);
    expect(retried.body.jobId).toBe(jobId);
    expect(await waitForJob(api, jobId)).toMatchObject({ status: 'succeeded' });
    expect((await api.get('/jobs?type=contacts.export')).body.data).toHaveLength(1);
  });

  it('a run that starts late (its start timed out and the campaign was put back) stands down and sends nothing', async () => {
    const campaignId = await draftCampaign('late');
    const connection = await Connection.connect({ address: temporal.address });
    try {
      const client = new Client({ connection });
      // The campaign row is Draft at run 0: run 1 is what a timed-out start would have left behind.
      const result = await client.workflow.execute<CampaignWorkflow>(campaignWorkflowName, {
        workflowId: `campaign-${campaignId}-run-1`,
        taskQueue,
        args: [{ campaignId, teamId, run: 1, scheduledAt: null, retry: false, batchSize: 100 }],
      });
      expect(result).toEqual({ status: 'superseded' });
    } finally {
      await connection.close();
    }
    expect((await api.get(`/campaigns/${campaignId}`)).body).toMatchObject({ status: 'draft', recipientCount: 0 });
    expect([...fake.messages.values()].filter((m) => m.to.endsWith('-late@example.test'))).toHaveLength(0);
  });

  it('frozen (SIGSTOP): a send answers 503 within the deadline, and once thawed the campaign is sent exactly once', async () => {
    const campaignId = await draftCampaign('frozen');
    // The API's connection is open: the request reaches a server that never answers.
    expect((await api.get(`/campaigns/${campaignId}`)).status).toBe(200);
    process.kill(temporal.pid, 'SIGSTOP');
    try {
      const { value: res, ms } = await timed(() => api.post(`/campaigns/${campaignId}/send`, {}));
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('temporal_unavailable');
      expect(ms).toBeLessThan(ANSWERED_WITHIN_MS);
      expect((await api.get(`/campaigns/${campaignId}`)).body.status).toBe('draft');

      const health = await timed(() => fetch(server.baseUrl.replace(/\/v1$/, '/healthz')));
      expect(health.ms).toBeLessThan(1_500);
      expect(await health.value.json()).toMatchObject({ ok: false, temporal: false, down: ['temporal'] });
    } finally {
      process.kill(temporal.pid, 'SIGCONT');
    }

    // The thawed server may still carry out the start it received before the deadline: that run
    // finds the campaign back in Draft and stands down, or is the very run the repeated send
    // claims (same workflow id). Either way the repeat is accepted and each contact gets one message.
    const again = await api.post(`/campaigns/${campaignId}/send`, {});
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('sending');
    expect(await completed(campaignId)).toMatchObject({ status: 'completed', sentCount: 3, failedCount: 0 });
    const perRecipient = new Map<string, number>();
    for (const m of fake.messages.values())
      if (m.to.endsWith('-frozen@example.test')) perRecipient.set(m.to, (perRecipient.get(m.to) ?? 0) + 1);
    expect([...perRecipient.values()]).toEqual([1, 1, 1]);
    expect((await api.get(`/campaigns/${campaignId}`)).body).toMatchObject({ status: 'completed' });
  });

  it('stopped: approving from a signed link page answers a page saying to try again, and the approval works once Temporal is back', async () => {
    expect((await api.call('PATCH', `/agents/${agentId}`, { mode: 'manual' })).status).toBe(200);
    try {
      const contact = (await api.post('/contacts', { name: 'Link Person', email: 'link-stopped@example.test' })).body;
      const artifact = (
        await api.post('/artifacts', { title: 'Offer', type: 'offer', status: 'ready', contactId: contact.id })
      ).body;
      const pending = await api.post('/artifacts/deliver', {
        artifactIds: [artifact.id],
        message: 'Here is the offer.',
        integration: 'email',
      });
      expect(pending.status).toBe(202);
      const executionId: string = pending.body.executionId;
      let execution: any;
      for (let i = 0; i < 100 && !execution?.draft; i++) {
        execution = (await api.get(`/warp-executions/${executionId}`)).body;
        if (!execution.draft) await sleep(150);
      }
      const link = await api.post(`/warp-executions/${executionId}/approval-link`);
      expect(link.status).toBe(201);
      const approve = () =>
        fetch(link.body.url, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'decision=approve',
        });

      await temporal.stop();
      const { value: down, ms } = await timed(approve);
      expect(down.status).toBe(503);
      expect(down.headers.get('content-type')).toMatch(/^text\/html/);
      expect(down.headers.get('retry-after')).toBe('5');
      expect(await down.text()).toContain('Please try again in a moment');
      expect(ms).toBeLessThan(ANSWERED_WITHIN_MS);
      expect((await api.get(`/warp-executions/${executionId}`)).body.status).toBe('pending_approval');

      temporal = await startTemporal();
      // As the page says: reload in a few seconds.
      const up = await retryingWhileUnavailable(approve);
      // A 503 while the API reconnects can be one whose approval Temporal still took: the reload then
      // says so (409 "Already approved"). Either way the person reads that it was approved, and
      // below, exactly one message went out.
      const page = await up.text();
      if (up.status === 409) expect(page).toContain('Already approved');
      else {
        expect(up.status).toBe(200);
        expect(page).toContain('You can close this tab');
      }
      let final: any;
      for (let i = 0; i < 100 && final?.status !== 'succeeded'; i++) {
        final = (await api.get(`/warp-executions/${executionId}`)).body;
        if (final.status !== 'succeeded') await sleep(150);
      }
      expect(final.status).toBe('succeeded');
      expect([...fake.messages.values()].filter((m) => m.to === 'link-stopped@example.test')).toHaveLength(1);
    } finally {
      await api.call('PATCH', `/agents/${agentId}`, { mode: 'auto' });
    }
  });
});

/** A real Postgres in a process of its own; `stop` is a clean shutdown of the server. */
async function startOwnPostgres(dataDir: string, port: number): Promise<{ url: string; stop(): Promise<void> }> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(__dirname, '..', 'setup', 'postgresProcess.ts'), dataDir, String(port)],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const ready = /postgres ready (\S+)/.exec(output);
      if (ready) resolve(ready[1]!);
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => reject(new Error(`postgres exited (${code}): ${output}`)));
  });
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

describe('Postgres stopped', () => {
  let pg: { url: string; stop(): Promise<void> };
  let db: Db;
  let server: RunningServer & { baseUrl: string };
  let api: ApiClient;
  let pgPort: number;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tap-faults-pg-'));

  const startPostgres = () => startOwnPostgres(dataDir, pgPort);

  beforeAll(async () => {
    pgPort = await freePort();
    pg = await startPostgres();
    db = createDb(pg.url, { max: 3 });
    await migrateLatest(db);
    server = await startTestApi(db);
    api = apiClient(server.baseUrl, await newTeam(db, 'pgdown'));
  });

  afterAll(async () => {
    await server?.close();
    await db?.destroy();
    await pg?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('reads and writes answer 503 database_unavailable, /healthz names the database, and all works once it is back', async () => {
    expect((await api.get('/agents')).status).toBe(200);
    await pg.stop();

    for (const call of [() => api.get('/agents'), () => api.post('/jobs', { type: 'contacts.export', input: {} })]) {
      const { value: res, ms } = await timed(call);
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('database_unavailable');
      expect(res.headers.get('retry-after')).toBe('5');
      expect(ms).toBeLessThan(ANSWERED_WITHIN_MS);
    }
    const health = await timed(() => fetch(server.baseUrl.replace(/\/v1$/, '/healthz')));
    expect(health.ms).toBeLessThan(1_500);
    expect(await health.value.json()).toMatchObject({
      ok: false,
      db: false,
      down: expect.arrayContaining(['database']),
    });

    pg = await startPostgres();
    let res = await api.get('/agents');
    for (let i = 0; i < 20 && res.status !== 200; i++) {
      await sleep(250);
      res = await api.get('/agents');
    }
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
  });
});
