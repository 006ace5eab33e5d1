import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDb, Db, migrateLatest } from '../../db/knex';
import { databaseUnavailable } from '../../services/platform/errors';
import { freePort } from '../../temporal/freePort';
import { FakeProviderServer } from '../fakes/providerServer';
import { startApiProcess, startWorkerProcess, WorkerProcess } from '../setup/stack';
import { newTeam, sleep, TestTeam } from '../support/helpers';
import { OwnPostgres, startOwnPostgres } from '../support/ownPostgres';

/**
 * Issue 37 §2: the app database frozen with SIGSTOP (it still accepts TCP, and answers nothing).
 * The API and a worker run as their own processes with their default deadlines, on a Postgres of
 * this test's own; every surface answers 503 `database_unavailable` within 5 s, and once the
 * database is thawed everything works again without a restart, each write done at most once.
 */
const ANSWERED_WITHIN_MS = 5_000;
/** No request of this test may wait longer than this, whatever the server does. */
const REQUEST_BOUND_MS = 15_000;
const RECIPIENTS = 12;

interface Answer {
  status: number;
  headers: Headers;
  body: any;
  ms: number;
}

describe('the app database frozen (SIGSTOP)', () => {
  const taskQueue = `database-frozen-${process.pid}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tap-db-frozen-'));
  let pg: OwnPostgres;
  let db: Db;
  let worker: WorkerProcess;
  let api: WorkerProcess & { baseUrl: string };
  let fake: FakeProviderServer;
  let team: TestTeam;

  async function send(method: string, url: string, init: { body?: string; headers?: Record<string, string> } = {}) {
    const started = Date.now();
    const res = await fetch(url, { method, ...init, signal: AbortSignal.timeout(REQUEST_BOUND_MS) });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: kept as text
    }
    return { status: res.status, headers: res.headers, body, ms: Date.now() - started } as Answer;
  }
  const v1 = (method: string, route: string, body?: unknown, headers: Record<string, string> = {}) =>
    send(method, `${api.baseUrl}${route}`, {
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: {
        authorization: `Bearer ${team.token}`,
        'x-team-slug': team.slug,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
    });
  const origin = () => api.baseUrl.replace(/\/v1$/, '');

  /** The five surfaces, each one request a client would make. */
  const requests: Record<string, () => Promise<Answer>> = {
    'GET /v1/agents': () => v1('GET', '/agents'),
    'POST /v1/contacts': () =>
      v1('POST', '/contacts', { name: 'Frozen Person', email: 'frozen@example.test' }, { 'idempotency-key': 'frozen' }),
    'POST /v1/jobs': () => v1('POST', '/jobs', { type: 'contacts.export', input: {} }),
    'MCP tools/call': () =>
      send('POST', `${origin()}/mcp`, {
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'svc_list_agents', arguments: {} },
        }),
        headers: {
          authorization: `Bearer ${team.token}`,
          'x-team-slug': team.slug,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
      }),
    'POST /oauth/token': () =>
      send('POST', `${origin()}/oauth/token`, {
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: 'ort_unknown',
          client_id: 'cli_x',
        }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
  };

  /** Repeats `call` while it answers 503, for at most `withinMs`. */
  async function untilAnswered(call: () => Promise<Answer>, withinMs = 30_000): Promise<Answer> {
    const deadline = Date.now() + withinMs;
    let res = await call();
    while (res.status === 503 && Date.now() < deadline) {
      await sleep(250);
      res = await call();
    }
    return res;
  }

  beforeAll(async () => {
    pg = await startOwnPostgres(dataDir, await freePort());
    db = createDb(pg.url, { max: 3 });
    await migrateLatest(db);
    const env = { DATABASE_URL: pg.url, TEMPORAL_TASK_QUEUE: taskQueue };
    [worker, api, fake] = await Promise.all([
      startWorkerProcess(env),
      startApiProcess(env),
      new FakeProviderServer().start(),
    ]);
    team = await newTeam(db, 'frozen');
    const integration = await v1('PUT', `/agents/${team.agentId}/integrations/email`, {
      provider: 'resend',
      config: { baseUrl: fake.baseUrl },
      secrets: { apiKey: 'k' },
      from: 'news@acme.example',
    });
    expect(integration.status).toBe(200);
  });

  afterAll(async () => {
    pg?.thaw();
    await api?.stop();
    await worker?.stop();
    await fake?.stop();
    await db?.destroy();
    await pg?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers 503 database_unavailable within 5 s everywhere, and recovers by itself once thawed, each write once', async () => {
    // A campaign in flight when the database freezes: its activities fail fast and are retried.
    for (let i = 0; i < RECIPIENTS; i++) {
      const contact = await v1('POST', '/contacts', { name: `R${i} Example`, email: `r${i}@frozen.test`, tags: ['f'] });
      expect((await v1('PATCH', `/contacts/${contact.body.id}`, { marketingConsent: 'granted' })).status).toBe(200);
    }
    const campaign = await v1('POST', '/campaigns', {
      name: 'Frozen',
      channel: 'email',
      subject: 'Hi',
      content: 'Hello',
      tags: ['f'],
    });
    expect(campaign.status).toBe(201);
    // Each request once while the database answers: the pools now hold connections the freeze will hang.
    for (const name of ['GET /v1/agents', 'MCP tools/call']) expect((await requests[name]!()).status).toBe(200);
    expect((await v1('POST', `/campaigns/${campaign.body.id}/send`, {})).status).toBe(200);

    const stopped = pg.freeze();
    const frozen: string[] = [];
    try {
      for (const [name, call] of Object.entries(requests)) {
        const res = await call();
        frozen.push(`${name} ${res.status} ${res.ms} ms`);
        expect({ name, status: res.status }).toEqual({ name, status: 503 });
        // The OAuth endpoints answer in RFC 6749's form ({ error, error_description }), the rest in the envelope.
        const code = name.startsWith('POST /oauth') ? res.body.error : res.body.error?.code;
        expect({ name, code }).toEqual({ name, code: 'database_unavailable' });
        expect(res.headers.get('retry-after')).toBe('5');
        expect(res.ms).toBeLessThan(ANSWERED_WITHIN_MS);
      }
      const health = await send('GET', `${origin()}/healthz`);
      frozen.push(`/healthz ${health.status} ${health.ms} ms`);
      expect(health.status).toBe(503);
      expect(health.body).toMatchObject({ ok: false, db: false, down: ['database'] });
      expect(health.ms).toBeLessThan(1_500);
    } finally {
      pg.thaw();
    }

    // Thawed: the same requests work, with no process restarted.
    const thawedAt = Date.now();
    const agents = await untilAnswered(requests['GET /v1/agents']!);
    const recoveredMs = Date.now() - thawedAt;
    expect(agents.status).toBe(200);
    const after: string[] = [];
    // The contact POSTed during the freeze: none or one, and retrying its key gives that one.
    const frozenContacts = async () =>
      (await v1('GET', '/contacts?limit=100')).body.data.filter((c: any) => c.email === 'frozen@example.test');
    expect((await frozenContacts()).length).toBeLessThanOrEqual(1);
    const retried = await untilAnswered(requests['POST /v1/contacts']!);
    const again = await requests['POST /v1/contacts']!();
    for (const [name, res] of Object.entries({ 'POST /v1/contacts': retried, 'POST /v1/contacts again': again })) {
      after.push(`${name} ${res.status} ${res.ms} ms`);
      expect(res.status).toBe(201);
    }
    expect(again.body.id).toBe(retried.body.id);
    expect(await frozenContacts()).toHaveLength(1);

    const job = await untilAnswered(requests['POST /v1/jobs']!);
    after.push(`POST /v1/jobs ${job.status} ${job.ms} ms`);
    expect(job.status).toBe(202);
    const mcp = await untilAnswered(requests['MCP tools/call']!);
    after.push(`MCP tools/call ${mcp.status} ${mcp.ms} ms`);
    expect(mcp.status).toBe(200);
    expect(mcp.body.result.isError).toBeFalsy();
    const oauth = await untilAnswered(requests['POST /oauth/token']!);
    after.push(`POST /oauth/token ${oauth.status} ${oauth.ms} ms`);
    expect(oauth.body.error).toMatch(/^invalid_(client|grant)$/);
    const health = await untilAnswered(() => send('GET', `${origin()}/healthz`));
    expect(health.body).toMatchObject({ ok: true, db: true });

    // The worker recovered too: the new job and the campaign in flight finish, each recipient reached once.
    let jobState: any;
    for (let i = 0; i < 240 && !['succeeded', 'failed'].includes(jobState?.status); i++) {
      if (i) await sleep(250);
      jobState = (await v1('GET', `/jobs/${job.body.jobId}`)).body;
    }
    expect(jobState.status).toBe('succeeded');
    let sent: any;
    for (let i = 0; i < 360 && !['completed', 'failed'].includes(sent?.status); i++) {
      if (i) await sleep(250);
      sent = (await v1('GET', `/campaigns/${campaign.body.id}`)).body;
    }
    expect(sent).toMatchObject({ status: 'completed', sentCount: RECIPIENTS, failedCount: 0 });
    const reached = [...fake.messages.values()].filter((m) => m.to.endsWith('@frozen.test'));
    expect(reached).toHaveLength(RECIPIENTS);
    expect(reached.every((m) => m.duplicates === 0)).toBe(true);
    // No transaction was left open by a connection given up during the freeze.
    // No transaction was left open by a connection given up during the freeze (one between two
    // statements of a live transaction is idle in it for a moment, so only a lasting one counts).
    const stuck = () =>
      db('pg_stat_activity')
        .where('datname', db.raw('current_database()'))
        .andWhere('state', 'like', 'idle in transaction%')
        .andWhere('state_change', '<', db.raw("now() - interval '2 seconds'"))
        .count<{ count: number }[]>({ count: '*' });
    expect((await stuck())[0]!.count).toBe(0);
    const afterThaw = reached.filter((m) => m.receivedAt >= thawedAt).length;

    process.stdout.write(
      `[database-frozen] ${stopped.length} postgres processes frozen; frozen: ${frozen.join(', ')}; ` +
        `thawed: GET /v1/agents 200 after ${recoveredMs} ms, ${after.join(', ')}; ` +
        `campaign ${sent.sentCount}/${RECIPIENTS} sent once (${afterThaw} after the thaw), job ${jobState.status}\n`,
    );
  });
  it("a request's statement has the deadline; an activity's runs while the server answers, and is given up once it does not", async () => {
    const request = createDb(pg.url, { max: 1 }, { kind: 'request', timeoutMs: 1_000 });
    const activity = createDb(pg.url, { max: 1 }, { kind: 'activity', timeoutMs: 1_000 });
    const failure = (query: Promise<unknown>) =>
      query.then(
        () => null,
        (err: unknown) => err,
      );
    try {
      // A live server: the request's long statement is cancelled at its deadline (a 503), the activity's is not.
      expect(databaseUnavailable(await failure(request.raw('SELECT pg_sleep(2)')))?.code).toBe('database_unavailable');
      await expect(activity.raw('SELECT pg_sleep(2.5)')).resolves.toBeDefined();

      // Frozen: each pool's one open connection hangs, and is given up.
      const started = Date.now();
      pg.freeze();
      let settled: [unknown, unknown, number, number];
      try {
        const timed = async (query: Promise<unknown>) => [await failure(query), Date.now() - started] as const;
        const [[requestErr, requestMs], [activityErr, activityMs]] = await Promise.all([
          timed(request.raw('SELECT 1')),
          timed(activity.raw('SELECT 1')),
        ]);
        settled = [requestErr, activityErr, requestMs, activityMs];
      } finally {
        pg.thaw();
      }
      const [requestErr, activityErr, requestMs, activityMs] = settled;
      expect(requestErr).toMatchObject({ name: 'DatabaseNotAnswering' });
      expect(activityErr).toMatchObject({ name: 'DatabaseNotAnswering' });
      // The request's at its deadline (plus the server's grace); the activity's after a probe that went unanswered too.
      expect(requestMs).toBeLessThan(2_000);
      expect(activityMs).toBeLessThan(3_500);
      process.stdout.write(
        `[database-frozen] pools with a 1 s deadline, frozen: request statement given up after ${requestMs} ms, ` +
          `activity statement after ${activityMs} ms\n`,
      );

      // Thawed: the same pools answer, on new connections (the hung ones were closed, not reused).
      await expect(request.raw('SELECT 1')).resolves.toBeDefined();
      await expect(activity.raw('SELECT 1')).resolves.toBeDefined();
    } finally {
      await request.destroy();
      await activity.destroy();
    }
  });
});
