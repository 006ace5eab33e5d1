import type { Db } from '../../db/knex';
import { BusinessIdKey, JobTypeKey, TeamSlugKey } from '../../temporal/searchAttributes';
import {
  apiClient,
  ApiClient,
  newTeam,
  startTestApi,
  temporalClient,
  TestTeam,
  useApiSuite,
  waitForJob,
} from '../support/helpers';

describe('jobs API', () => {
  const suite = useApiSuite('jobs');
  let db: Db;
  let server: Awaited<ReturnType<typeof startTestApi>>;
  let team: TestTeam;
  let api: ApiClient;
  beforeAll(() => ({ db, server, team, api } = suite));

  it('accepts a job with 202, Location and an absolute statusUrl, then reports it succeeded', async () => {
    const res = await api.post('/jobs', {
      type: 'contacts.import',
      input: { rows: [{ name: 'Job Person', email: 'job.person@example.com' }] },
    });
    expect(res.status).toBe(202);
    expect(res.body.status).toBe('queued');
    expect(res.body.jobId).toMatch(/^job_[0-9a-z]{20}$/);
    expect(res.body.statusUrl).toBe(`${server.baseUrl}/jobs/${res.body.jobId}`);
    expect(res.headers.get('location')).toBe(res.body.statusUrl);

    const job = await waitForJob(api, res.body.jobId);
    expect(job).toMatchObject({
      jobId: res.body.jobId,
      status: 'succeeded',
      result: { total: 1, imported: 1, duplicates: 0, failed: 0 },
    });
    expect(job.error).toBeUndefined();
    expect(job.startedAt).not.toBeNull();
    expect(job.finishedAt).not.toBeNull();
  });

  it('counts requests and started jobs in /metrics for Prometheus', async () => {
    await api.post('/jobs', { type: 'contacts.export' });
    const res = await fetch(`${server.url}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/jobs_started_total\{type="contacts.export"\} [1-9]/);
    expect(text).toMatch(/http_request_duration_seconds_count\{method="POST",route="\/v1\/jobs",status="202"\} [1-9]/);
  });

  it('keeps /metrics from callers that are neither local nor hold METRICS_TOKEN', async () => {
    const guarded = await startTestApi(db, { METRICS_TOKEN: 'metrics-token-0123456789' });
    try {
      expect((await fetch(`${guarded.url}/metrics`)).status).toBe(404);
      expect(
        (await fetch(`${guarded.url}/metrics`, { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status,
      ).toBe(404);
      expect(
        (await fetch(`${guarded.url}/metrics`, { headers: { authorization: 'Bearer metrics-token-0123456789' } }))
          .status,
      ).toBe(200);
    } finally {
      await guarded.close();
    }
  });

  it('tags the workflow for operators: id, search attributes and a readable summary', async () => {
    const res = await api.post('/jobs', { type: 'contacts.export' });
    await waitForJob(api, res.body.jobId);
    const client = await temporalClient();
    try {
      const description = await client.workflow.getHandle(`job-${res.body.jobId}`).describe();
      expect(description.type).toBe('jobWorkflow');
      expect(description.typedSearchAttributes.get(TeamSlugKey)).toBe(team.slug);
      expect(description.typedSearchAttributes.get(JobTypeKey)).toBe('contacts.export');
      expect(description.typedSearchAttributes.get(BusinessIdKey)).toBe(res.body.jobId);
      expect(await description.staticSummary()).toBe(`contacts.export job ${res.body.jobId} for team ${team.slug}`);
      // The export's path is chosen at its start: no patch marker, and so no `TemporalChangeVersion`
      // upsert for the server to index on top of the start's own search attributes. (The row reads
      // succeeded before the workflow task that ran it completes: wait for the run's end.)
      const handle = client.workflow.getHandle(`job-${res.body.jobId}`);
      await handle.result();
      const { events } = await handle.fetchHistory();
      const markers = (events ?? []).flatMap((e) => e.markerRecordedEventAttributes?.markerName ?? []);
      expect(markers).toEqual(['core_local_activity']);
      expect((events ?? []).filter((e) => e.upsertWorkflowSearchAttributesEventAttributes)).toEqual([]);
      expect((await handle.describe()).searchAttributes).not.toHaveProperty('TemporalChangeVersion');
      const listed = [];
      for await (const w of client.workflow.list({
        query: `TeamSlug = "${team.slug}" AND JobType = "contacts.export"`,
      }))
        listed.push(w.workflowId);
      expect(listed).toContain(`job-${res.body.jobId}`);
    } finally {
      await client.connection.close();
    }
  });

  it('imports rows: dedupes by email (in the file and against existing contacts), reports per-row errors', async () => {
    await api.post('/contacts', { name: 'Existing', email: 'existing@example.com' });
    const rows = [
      { name: 'New One', email: 'new1@example.com', company: 'Acme', tags: 'a; b' },
      { name: 'Again', email: 'EXISTING@example.com' },
      { name: 'Bad Email', email: 'nope' },
      { company: 'No identity' },
      { name: 'New One twin', email: 'new1@example.com' },
      { Name: 'Header Case', Email: 'case@example.com', favourite: 'tea' },
    ];
    const res = await api.post('/jobs', { type: 'contacts.import', input: { rows } });
    const job = await waitForJob(api, res.body.jobId);
    expect(job.status).toBe('succeeded');
    expect(job.result).toEqual({
      total: 6,
      imported: 2,
      duplicates: 2,
      failed: 2,
      errorsTruncated: false,
      errors: [
        { index: 2, field: 'email', message: 'email: Invalid email address' },
        { index: 3, message: 'a contact needs at least one of name, email or phone' },
      ],
    });
    const imported = await db('contacts')
      .where({ team_id: team.teamId, import_job_id: res.body.jobId })
      .orderBy('import_row');
    expect(imported.map((c) => [c.email, c.first_name, c.last_name])).toEqual([
      ['new1@example.com', 'New', 'One'],
      ['case@example.com', 'Header', 'Case'],
    ]);
    expect(imported[0].tags).toEqual(['a', 'b']);
    expect(imported[1].properties).toEqual({ favourite: 'tea' });
  });

  it('treats blank cells as absent and odd headers as plain custom properties', async () => {
    const csv = 'name,email,constructor,__proto__\n   ,blank-name@example.com,yes,no\n';
    const res = await api.post('/jobs', { type: 'contacts.import', input: { csv } });
    const job = await waitForJob(api, res.body.jobId);
    expect(job.result).toMatchObject({ imported: 1, failed: 0 });
    const row = await db('contacts').where({ team_id: team.teamId, email: 'blank-name@example.com' }).first();
    expect(row.name).toBeNull();
    expect(row.properties).toEqual({ constructor: 'yes', __proto__: 'no' });
  });

  it('answers 503 temporal_unavailable when Temporal cannot be reached, and keeps the job readable', async () => {
    const cut = await startTestApi(db, { TEMPORAL_ADDRESS: '127.0.0.1:1' });
    try {
      const cutApi = apiClient(cut.baseUrl, team);
      const res = await cutApi.post('/jobs', { type: 'contacts.export' });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('temporal_unavailable');
      expect(res.headers.get('retry-after')).toBe('5');
      // The start may have reached Temporal even though its answer was lost: the job stays queued.
      const read = await cutApi.get(`/jobs/${res.body.error.details.jobId}`);
      expect(read.status).toBe(200);
      expect(read.body.status).toBe('queued');
    } finally {
      await cut.close();
    }
  });

  it('rejects a deeply nested job input with 400, with or without an Idempotency-Key', async () => {
    const deep = `{"type":"contacts.export","input":{"x":${'['.repeat(5000)}${']'.repeat(5000)}}}`;
    for (const headers of [{}, { 'idempotency-key': 'deep-job' }] as Record<string, string>[]) {
      const res = await api.call('POST', '/jobs', deep, { 'content-type': 'application/json', ...headers });
      expect(res.status).toBe(400);
    }
  });

  it('imports CSV text', async () => {
    const csv = 'name,email,phone\nCsv Person,csv@example.com,+1 555 0100\n"Quoted, Name",quoted@example.com,\n';
    const res = await api.post('/jobs', { type: 'contacts.import', input: { csv } });
    const job = await waitForJob(api, res.body.jobId);
    expect(job.result).toMatchObject({ total: 2, imported: 2 });
    const quoted = await db('contacts').where({ team_id: team.teamId, email: 'quoted@example.com' }).first();
    expect(quoted.first_name).toBe('Quoted,');
  });

  it('exports contacts as CSV into team media, downloadable from the result url', async () => {
    const exportTeam = await newTeam(db, 'export');
    const exportApi = apiClient(server.baseUrl, exportTeam);
    const tagged = await exportApi.post('/contacts', {
      name: 'Tagged One',
      email: 't1@example.com',
      tags: ['vip', 'early'],
    });
    await exportApi.post('/contacts', { name: 'Plain Two', email: 'p2@example.com' });
    const res = await exportApi.post('/jobs', { type: 'contacts.export', input: { tags: ['vip'] } });
    const job = await waitForJob(exportApi, res.body.jobId);
    expect(job.status).toBe('succeeded');
    expect(job.result).toMatchObject({ rowCount: 1, contentType: 'text/csv' });
    const download = await fetch(job.result.url, {
      headers: { authorization: `Bearer ${exportTeam.token}`, 'x-team-slug': exportTeam.slug },
    });
    expect(download.status).toBe(200);
    const lines = (await download.text()).trim().split('\n');
    expect(lines[0]).toBe(
      'id,name,firstName,lastName,email,phone,company,title,location,tags,marketingConsent,consentSource,consentAt,createdAt',
    );
    expect(lines).toHaveLength(2);
    // Tags `;`-separated, times in ISO 8601, an absent value empty.
    const row = await db('contacts').where({ id: tagged.body.id }).first('created_at', 'marketing_consent');
    expect(lines[1]).toBe(
      [
        tagged.body.id,
        'Tagged One',
        'Tagged',
        'One',
        't1@example.com',
        '',
        '',
        '',
        '',
        'vip;early',
        row.marketing_consent,
        '',
        '',
        row.created_at.toISOString(),
      ].join(','),
    );
    // Another team cannot download it.
    const stranger = await newTeam(db, 'stranger');
    const denied = await fetch(job.result.url, {
      headers: { authorization: `Bearer ${stranger.token}`, 'x-team-slug': stranger.slug },
    });
    expect(denied.status).toBe(404);
  });

  it("ingests a text into an agent's knowledge as overlapping chunks", async () => {
    const paragraph = 'Temporal keeps workflow state durable across crashes. '.repeat(40);
    const text = `${paragraph}\n\n${paragraph}\n\n${paragraph}`;
    const res = await api.post('/jobs', {
      type: 'knowledge.ingest',
      input: { agentId: team.agentId, title: 'Durability', text, chunkSize: 800, chunkOverlap: 100 },
    });
    const job = await waitForJob(api, res.body.jobId);
    expect(job.status).toBe('succeeded');
    expect(job.result).toMatchObject({ agentId: team.agentId, title: 'Durability', charCount: text.length });
    const chunks = await db('knowledge_chunks').where({ document_id: job.result.documentId }).orderBy('position');
    expect(chunks).toHaveLength(job.result.chunkCount);
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks) expect(chunk.content.length).toBeLessThanOrEqual(800);
    // Every sentence of the text is in some chunk.
    expect(chunks.map((c) => c.content).join(' ')).toContain('Temporal keeps workflow state durable across crashes.');
  });

  describe('rejections', () => {
    it('unknown type → 400 listing the known types', async () => {
      const res = await api.post('/jobs', { type: 'contacts.teleport' });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(res.body.error.details.knownTypes).toEqual([
        'contacts.import',
        'contacts.export',
        'knowledge.ingest',
        'warp.run',
      ]);
    });
    it.each([
      ['missing type', { input: {} }],
      ['input that is not an object', { type: 'contacts.export', input: [1] }],
      ['import with neither rows nor csv', { type: 'contacts.import', input: {} }],
      ['import with both rows and csv', { type: 'contacts.import', input: { rows: [{ name: 'a' }], csv: 'name\na' } }],
      ['import with an empty row list', { type: 'contacts.import', input: { rows: [] } }],
      [
        'ingest without text',
        { type: 'knowledge.ingest', input: { agentId: '00000000-0000-4000-8000-000000000000', title: 't' } },
      ],
      ['ingest with a bad agent id', { type: 'knowledge.ingest', input: { agentId: 'nope', title: 't', text: 'x' } }],
      ['export with an unknown option', { type: 'contacts.export', input: { format: 'xml' } }],
    ])('%s → 400', async (_label, body) => {
      const res = await api.post('/jobs', body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    });
    it('CSV without data rows → 400', async () => {
      const res = await api.post('/jobs', { type: 'contacts.import', input: { csv: 'name,email\n' } });
      expect(res.status).toBe(400);
    });
    it("ingest into another team's agent → 404, and no job is stored", async () => {
      const other = await newTeam(db, 'other-agent');
      const before = await db('jobs').where({ team_id: team.teamId }).count({ n: '*' });
      const res = await api.post('/jobs', {
        type: 'knowledge.ingest',
        input: { agentId: other.agentId, title: 't', text: 'x' },
      });
      expect(res.status).toBe(404);
      const after = await db('jobs').where({ team_id: team.teamId }).count({ n: '*' });
      expect(after[0].n).toBe(before[0].n);
    });
    it('unknown job → 404; a job of another team → 404', async () => {
      expect((await api.get('/jobs/job_unknown')).status).toBe(404);
      const other = await newTeam(db, 'other-jobs');
      const otherApi = apiClient(server.baseUrl, other);
      const theirs = await otherApi.post('/jobs', { type: 'contacts.export' });
      const res = await api.get(`/jobs/${theirs.body.jobId}`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    });
  });

  describe('Idempotency-Key on POST /jobs', () => {
    it('starts one job and one workflow for ten concurrent requests with one key', async () => {
      const body = { type: 'contacts.export', input: {} };
      const results = await Promise.all(
        Array.from({ length: 10 }, () => api.post('/jobs', body, { 'idempotency-key': 'export-once' })),
      );
      expect(results.map((r) => r.status)).toEqual(Array(10).fill(202));
      const ids = new Set(results.map((r) => r.body.jobId));
      expect(ids.size).toBe(1);
      const [jobId] = [...ids];
      expect(results.every((r) => r.headers.get('location') === `${server.baseUrl}/jobs/${jobId}`)).toBe(true);
      const client = await temporalClient();
      try {
        let count = 0;
        for await (const _ of client.workflow.list({ query: `TeamSlug = "${team.slug}" AND BusinessId = "${jobId}"` }))
          count++;
        expect(count).toBe(1);
      } finally {
        await client.connection.close();
      }
      expect(
        (
          await api.post(
            '/jobs',
            { type: 'contacts.export', input: { tags: ['x'] } },
            { 'idempotency-key': 'export-once' },
          )
        ).status,
      ).toBe(409);
    });
  });

  describe('operators act in the Temporal UI', () => {
    it('reports progress from the workflow while an import runs', async () => {
      const slow = await startTestApi(db, { IMPORT_BATCH_SIZE: '50' });
      try {
        const slowApi = apiClient(slow.baseUrl, team);
        const rows = Array.from({ length: 2000 }, (_, i) => ({ email: `progress${i}@example.com` }));
        const res = await slowApi.post('/jobs', { type: 'contacts.import', input: { rows } });
        const running = await waitForJob(slowApi, res.body.jobId, {
          done: (j) => j.status === 'running' && j.progress?.completed > 0,
        });
        expect(running.progress).toMatchObject({ phase: 'importing', total: 2000 });
        expect(running.progress.completed).toBeLessThan(2000);
        const done = await waitForJob(slowApi, res.body.jobId);
        expect(done.status).toBe('succeeded');
        expect(done.progress).toBeUndefined();
      } finally {
        await slow.close();
      }
    });

    it.each([
      ['terminated', 'job_terminated', 'The job was terminated by an operator before it finished'],
      ['cancelled', 'job_cancelled', 'The job was cancelled by an operator before it finished'],
    ])('a %s job reads failed with %s', async (action, code, message) => {
      const slow = await startTestApi(db, { IMPORT_BATCH_SIZE: '10' });
      const slowApi = apiClient(slow.baseUrl, team);
      const client = await temporalClient();
      try {
        const rows = Array.from({ length: 3000 }, (_, i) => ({ email: `${action}${i}@example.com` }));
        const res = await slowApi.post('/jobs', { type: 'contacts.import', input: { rows } });
        await waitForJob(slowApi, res.body.jobId, { done: (j) => j.status === 'running' });
        const handle = client.workflow.getHandle(`job-${res.body.jobId}`);
        // What the Temporal UI's Terminate and Cancel buttons call.
        if (action === 'terminated') await handle.terminate('operator stopped it');
        else await handle.cancel();
        const job = await waitForJob(slowApi, res.body.jobId);
        expect(job.status).toBe('failed');
        expect(job.error).toEqual({ error: { code, message } });
        expect((await db('jobs').where({ id: res.body.jobId }).first()).status).toBe('failed');
      } finally {
        await client.connection.close();
        await slow.close();
      }
    });
  });
});
