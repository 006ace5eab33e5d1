import type { Client } from '@temporalio/client';
import nodemailer from 'nodemailer';
import type { Db } from '../db/knex';
import { recordEvent } from '../services/events/outbox';
import { enrollmentWorkflowId } from '../workflows/contracts/enrollment';
import { rssOf } from './procStats';
import { startSink, type Sink } from './sink';

/**
 * (i) ENROLLMENTS contacts created at once (one commit, a `contact.created` each) enter an
 * automation whose journey is wait WAIT_SECONDS → send an email → wait WAIT_SECONDS: the platform
 * (outbox → dispatcher → one `enrollment-<id>` workflow each, durable timers, a send activity)
 * vs. the strongest simple program for the same sends: one process that reads the contacts, waits,
 * sends every email through one pooled SMTP transport (IN_FLIGHT at a time), waits again; it runs
 * before and after the platform (a platform run takes minutes at 10 000), and their mean is the
 * baseline. Both send to the same SMTP sink process, which counts each recipient.
 */
export interface AutomationBenchOptions {
  db: Db;
  client: Client;
  apiBaseUrl: string;
  workerPid: number;
  team: { token: string; team: string; teamId: string; agentId: string };
  enrollments: number;
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
    // The plain script's own contacts (no events, so the automation enrolls none of them), and its first run.
    await o.db.raw(
      `INSERT INTO contacts (id, team_id, name, first_name, email, tags, marketing_consent)
       SELECT 'bp' || g, ?, 'Person ' || g, 'Person', 'p' || g || '@bench.example', ARRAY['bench-i-plain'], 'granted'
       FROM generate_series(1, ?) g`,
      [o.team.teamId, o.enrollments],
    );
    const plainBefore = await plainJourneys(o, sink);
    if (plainBefore.counts.recipients !== o.enrollments) throw new Error('bench (i): the plain script lost emails');
    await sink.reset('smtp');

    // The platform: the contacts and their events in one commit, as an import would write them.
    let peak = rssOf(o.workerPid);
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(o.workerPid))), 250);
    const started = Date.now();
    await o.db.transaction(async (trx) => {
      const ids: string[] = await trx
        .raw(
          `INSERT INTO contacts (id, team_id, name, first_name, email, tags, marketing_consent)
           SELECT 'bi' || g, ?, 'Person ' || g, 'Person', 'i' || g || '@bench.example', ARRAY['bench-i'], 'granted'
           FROM generate_series(1, ?) g RETURNING id`,
          [o.team.teamId, o.enrollments],
        )
        .then((r: { rows: { id: string }[] }) => r.rows.map((row) => row.id));
      // One at a time: a transaction is one connection, which runs one query at a time anyway
      // (pg queued the 500 this loop once fired at it, a use pg 9 refuses).
      for (const id of ids)
        await recordEvent(trx, {
          teamId: o.team.teamId,
          type: 'contact.created',
          subject: id,
          dedupeKey: `bench-i:${id}`,
          data: { contact: { id } },
        });
    });
    const done = async () =>
      Number(
        (
          await o
            .db('automation_enrollments')
            .where({ automation_id: automation.id })
            .whereIn('status', ['completed', 'failed', 'exited'])
            .count({ n: '*' })
        )[0].n,
      );
    for (let last = -1, lastChange = Date.now(); ;) {
      const ended = await done();
      if (ended >= o.enrollments) break;
      if (ended !== last) [last, lastChange] = [ended, Date.now()];
      if (Date.now() - lastChange > 120_000) throw new Error(`bench (i): stuck at ${ended} of ${o.enrollments}`);
      await sleep(500);
    }
    const oursSeconds = (Date.now() - started) / 1000;
    clearInterval(sampler);
    const statuses: { status: string; n: string }[] = await o
      .db('automation_enrollments')
      .where({ automation_id: automation.id })
      .groupBy('status')
      .select('status')
      .count({ n: '*' });
    const oursCounts = await sink.counts('smtp');
    const sample: { id: string }[] = await o
      .db('automation_enrollments')
      .where({ automation_id: automation.id })
      .orderBy('seq')
      .limit(5)
      .select('id');
    const historyLengths = await Promise.all(
      sample.map(
        async ({ id }) =>
          (await o.client.workflow.getHandle(enrollmentWorkflowId(id)).fetchHistory()).events?.length ?? 0,
      ),
    );
    o.log(`(i) platform: ${o.enrollments} journeys in ${oursSeconds.toFixed(1)} s, worker peak ${peak.toFixed(0)} MiB`);

    // The plain program again, after the platform (it also ran before): the mean of the two is the baseline.
    const plainAfter = await plainJourneys(o, sink);
    const plainSeconds = (plainBefore.seconds + plainAfter.seconds) / 2;
    const plainCounts = plainAfter.counts;
    o.log(
      `(i) plain: ${o.enrollments} journeys in ${plainBefore.seconds.toFixed(1)} s, then ${plainAfter.seconds.toFixed(1)} s`,
    );

    const once = (c: typeof oursCounts) =>
      `${c.recipients} of ${o.enrollments} recipients, ${c.recipientsMoreThanOnce} more than once`;
    return [
      `## (i) Journeys: ${o.enrollments} enrollments of wait ${WAIT_SECONDS} s → email → wait ${WAIT_SECONDS} s, from contacts created in one commit`,
      '| path | completion s | journeys/s | emails at the sink |',
      '|---|---|---|---|',
      `| platform: outbox → dispatcher → enrollment-<id> workflows (durable timers, a send activity each) | ${oursSeconds.toFixed(1)} | ${(o.enrollments / oursSeconds).toFixed(0)} | ${once(oursCounts)} |`,
      `| plain script: read the contacts, wait, send through one pooled SMTP transport (${IN_FLIGHT} in flight), wait (mean of a run before and one after) | ${plainSeconds.toFixed(1)} | ${(o.enrollments / plainSeconds).toFixed(0)} | ${once(plainCounts)} |`,
      `ratio platform / plain = **${(plainSeconds / oursSeconds).toFixed(2)}** (the ${2 * WAIT_SECONDS} s of waiting are in both); worker peak RSS ${peak.toFixed(0)} MiB; ` +
        `history events per enrollment ${Math.min(...historyLengths)}–${Math.max(...historyLengths)}; enrollments ${statuses.map((s) => `${s.status} ${s.n}`).join(', ')}`,
    ];
  } finally {
    await sink.stop();
  }
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
