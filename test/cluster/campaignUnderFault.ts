import { newId } from '../../db/ids';
import { ClusterState, readClusterState } from '../../temporal/cluster';
import { FakeProviderServer } from '../fakes/providerServer';
import { startApiProcess, WorkerProcess } from '../setup/stack';
import { apiClient, ApiClient, newTeam, sleep, temporalClient, testDb, TestTeam, waitForJob } from '../support/helpers';
import type { Db } from '../../db/knex';

/**
 * What the production-profile fault tests share: a 20 000-recipient SMTP campaign sent by the
 * two shared workers through the Temporal cluster, a fault in the middle, and the checks a user
 * would make afterwards (docs/CAMPAIGNS.md, "Exactly once"; docs/API.md, 503 `temporal_unavailable`).
 */
export const RECIPIENTS = 20_000;
/** The SMTP pool's default: 20 connections, two sends each in flight; chunks of 400 recorded per statement. */
const IN_FLIGHT = 40;
const CHUNK = 400;
/** What one crash may send again (docs/CAMPAIGNS.md): the sends in flight plus two chunks of answers. */
export const REPEATS_PER_FAULT = IN_FLIGHT + 2 * CHUNK;
/** The API's deadline on a Temporal call (the default is 5 s; shorter keeps the outage checks quick). */
const TEMPORAL_DEADLINE_MS = 2_000;
/**
 * How long an outage lasts: past the campaign send activity's 10 s heartbeat timeout, so Temporal,
 * once back, gives the running attempt up and starts another while the first may still be sending
 * (the case docs/CAMPAIGNS.md says stops taking recipients), not just a blip nobody noticed.
 */
export const OUTAGE_MS = 15_000;

export interface FaultSuite {
  db: Db;
  fake: FakeProviderServer;
  /** The API as its own process (server.ts), on the cluster and the shared workers' task queue. */
  apiProcess: WorkerProcess & { baseUrl: string };
  cluster: ClusterState;
}

/** Registers beforeAll/afterAll: a database handle, the SMTP sink, an API process, the cluster's state. */
export function useFaultSuite(): FaultSuite {
  const suite = {} as FaultSuite;
  beforeAll(async () => {
    suite.cluster = readClusterState(process.env.TEMPORAL_CLUSTER_STATE!);
    suite.db = testDb();
    suite.fake = await new FakeProviderServer().start();
    suite.apiProcess = await startApiProcess({ TEMPORAL_REQUEST_TIMEOUT_MS: String(TEMPORAL_DEADLINE_MS) });
  }, 120_000);
  afterAll(async () => {
    await suite.apiProcess?.stop();
    await suite.fake?.stop();
    await suite.db?.destroy();
  });
  return suite;
}

export interface SmtpCampaign {
  team: TestTeam;
  api: ApiClient;
  campaignId: string;
  /** The addresses of this campaign's recipients end with this. */
  domain: string;
}

/**
 * `count` consenting contacts tagged `tag` and a Draft campaign to them, for `team`; without one,
 * a new team with an SMTP integration on the sink. (A given team keeps its integration as it is:
 * writing it again would reset the connections of a send in progress.)
 */
async function smtpCampaign(suite: FaultSuite, tag: string, count: number, existing?: TestTeam): Promise<SmtpCampaign> {
  const team = existing ?? (await newTeam(suite.db, tag));
  const api = apiClient(suite.apiProcess.baseUrl, team);
  if (!existing) {
    const integration = await api.call('PUT', `/agents/${team.agentId}/integrations/email`, {
      provider: 'smtp',
      config: { host: '127.0.0.1', port: suite.fake.smtpPort },
      from: 'news@acme.example',
    });
    expect(integration.status).toBe(200);
  }
  const domain = `@${tag}.example`;
  const rows = Array.from({ length: count }, (_, i) => ({
    id: newId('ct'),
    team_id: team.teamId,
    name: `Person ${i}`,
    first_name: 'Person',
    email: `p${i}${domain}`,
    tags: [tag],
    marketing_consent: 'granted',
  }));
  for (let i = 0; i < rows.length; i += 5000) await suite.db('contacts').insert(rows.slice(i, i + 5000));
  const created = await api.post('/campaigns', {
    name: `Cluster ${tag}`,
    channel: 'email',
    subject: 'Hello {{first}}',
    content: 'Hi {{first}}',
    templateParams: { first: 'contact.firstName' },
    tags: [tag],
  });
  expect(created.status).toBe(201);
  return { team, api, campaignId: created.body.id, domain };
}

/** The 20 000-recipient campaign, sending. */
export async function sendBigCampaign(suite: FaultSuite, tag: string): Promise<SmtpCampaign> {
  const campaign = await smtpCampaign(suite, tag, RECIPIENTS);
  const sent = await campaign.api.post(`/campaigns/${campaign.campaignId}/send`, {});
  expect(sent.status).toBe(200);
  expect(sent.body.status).toBe('sending');
  return campaign;
}

