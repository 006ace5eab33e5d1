import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@temporalio/client';
import type { Db } from '../db/knex';
import { resolveAudience } from '../services/campaigns/audience';
import { previewQuery } from '../services/campaigns/audiencePreview';
import { FakeProviderServer } from '../test/fakes/providerServer';

interface CampaignBenchOptions {
  db: Db;
  databaseUrl: string;
  client: Client;
  apiBaseUrl: string;
  workerPid: number;
  /** A new team on the unmetered bench plan. */
  team: (prefix: string) => Promise<{ team: string; teamId: string; agentId: string; token: string }>;
  recipients: number;
  segmentContacts: number;
  concurrency: number;
  log: (line: string) => void;
}

const execFileAsync = promisify(execFile);
/** The fields the bench reads from the API's JSON answers (a campaign, a segment, an audience preview). */
type Answer = { id: string; status: string; sentCount: number; sendable: number };
const rssOf = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/** Inserts `count` contacts for a team in one statement (generate_series), tagged and consenting. */
async function seedContacts(db: Db, teamId: string, count: number, prefix: string): Promise<void> {
  await db.raw(
    `INSERT INTO contacts (id, team_id, name, first_name, email, tags, marketing_consent, properties)
    SELECT ?, ?, 'Person ' || g, 'Person', ? || g || '@bench.example', ARRAY['bench', 't' || (g % 10)], 'granted', jsonb_build_object('tier', CASE WHEN g % 7 = 0 THEN 'gold' ELSE 'basic' END)
    FROM generate_series(1, ?) g`.replace('SELECT ?,', `SELECT '${prefix}' || g,`),
    [teamId, `${prefix}`, count],
  );
}

/**
 * (d) A campaign to `recipients` contacts through the fake provider over HTTP, against a plain
 * script that makes the same provider calls with the same concurrency and the same per-recipient
 * updates, without Temporal.
 */
export async function benchCampaigns(o: CampaignBenchOptions): Promise<string[]> {
  const fake = await new FakeProviderServer().start();
  const out: string[] = [];
  try {
    // Plain script: snapshot the recipients, then send and mark each, `concurrency` at a time.
    const plain = await o.team('bench-plain-campaign');
    await seedContacts(o.db, plain.teamId, o.recipients, 'ct_pl');
    const [plainCampaign] = await o
      .db('campaigns')
      .insert({
        id: `cmp_plain${Date.now()}`,
        team_id: plain.teamId,
        name: 'plain',
        channel: 'email',
        subject: 'Hi',
        content: 'Hello',
        status: 'sending',
      })
      .returning('id');
    await o.db.raw(
      `INSERT INTO campaign_recipients (campaign_id, contact_id, status, address) SELECT ?, id, 'pending', email FROM contacts WHERE team_id = ?`,
      [plainCampaign.id, plain.teamId],
    );
    // The baseline runs as its own process, as the worker does, so neither shares an event loop with the fake provider.
    // (Asynchronously: the fake provider answers from this process's event loop.)
    const { stdout } = await execFileAsync(
      process.execPath,
      ['--import', 'tsx', path.join(__dirname, 'plainCampaign.ts')],
      {
        env: {
          ...process.env,
          DATABASE_URL: o.databaseUrl,
          CAMPAIGN_ID: plainCampaign.id,
          PROVIDER_URL: fake.baseUrl,
          CONCURRENCY: String(o.concurrency),
        },
        encoding: 'utf8',
        maxBuffer: 1 << 20,
      },
    );
    const plainSeconds = Number(stdout.trim());
    fake.reset();

    // The product: POST /v1/campaigns, send, until Completed.
    const team = await o.team('bench-campaign');
    await seedContacts(o.db, team.teamId, o.recipients, 'ct_cp');
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${o.apiBaseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${team.token}`,
          'x-team-slug': team.team,
          'content-type': 'application/json',
        },
        body: body ? JSON.stringify(body) : undefined,
      }).then((r) => r.json() as Promise<Answer>);
    await call('PUT', `/agents/${team.agentId}/integrations/email`, {
      provider: 'resend',
      config: { baseUrl: fake.baseUrl },
      secrets: { apiKey: 'k' },
      from: 'news@bench.example',
    });
    const campaign = await call('POST', '/campaigns', {
      name: 'bench',
      channel: 'email',
      subject: 'Hi {{first}}',
      content: 'Hello {{first}}',
      templateParams: { first: 'contact.firstName' },
      tags: ['bench'],
    });
    let peakRss = rssOf(o.workerPid);
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, rssOf(o.workerPid));
    }, 250);
    const started = performance.now();
    await call('POST', `/campaigns/${campaign.id}/send`, {});
    let final: Answer;
    do {
      await new Promise((r) => setTimeout(r, 250));
      final = await call('GET', `/campaigns/${campaign.id}`);
    } while (final.status === 'sending');
    const productSeconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    const histories: number[] = [];
    for await (const run of o.client.workflow.list({ query: `WorkflowId = "campaign-${campaign.id}-run-1"` })) {
      histories.push((await o.client.workflow.getHandle(run.workflowId, run.runId).describe()).historyLength);
    }
    out.push(
      `## (d) ${o.recipients.toLocaleString('en')}-recipient email campaign to the fake provider (HTTP), ${o.concurrency} sends in flight`,
      '| path | messages/s | seconds |',
      '|---|---|---|',
      `| plain script (own process): same provider calls, same per-recipient updates, no Temporal | ${(o.recipients / plainSeconds).toFixed(0)} | ${plainSeconds.toFixed(1)} |`,
      `| POST /v1/campaigns → send → Completed (workflow, batches of 500) | ${(o.recipients / productSeconds).toFixed(0)} | ${productSeconds.toFixed(1)} |`,
      `ratio campaign / plain = **${(plainSeconds / productSeconds).toFixed(2)}** (target ≥ 0.8); campaign ${final.status}, sent ${final.sentCount}; ` +
        `duplicates at the provider: ${fake.totalDuplicates()}; worker peak RSS ${peakRss.toFixed(0)} MiB; workflow runs ${histories.length}, history events per run: ${histories.join(', ')}`,
    );
    o.log(out.slice(-6).join('\n'));

    return out;
  } finally {
    await fake.stop();
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
