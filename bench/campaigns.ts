import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { Client } from '@temporalio/client';
import type { Db } from '../db/knex';
import { resolveAudience } from '../services/campaigns/audience';
import { previewQuery } from '../services/campaigns/audiencePreview';
import { providerDefinitions } from '../channels/providers';
import { HTTP_CONNECTIONS_PER_INTEGRATION } from '../channels/http';
import { profileArgs } from '../entryPoints';
import { cpuOf, cpuPerUnitTable, peakRss, postgresByRole, postgresSplit, stackLedger } from './procStats';
import type { statementStats } from './pgStatements';
import { startSink, type Sink, type SinkCounts } from './sink';

interface CampaignBenchOptions {
  db: Db;
  databaseUrl: string;
  client: Client;
  apiBaseUrl: string;
  apiPid: number;
  workerPid: number;
  /** A new team on the unmetered bench plan. */
  team: (prefix: string) => Promise<{ team: string; teamId: string; agentId: string; token: string }>;
  /** The audience of the SMTP and HTTP runs. */
  recipients: number;
  /** Which transports run at `recipients` (both by default). */
  transports: readonly Transport[];
  /** Also an SMTP run at this size (0: none). */
  largeRecipients: number;
  segmentContacts: number;
  /** Postgres's statement statistics (BENCH_PG_STATEMENTS=1): our send's top statements are printed. */
  statements?: Awaited<ReturnType<typeof statementStats>>;
  log: (line: string) => void;
}

const execFileAsync = promisify(execFile);
/** The fields the bench reads from the API's JSON answers (a campaign, a segment, an audience preview). */
type Answer = { id: string; status: string; sentCount: number; sendable: number };

/** Inserts `count` contacts for a team in one statement (generate_series), tagged and consenting. */
async function seedContacts(db: Db, teamId: string, count: number, prefix: string): Promise<void> {
  await db.raw(
    `INSERT INTO contacts (id, team_id, name, first_name, email, tags, marketing_consent, properties)
    SELECT ?, ?, 'Person ' || g, 'Person', ? || g || '@bench.example', ARRAY['bench', 't' || (g % 10)], 'granted', jsonb_build_object('tier', CASE WHEN g % 7 = 0 THEN 'gold' ELSE 'basic' END)
    FROM generate_series(1, ?) g`.replace('SELECT ?,', `SELECT '${prefix}' || g,`),
    [teamId, `${prefix}`, count],
  );
}

type Transport = 'smtp' | 'http';

/** One side's delivery as the sink saw it, in a line. */
function describeCounts(side: string, transport: Transport, c: SinkCounts, expected: number, seconds: number): string {
  const missing = expected - c.recipients;
  const notOnce = missing + c.recipientsMoreThanOnce;
  const repeats =
    transport === 'smtp'
      ? `${c.repeats} repeats by Message-ID`
      : `${c.repeats} requests repeating an idempotency key (answered with the first id: a provider drops them)`;
  const unit = transport === 'smtp' ? 'messages' : 'requests';
  return (
    `- ${side}: ${c.messages} ${unit}, ${c.recipients} distinct recipients of ${expected}, ` +
    `${notOnce} recipients not exactly once (${missing} missing, ${c.recipientsMoreThanOnce} more than once), ${repeats}; ` +
    `sink CPU ${((100 * c.cpuSeconds) / seconds).toFixed(0)} % of one core`
  );
}

/** Every recipient exactly once, and nothing sent twice (not even a repeat the provider would drop). */
const exactlyOnce = (c: SinkCounts, expected: number) =>
  c.messages === expected && c.recipients === expected && c.recipientsMoreThanOnce === 0 && c.repeats === 0;

type Order = 'baseline first' | 'ours first';

/**
 * One (d) run: the baseline (bench/plainCampaign.ts) and ours, in `order`, each to its own
 * `recipients` contacts, both delivering to the sink (reset in between).
 */
