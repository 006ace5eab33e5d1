import type { Client } from '@temporalio/client';
import nodemailer from 'nodemailer';
import type { Db } from '../db/knex';
import { recordEvents } from '../services/events/outbox';
import { cohortWorkflowId } from '../workflows/contracts/cohort';
import { cpuPerUnitTable, peakRss, stackLedger, type CpuSide } from './procStats';
import { startSink, type Sink } from './sink';

/**
 * (i) ENROLLMENTS contacts created at once (one commit, a `contact.created` each, as an import
 * writes them) enter an automation whose journey is wait WAIT_SECONDS → send an email → wait
 * WAIT_SECONDS: the platform (outbox → dispatcher → cohorts, one timer per wait, the bulk send
 * path) vs. the strongest simple program for the same sends: one process that reads the contacts,
 * waits, sends every email through one pooled SMTP transport (IN_FLIGHT at a time), waits again.
 * The sides alternate (plain, platform, platform, plain) and the ratio is of their means. Both send
 * to the same SMTP sink process, which counts each recipient. With `large` set, the platform alone
 * runs that many journeys once more: exactly once, the worker's peak RSS, the longest history.
 */
export interface AutomationBenchOptions {
  db: Db;
  client: Client;
  apiBaseUrl: string;
  apiPid: number;
  workerPid: number;
  team: { token: string; team: string; teamId: string; agentId: string };
  enrollments: number;
  /** 0: no large run. */
  large: number;
  log: (line: string) => void;
}

const WAIT_SECONDS = 5;
const IN_FLIGHT = 40;
const SUBJECT = 'Welcome {{first}}';
const CONTENT = 'Hello {{first}}, good to have you.';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function benchAutomations(o: AutomationBenchOptions): Promise<string[]> {
  const sink = await startSink();
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${o.apiBaseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${o.team.token}`,
        'x-team-slug': o.team.team,
        'content-type': 'application/json',
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (!res.ok) throw new Error(`bench (i): ${method} ${path} answered ${res.status}: ${await res.text()}`);
    return res.json() as Promise<{ id: string }>;
  };
  try {
    await call('PUT', '/apps/automations');
    await call('PATCH', `/agents/${o.team.agentId}`, { mode: 'auto' });
    await call('PUT', `/agents/${o.team.agentId}/integrations/email`, {
      provider: 'smtp',
      config: { host: '127.0.0.1', port: sink.smtpPort },
      from: 'hello@bench.example',
    });
    const automation = await call('POST', '/automations', {
      name: 'bench-i',
      agentId: o.team.agentId,
      trigger: { kind: 'event', event: 'contact.created' },
      steps: [
        { type: 'wait', duration: `${WAIT_SECONDS}s` },
        {
          type: 'send',
          channel: 'email',
          subject: SUBJECT,
          content: CONTENT,
          templateParams: { first: 'contact.firstName' },
        },
        { type: 'wait', duration: `${WAIT_SECONDS}s` },
      ],
    });
    // The plain script's own contacts (no events, so the automation enrolls none of them).
    await o.db.raw(
      `INSERT INTO contacts (id, team_id, name, first_name, email, tags, marketing_consent)
       SELECT 'bp' || g, ?, 'Person ' || g, 'Person', 'p' || g || '@bench.example', ARRAY['bench-i-plain'], 'granted'
       FROM generate_series(1, ?) g`,
      [o.team.teamId, o.enrollments],
    );
    const cpu = stackLedger({ API: o.apiPid, worker: o.workerPid, 'bench (plain script)': process.pid });
    const plain: CpuSide = { label: 'plain script', windows: [], units: 0, seconds: 0 };
    const ours: CpuSide = { label: 'platform', windows: [], units: 0, seconds: 0 };
    const runs: Awaited<ReturnType<typeof platformJourneys>>[] = [];
    const plainRun = async () => {
      const run = await cpu.during(() => plainJourneys(o, sink), plain.windows);
      if (run.counts.recipients !== o.enrollments || run.counts.recipientsMoreThanOnce)
        throw new Error(`bench (i): the plain script reached ${JSON.stringify(run.counts)}`);
      plain.units += o.enrollments;
      plain.seconds += run.seconds;
      return run;
    };
    const oursRun = async (round: string) => {
      const run = await cpu.during(() => platformJourneys(o, sink, automation.id, round, o.enrollments), ours.windows);
      ours.units += o.enrollments;
      ours.seconds += run.seconds;
      runs.push(run);
      o.log(`(i) platform ${round}: ${o.enrollments} journeys in ${run.seconds.toFixed(1)} s, ${run.summary}`);
      return run;
    };
    const p1 = await plainRun();
    await oursRun('a');
    await oursRun('b');
    const p2 = await plainRun();
    o.log(`(i) plain: ${o.enrollments} journeys in ${p1.seconds.toFixed(1)} s, then ${p2.seconds.toFixed(1)} s`);
    const plainSeconds = plain.seconds / 2;
    const oursSeconds = ours.seconds / 2;
    const lines = [
      `## (i) Journeys: ${o.enrollments} enrollments of wait ${WAIT_SECONDS} s → email → wait ${WAIT_SECONDS} s, from contacts created in one commit`,
      '| path | completion s (each run) | journeys/s | emails at the sink |',
      '|---|---|---|---|',
      `| platform: outbox → dispatcher → cohorts (one timer per wait, the bulk send path) | ${runs.map((r) => r.seconds.toFixed(1)).join(', ')} | ${(o.enrollments / oursSeconds).toFixed(0)} | ${runs.map((r) => r.once).join('; ')} |`,
      `| plain script: read the contacts, wait, send through one pooled SMTP transport (${IN_FLIGHT} in flight), wait | ${p1.seconds.toFixed(1)}, ${p2.seconds.toFixed(1)} | ${(o.enrollments / plainSeconds).toFixed(0)} | ${once(p2.counts, o.enrollments)} |`,
      `ratio platform / plain = **${(plainSeconds / oursSeconds).toFixed(2)}** (means; the ${2 * WAIT_SECONDS} s of waiting are in both); ${runs.map((r) => r.summary).join('; ')}`,
      '',
      ...cpuPerUnitTable('journey', [plain, ours]),
    ];
    if (o.large) {
      const run = await platformJourneys(o, sink, automation.id, 'large', o.large);
      o.log(`(i) platform, large: ${o.large} journeys in ${run.seconds.toFixed(1)} s, ${run.summary}`);
      lines.push(
        '',
        `(i) large: ${o.large} journeys in ${run.seconds.toFixed(1)} s (${(o.large / run.seconds).toFixed(0)}/s); emails at the sink: ${run.once}; ${run.summary}`,
      );
    }
    return lines;
  } finally {
    await sink.stop();
  }
}