export const messagesTo = (suite: FaultSuite, campaign: SmtpCampaign) =>
  [...suite.fake.messages.values()].filter((m) => m.to.endsWith(campaign.domain));

/** Waits until the sink received `fraction` of the recipients (a fault then lands mid-send). */
export async function waitUntilDelivered(suite: FaultSuite, campaign: SmtpCampaign, fraction: number): Promise<number> {
  const deadline = Date.now() + 240_000;
  for (;;) {
    const received = messagesTo(suite, campaign).length;
    if (received >= RECIPIENTS * fraction) return received;
    if (Date.now() > deadline) throw new Error(`only ${received} of ${RECIPIENTS} messages arrived`);
    await sleep(50);
  }
}

/** What an outage left for later: a Draft campaign whose send was refused, and a job request's key and id. */
export interface Outage {
  draft: SmtpCampaign;
  jobKey: string;
  jobId: string;
}

/** A three-recipient Draft campaign of `team`, for the outage checks (created while Temporal is still up). */
export const draftCampaign = (suite: FaultSuite, team: TestTeam, tag: string) => smtpCampaign(suite, tag, 3, team);

/**
 * Called just after a fault, and returns about {@link OUTAGE_MS} later (the caller then ends the
 * fault): what a client asking for work gets while Temporal cannot serve. A campaign send and a
 * job start answer 503 `temporal_unavailable` in the error envelope within the deadline (never
 * 500), at the start and at the end of the outage; the campaign stays Draft, and the job's id
 * comes back for a later read or retry.
 */
export async function expectTemporalUnavailable(draft: SmtpCampaign, jobKey: string): Promise<Outage> {
  const outageStarted = Date.now();
  const expectEnvelope503 = (res: { status: number; headers: Headers; body: any }, ms: number) => {
    expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: 503, code: 'temporal_unavailable' });
    expect(typeof res.body.error.message).toBe('string');
    expect(res.headers.get('retry-after')).toBe('5');
    // The deadline plus what the request itself costs on a loaded 2-core machine.
    expect(ms).toBeLessThan(TEMPORAL_DEADLINE_MS + 3_000);
  };
  let started = Date.now();
  const send = await draft.api.post(`/campaigns/${draft.campaignId}/send`, {});
  expectEnvelope503(send, Date.now() - started);
  expect((await draft.api.get(`/campaigns/${draft.campaignId}`)).body.status).toBe('draft');

  started = Date.now();
  const job = await draft.api.post('/jobs', { type: 'contacts.export', input: {} }, { 'idempotency-key': jobKey });
  expectEnvelope503(job, Date.now() - started);
  expect(typeof job.body.error.details.jobId).toBe('string');
  // Reading the job meanwhile (a read settles a queued job by asking Temporal): it answers, as
  // `queued` or 503 in the envelope, never 500.
  const reads = new Map<string, number>();
  while (Date.now() < outageStarted + OUTAGE_MS - 3_000) {
    const read = await draft.api.get(`/jobs/${job.body.error.details.jobId}`);
    const seen = read.status === 200 ? `200 ${read.body.status}` : `${read.status} ${read.body?.error?.code}`;
    reads.set(seen, (reads.get(seen) ?? 0) + 1);
    await sleep(500);
  }
  expect([...reads.keys()].filter((seen) => seen !== '200 queued' && seen !== '503 temporal_unavailable')).toEqual([]);
  // Still 503 at the end of the outage (the API does not give up on Temporal, nor answer 500).
  const late = await draft.api.post(`/campaigns/${draft.campaignId}/send`, {});
  expect({ status: late.status, code: late.body?.error?.code }).toEqual({ status: 503, code: 'temporal_unavailable' });
  return { draft, jobKey, jobId: job.body.error.details.jobId };
}

/** Repeats a request that answers 503 (as the envelope's Retry-After asks), for up to two minutes. */
async function retryWhileUnavailable<T extends { status: number }>(call: () => Promise<T>): Promise<T> {
  let res = await call();
  for (let i = 0; i < 120 && res.status === 503; i++) {
    await sleep(1_000);
    res = await call();
  }
  return res;
}

/**
 * Once Temporal is back, nothing the outages touched is left half-started: the same job request
 * (same key) gets the same job, which then succeeds; each Draft campaign sends to its three; and
 * then the team has no job row stuck in queued or running.
 */
export async function expectNothingStranded(suite: FaultSuite, outages: Outage[]): Promise<void> {
  for (const outage of outages) await expectOutageUndone(suite, outage);
  const inFlight = await suite
    .db('jobs')
    .whereIn('team_id', [...new Set(outages.map((o) => o.draft.team.teamId))])
    .whereIn('status', ['queued', 'running'])
    .select('id', 'status');
  expect(inFlight).toEqual([]);
}