async function campaignRun(
  o: CampaignBenchOptions,
  sink: Sink,
  transport: Transport,
  recipients: number,
  order: Order,
): Promise<{ lines: string[]; plainSeconds: number; ourSeconds: number; ourCpuMs: number }> {
  const tag = `${transport}${recipients}${order === 'ours first' ? 'b' : 'a'}`;
  // Our defaults are what is measured; the baseline gets as many connections.
  const connections =
    transport === 'smtp'
      ? providerDefinitions.smtp.config.parse({ host: 'x' }).maxConnections
      : HTTP_CONNECTIONS_PER_INTEGRATION;
  const inFlight = 2 * connections;
  const label = transport === 'smtp' ? 'SMTP' : 'HTTP';

  let plainSeconds = 0;
  let plainStartedAt = 0;
  let plainCpu = 0;
  let plainPeak = 0;
  let plainCounts: SinkCounts | undefined;
  // Baseline: it selects its audience into recipients itself, inside its clock, as our send's snapshot does.
  const runBaseline = async () => {
    const plain = await o.team(`bench-plain-${tag}`);
    await seedContacts(o.db, plain.teamId, recipients, `ct_pl${tag}_`);
    const [plainCampaign] = await o
      .db('campaigns')
      .insert({
        id: `cmp_plain${tag}_${Date.now()}`,
        team_id: plain.teamId,
        name: 'plain',
        channel: 'email',
        subject: 'Hi {{first}}',
        content: 'Hello {{first}}',
        status: 'sending',
      })
      .returning('id');
    await sink.reset(transport);
    const pgAtStart = postgresByRole();
    ledger.take();
    const baseline = execFileAsync(
      process.execPath,
      [...profileArgs(), '--import', 'tsx', path.join(__dirname, 'plainCampaign.ts')],
      {
        env: {
          ...process.env,
          DATABASE_URL: o.databaseUrl,
          CAMPAIGN_ID: plainCampaign.id,
          TEAM_ID: plain.teamId,
          PROVIDER: transport,
          SMTP_PORT: String(sink.smtpPort),
          PROVIDER_URL: sink.httpBaseUrl,
          CONNECTIONS: String(connections),
          IN_FLIGHT: String(inFlight),
          CHUNK: '1000',
        },
        encoding: 'utf8',
        maxBuffer: 1 << 20,
      },
    );
    const baselineRss = peakRss(baseline.child.pid!);
    [plainSeconds, plainStartedAt, plainCpu] = (await baseline).stdout.trim().split(' ').map(Number);
    baselineWindow = { 'baseline script': plainCpu, ...ledger.take() };
    postgresRoles.baseline = postgresSplit(pgAtStart, postgresByRole(), recipients);
    plainPeak = baselineRss();
    plainCounts = await sink.counts(transport);
    await sink.reset(transport);
  };

  // Every process's CPU over each side's send: ours, the API, Temporal and Postgres; the baseline script's own.
  const ledger = stackLedger({ API: o.apiPid, worker: o.workerPid });
  let baselineWindow: Record<string, number> = {};
  let oursWindow: Record<string, number> = {};
  let campaign: Answer | undefined;
  let final: Answer | undefined;
  let ourSeconds = 0;
  let startedAt = 0;
  let workerCpu = 0;
  let workerPeak = 0;
  let ourCounts: SinkCounts | undefined;
  const postgresRoles = { baseline: '', ours: '' };
  let ourStatements: string[] = [];
  // Ours: the API, as a user would drive it.
  const runOurs = async () => {
    const team = await o.team(`bench-campaign-${tag}`);
    await seedContacts(o.db, team.teamId, recipients, `ct_cp${tag}_`);
    await o.db.raw('ANALYZE contacts');
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${o.apiBaseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${team.token}`,
          'x-team-slug': team.team,
          'content-type': 'application/json',
        },
        body: body ? JSON.stringify(body) : undefined,
      }).then(async (r) => {
        if (!r.ok) throw new Error(`${method} ${path} answered ${r.status}: ${await r.text()}`);
        return r.json() as Promise<Answer>;
      });
    await call(
      'PUT',
      `/agents/${team.agentId}/integrations/email`,
      transport === 'smtp'
        ? { provider: 'smtp', config: { host: '127.0.0.1', port: sink.smtpPort }, from: 'news@bench.example' }
        : {
            provider: 'resend',
            config: { baseUrl: sink.httpBaseUrl },
            secrets: { apiKey: 'k' },
            from: 'news@bench.example',
          },
    );
    campaign = await call('POST', '/campaigns', {
      name: 'bench',
      channel: 'email',
      subject: 'Hi {{first}}',
      content: 'Hello {{first}}',
      templateParams: { first: 'contact.firstName' },
      tags: ['bench'],
    });
    await sink.reset(transport);
    const workerRss = peakRss(o.workerPid);
    const started = performance.now();
    startedAt = Date.now();
    const workerCpuAtStart = cpuOf(o.workerPid);
    await o.statements?.reset();
    const pgAtStart = postgresByRole();
    ledger.take();
    await call('POST', `/campaigns/${campaign.id}/send`, {});
    do {
      await new Promise((r) => setTimeout(r, 100));
      final = await call('GET', `/campaigns/${campaign.id}`);
    } while (final.status === 'sending');
    ourSeconds = (performance.now() - started) / 1000;
    oursWindow = { 'baseline script': 0, ...ledger.take() };
    postgresRoles.ours = postgresSplit(pgAtStart, postgresByRole(), recipients);
    ourStatements = (await o.statements?.top(8, recipients / 1000, '1000 messages')) ?? [];
    workerCpu = cpuOf(o.workerPid) - workerCpuAtStart;
    workerPeak = workerRss();
    ourCounts = await sink.counts(transport);
    await sink.reset(transport); // frees what the sink holds before the next run
  };

  for (const side of order === 'baseline first' ? [runBaseline, runOurs] : [runOurs, runBaseline]) await side();
  if (!campaign || !final || !plainCounts || !ourCounts) throw new Error('a side of the comparison did not run');
  // Where our time went: the statuses' first and last write (chunks are written as they complete).
  const [written] = (
    await o.db.raw(
      `SELECT extract(epoch FROM min(sent_at)) * 1000 AS first, extract(epoch FROM max(sent_at)) * 1000 AS last
      FROM campaign_recipients WHERE campaign_id = ?`,
      [campaign.id],
    )
  ).rows as { first: string | null; last: string | null }[];
  const at = (epochMs: number | string | null, from: number) =>
    epochMs ? ((Number(epochMs) - from) / 1000).toFixed(1) : '–';
  const histories: number[] = [];
  // Activity attempts beyond the first (a retried dispatch may send again what it sent before).
  let activityRetries = 0;
  for await (const run of o.client.workflow.list({ query: `WorkflowId = "campaign-${campaign.id}-run-1"` })) {
    const handle = o.client.workflow.getHandle(run.workflowId, run.runId);
    histories.push((await handle.describe()).historyLength);
    for (const event of (await handle.fetchHistory()).events ?? [])
      activityRetries += Math.max(0, (event.activityTaskStartedEventAttributes?.attempt ?? 1) - 1);
  }

  const sender =
    transport === 'smtp'
      ? `one nodemailer pool of ${connections} connections (TCP_NODELAY)`
      : `one undici keep-alive Agent of ${connections} connections`;
  const receiver =
    transport === 'smtp'
      ? 'a local SMTP sink (smtp-server, own process)'
      : 'the fake HTTP provider (Resend-style POST /emails, own process)';
  const pct = (cpu: number, seconds: number) => `${((100 * cpu) / seconds).toFixed(0)} %`;
  const rate = (seconds: number) => (recipients / seconds).toFixed(0);
  const ratio = plainSeconds / ourSeconds;
  const lines = [
    `## (d) ${recipients.toLocaleString('en')}-recipient email campaign over ${label} to ${receiver}; ${connections} connections each side; ${order}`,
    '| path | messages/s | seconds |',
    '|---|---|---|',
    `| baseline: plain script (own process), ${sender}, ${inFlight} sends in flight, chunks of 1000 read by seq, one bulk UPDATE per chunk; clock from its start (selecting its audience into recipients, as our snapshot does) to its last write | ${rate(plainSeconds)} | ${plainSeconds.toFixed(1)} |`,
    `| ours: POST /v1/campaigns/{id}/send → Completed (the audience snapshot, the workflow, our defaults) | ${rate(ourSeconds)} | ${ourSeconds.toFixed(1)} |`,
    `ratio ours / baseline = **${ratio.toFixed(2)}** (target ≥ 2.0); every recipient exactly once: baseline ${exactlyOnce(plainCounts, recipients) ? 'yes' : 'NO'}, ours ${exactlyOnce(ourCounts, recipients) ? 'yes' : 'NO'}`,
    describeCounts('sink, baseline', transport, plainCounts, recipients, plainSeconds),
    describeCounts('sink, ours', transport, ourCounts, recipients, ourSeconds),
    `- timeline, seconds from each clock's start: baseline first message at the sink ${at(plainCounts.firstAt, plainStartedAt)}, ` +
      `last ${at(plainCounts.lastAt, plainStartedAt)}, last status written ${plainSeconds.toFixed(1)}; ours first message ${at(ourCounts.firstAt, startedAt)} ` +
      `(after the snapshot and the workflow's start), last ${at(ourCounts.lastAt, startedAt)}; statuses written from ${at(written.first, startedAt)} ` +
      `to ${at(written.last, startedAt)}; Completed seen ${ourSeconds.toFixed(1)}`,
    `- CPU, % of one core over each clock: baseline process ${pct(plainCpu, plainSeconds)}, worker during our send ${pct(workerCpu, ourSeconds)}`,
    `- ours: campaign ${final.status}, sent ${final.sentCount}; worker peak RSS ${workerPeak.toFixed(0)} MiB ` +
      `(baseline process ${plainPeak.toFixed(0)} MiB); workflow runs ${histories.length}, history events per run: ${histories.join(', ')}; activity retries ${activityRetries}`,
    '',
    ...cpuPerUnitTable(
      'message',
      [
        { label: 'baseline', windows: [baselineWindow], units: recipients, seconds: plainSeconds },
        { label: 'ours', windows: [oursWindow], units: recipients, seconds: ourSeconds },
      ],
      3,
    ),
    `- Postgres's CPU ms per message by process: baseline ${postgresRoles.baseline}; ours ${postgresRoles.ours}`,
    ...(ourStatements.length ? ['', ...ourStatements] : []),
    '',
  ];
  o.log(lines.join('\n'));
  // Ours, summed over the processes of ours and the servers they use (the sink's aside).
  const ourCpuMs =
    (1000 * ['worker', 'API', 'Temporal', 'Postgres'].reduce((t, p) => t + oursWindow[p], 0)) / recipients;
  return { lines, plainSeconds, ourSeconds, ourCpuMs };
}

/**
 * Each comparison twice, the sides alternating (baseline, ours, ours, baseline), so neither gains
 * from going first or second on a machine that warms up or fills up; the ratio of the two sides'
 * total seconds is the figure.
 */
async function alternatingRuns(o: CampaignBenchOptions, sink: Sink, transport: Transport, recipients: number) {
  const first = await campaignRun(o, sink, transport, recipients, 'baseline first');
  const second = await campaignRun(o, sink, transport, recipients, 'ours first');
  const ratio = (first.plainSeconds + second.plainSeconds) / (first.ourSeconds + second.ourSeconds);
  const summary =
    `**${transport.toUpperCase()} at ${recipients.toLocaleString('en')}, both orders: ratio ours / baseline = ${ratio.toFixed(2)}** ` +
    `(baseline first ${(first.plainSeconds / first.ourSeconds).toFixed(2)}, ours first ${(second.plainSeconds / second.ourSeconds).toFixed(2)}; target ≥ 2.0); ` +
    `ours CPU per message, worker + API + Temporal + Postgres: **${((first.ourCpuMs + second.ourCpuMs) / 2).toFixed(3)} ms** (target ≤ 0.15)`;
  o.log(summary);
  return [...first.lines, ...second.lines, summary, ''];
}

/**
 * (d) A campaign sent by us against the strongest simple program that sends it (bench/plainCampaign.ts),
 * both to the same receiver in its own process (bench/smtpSink.ts), which checks exactly-once delivery:
 * over SMTP at `recipients` (and `largeRecipients`), and to the fake HTTP provider at `recipients`.
 */
export async function benchCampaigns(o: CampaignBenchOptions): Promise<string[]> {
  const sink = await startSink();
  const out: string[] = [];
  try {
    if (o.transports.includes('smtp')) out.push(...(await alternatingRuns(o, sink, 'smtp', o.recipients)));
    if (o.transports.includes('http')) out.push(...(await alternatingRuns(o, sink, 'http', o.recipients)));
    if (o.largeRecipients > 0) out.push(...(await alternatingRuns(o, sink, 'smtp', o.largeRecipients)));
    return out;
  } finally {
    await sink.stop();
  }
}

/** (e) Segment evaluation in SQL on a large team: the preview's time, and Postgres's plan for it. */
export async function benchSegments(
  o: Pick<CampaignBenchOptions, 'db' | 'apiBaseUrl' | 'team' | 'segmentContacts' | 'log'>,
): Promise<string[]> {
  const out: string[] = [];
  const big = await o.team('bench-segment');
  const started = performance.now();
  await seedContacts(o.db, big.teamId, o.segmentContacts, 'ct_sg');
  await o.db.raw(
    `INSERT INTO orders (id, team_id, contact_id, amount, ordered_at)
    SELECT 'ord_sg' || g, ?, 'ct_sg' || g, (g % 500) + 10, now() - make_interval(days => g % 365) FROM generate_series(1, ?, 3) g`,
    [big.teamId, o.segmentContacts],
  );
  await o.db.raw('ANALYZE contacts; ANALYZE orders');
  const seedSeconds = (performance.now() - started) / 1000;
  const bigCall = (path: string, body: unknown) =>
    fetch(`${o.apiBaseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${big.token}`, 'x-team-slug': big.team, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then((r) => r.json() as Promise<Answer>);
  const segment = await bigCall('/segments', {
    name: 'gold buyers',
    groups: [
      {
        conditions: [
          { type: 'prop', value: 'tier:gold' },
          { type: 'order_count_at_least', value: 1 },
          { type: 'has_email' },
        ],
      },
    ],
  });
  const timings: number[] = [];
  let preview: Answer | undefined;
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    preview = await bigCall('/campaigns/audience-preview', { channel: 'email', segmentId: segment.id });
    timings.push(performance.now() - t);
  }
  const tagSegment = await bigCall('/segments', {
    name: 'tag',
    groups: [{ conditions: [{ type: 'tag', value: 't3' }] }],
  });
  const t2 = performance.now();
  const tagPreview = await bigCall('/campaigns/audience-preview', { channel: 'email', segmentId: tagSegment.id });
  const tagMs = performance.now() - t2;
  out.push(
    `## (e) Segment evaluation on ${o.segmentContacts.toLocaleString('en')} contacts (seeded in ${seedSeconds.toFixed(1)} s, orders for every third)`,
    '| segment | audience-preview ms | matching |',
    '|---|---|---|',
    `| prop tier:gold AND order_count_at_least 1 AND has_email | ${Math.min(...timings).toFixed(0)} (best of 3) | ${preview?.sendable} |`,
    `| tag t3 | ${tagMs.toFixed(0)} | ${tagPreview.sendable} |`,
  );
  const explain = async (segmentId: string) => {
    const audience = await resolveAudience(o.db, big.teamId, { segmentId });
    const plan = await o.db.raw(
      `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${previewQuery(o.db, big.teamId, 'email', audience).toQuery()}`,
    );
    return plan.rows.map((r: { 'QUERY PLAN': string }) => `    ${r['QUERY PLAN']}`).join('\n');
  };
  out.push(
    '',
    'Plan of the first preview (EXPLAIN ANALYZE):',
    '',
    await explain(segment.id),
    '',
    'Plan of the tag preview:',
    '',
    await explain(tagSegment.id),
  );
  o.log(out.join('\n'));
  return out;
}