const once = (c: { recipients: number; recipientsMoreThanOnce: number }, of: number) =>
  `${c.recipients} of ${of} recipients, ${c.recipientsMoreThanOnce} more than once`;

/** `count` contacts and their contact.created events in one commit, then until every journey ended. */
async function platformJourneys(
  o: AutomationBenchOptions,
  sink: Sink,
  automationId: string,
  round: string,
  count: number,
) {
  await sink.reset('smtp');
  const peak = peakRss(o.workerPid);
  const started = Date.now();
  const startedAt = new Date(started);
  await o.db.transaction(async (trx) => {
    const ids: string[] = await trx
      .raw(
        `INSERT INTO contacts (id, team_id, name, first_name, email, tags, marketing_consent)
         SELECT 'bi' || ? || g, ?, 'Person ' || g, 'Person', 'i' || ? || g || '@bench.example', ARRAY['bench-i'], 'granted'
         FROM generate_series(1, ?) g RETURNING id`,
        [round, o.team.teamId, round, count],
      )
      .then((r: { rows: { id: string }[] }) => r.rows.map((row) => row.id));
    for (let i = 0; i < ids.length; i += 5_000)
      await recordEvents(
        trx,
        ids.slice(i, i + 5_000).map((id) => ({
          teamId: o.team.teamId,
          type: 'contact.created' as const,
          subject: id,
          dedupeKey: `bench-i:${id}`,
          data: { contact: { id } },
        })),
      );
  });
  const enrollments = () =>
    o.db('automation_enrollments').where({ automation_id: automationId }).where('created_at', '>=', startedAt);
  for (let last = -1, lastChange = Date.now(); ;) {
    const [{ n }] = await enrollments().whereIn('status', ['completed', 'failed', 'exited']).count({ n: '*' });
    const ended = Number(n);
    if (ended >= count) break;
    if (ended !== last) [last, lastChange] = [ended, Date.now()];
    if (Date.now() - lastChange > 120_000) throw new Error(`bench (i): stuck at ${ended} of ${count}`);
    await sleep(250);
  }
  const seconds = (Date.now() - started) / 1000;
  const statuses: { status: string; n: string }[] = await enrollments()
    .groupBy('status')
    .select('status')
    .count({ n: '*' });
  const cohorts: string[] = await o
    .db('automation_cohorts')
    .where({ automation_id: automationId })
    .where('created_at', '>=', startedAt)
    .pluck('id');
  const histories = await Promise.all(
    cohorts.map(async (id) => (await o.client.workflow.getHandle(cohortWorkflowId(id)).describe()).historyLength),
  );
  const counts = await sink.counts('smtp');
  return {
    seconds,
    counts,
    once: once(counts, count),
    summary:
      `${cohorts.length} cohort${cohorts.length === 1 ? '' : 's'} (longest history ${Math.max(...histories)} events), ` +
      `worker peak RSS ${peak().toFixed(0)} MiB, enrollments ${statuses.map((s) => `${s.status} ${s.n}`).join(', ')}`,
  };
}

/** The strongest simple program for the same journeys: read the contacts, wait, send them all through one pooled transport, wait. */
async function plainJourneys(o: AutomationBenchOptions, sink: Sink) {
  await sink.reset('smtp');
  const started = Date.now();
  const contacts: { id: string; first_name: string; email: string }[] = await o
    .db('contacts')
    .where({ team_id: o.team.teamId })
    .whereRaw(`'bench-i-plain' = ANY(tags)`)
    .select('id', 'first_name', 'email');
  const transport = nodemailer.createTransport({
    pool: true,
    maxConnections: IN_FLIGHT / 2,
    maxMessages: Infinity,
    host: '127.0.0.1',
    port: sink.smtpPort,
    secure: false,
  });
  await sleep(WAIT_SECONDS * 1000);
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < contacts.length) {
        const c = contacts[next++];
        await transport.sendMail({
          from: 'hello@bench.example',
          to: c.email,
          subject: SUBJECT.replace('{{first}}', c.first_name),
          text: CONTENT.replace('{{first}}', c.first_name),
          messageId: `<bench-i-${c.id}-${started}@bench.example>`,
        });
      }
    }),
  );
  await sleep(WAIT_SECONDS * 1000);
  const seconds = (Date.now() - started) / 1000;
  transport.close();
  return { seconds, counts: await sink.counts('smtp') };
}