async function expectOutageUndone(suite: FaultSuite, outage: Outage): Promise<void> {
  const { api } = outage.draft;
  const retried = await retryWhileUnavailable(() =>
    api.post('/jobs', { type: 'contacts.export', input: {} }, { 'idempotency-key': outage.jobKey }),
  );
  expect(retried.status).toBe(202);
  expect(retried.body.jobId).toBe(outage.jobId);
  expect(await waitForJob(api, outage.jobId, { timeoutMs: 120_000 })).toMatchObject({ status: 'succeeded' });

  const sent = await retryWhileUnavailable(() => api.post(`/campaigns/${outage.draft.campaignId}/send`, {}));
  expect(sent.status).toBe(200);
  expect(await campaignEnded(api, outage.draft.campaignId)).toMatchObject({
    status: 'completed',
    recipientCount: 3,
    sentCount: 3,
    failedCount: 0,
  });
  expect(messagesTo(suite, outage.draft)).toHaveLength(3);
}

/** Polls the campaign until it completed or failed; an answer other than 200 (an outage) is waited out. */
export async function campaignEnded(api: ApiClient, campaignId: string, timeoutMs = 480_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  let last: any;
  while (Date.now() < deadline) {
    const res = await api.get(`/campaigns/${campaignId}`);
    if (res.status === 200) {
      last = res.body;
      if (last.status === 'completed' || last.status === 'failed') return last;
    }
    await sleep(250);
  }
  throw new Error(`campaign ${campaignId} did not end; last seen ${JSON.stringify(last)}`);
}

/**
 * The campaign completed, and every recipient got exactly one message: one Message-ID each at the
 * sink; a repeat only for a send a fault caught in flight, carrying its first copy's Message-ID
 * (a receiver drops it), at most {@link REPEATS_PER_FAULT} per fault; the counters add up with the
 * recipient and outbound-message rows. Returns the repeats, for the log line.
 */
export async function expectEveryRecipientOnce(
  suite: FaultSuite,
  campaign: SmtpCampaign,
  faults: number,
): Promise<{ repeats: number; recipientsRepeated: number }> {
  const final = await campaignEnded(campaign.api, campaign.campaignId);
  expect(final).toMatchObject({
    status: 'completed',
    recipientCount: RECIPIENTS,
    sentCount: RECIPIENTS,
    failedCount: 0,
    skippedCount: 0,
  });

  const received = messagesTo(suite, campaign);
  // The sink keeps one message per Message-ID: one per recipient, none missing, none with a second id.
  expect(new Set(received.map((m) => m.to)).size).toBe(RECIPIENTS);
  expect(received).toHaveLength(RECIPIENTS);
  const repeated = received.filter((m) => m.duplicates > 0);
  for (const m of repeated) {
    // The key `<campaignId>:<contactId>:<attempt>`, spelled as a Message-ID (channels/providers.ts).
    expect(m.messageId).toMatch(new RegExp(`^<${campaign.campaignId}\\.ct_[0-9a-z]{20}\\.\\d+@acme\\.example>$`));
    expect(m.repeatMessageIds).toEqual(Array(m.duplicates).fill(m.messageId));
  }
  const repeats = repeated.reduce((sum, m) => sum + m.duplicates, 0);
  expect(repeats).toBeLessThanOrEqual(faults * REPEATS_PER_FAULT);

  const byStatus: { status: string; n: string }[] = await suite
    .db('campaign_recipients')
    .where({ campaign_id: campaign.campaignId })
    .groupBy('status')
    .select('status', suite.db.raw('count(*) as n'));
  expect(Object.fromEntries(byStatus.map((r) => [r.status, Number(r.n)]))).toEqual({ sent: RECIPIENTS });
  const outbound = await suite
    .db('outbound_messages')
    .where({ source_kind: 'campaign', source_id: campaign.campaignId })
    .select('status');
  expect(outbound).toHaveLength(RECIPIENTS);
  expect(outbound.every((m) => m.status === 'sent')).toBe(true);
  return { repeats, recipientsRepeated: repeated.length };
}

/**
 * The attempt number of each activity the campaign's run completed, in order (snapshot, then each
 * batch): an attempt above 1 is one that Temporal gave up on and ran again.
 */
export async function activityAttempts(campaignId: string): Promise<number[]> {
  const client = await temporalClient();
  try {
    const history = await client.workflow.getHandle(`campaign-${campaignId}-run-1`).fetchHistory();
    return (history.events ?? []).flatMap((e) =>
      e.activityTaskStartedEventAttributes ? [e.activityTaskStartedEventAttributes.attempt ?? 1] : [],
    );
  } finally {
    await client.connection.close();
  }
}
