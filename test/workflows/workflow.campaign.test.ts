import { randomBytes } from 'node:crypto';
import { createCampaignActivities } from '../../services/campaigns/activities';
import { offlineTextGenerator } from '../../services/campaigns/content';
import { newId } from '../../db/ids';
import { setIntegration } from '../../services/agents/integrations';
import { SecretBox } from '../../services/platform/secretBox';
import {
  CampaignRunArgs,
  CampaignWorkflow,
  campaignWorkflowName,
  cancelSchedule,
  cardsDecided,
  progress,
} from '../../workflows/contracts/campaign';
import { defaultPayloadConverter } from '@temporalio/common';
import { workflowMetadataQuery } from '@temporalio/workflow';
import { recordHistory, useWorkflowSuite } from '../support/helpers';

/**
 * The campaign workflow on the Temporal test environment with its real activities and the
 * sandbox provider: batches, continue-as-new, the schedule timer and its cancel signal.
 * RECORD_HISTORIES=1 saves the histories the replay test checks.
 */
describe('campaignWorkflow on the Temporal test environment', () => {
  const taskQueue = 'campaign-unit';
  const box = new SecretBox(randomBytes(32));
  const suite = useWorkflowSuite(
    'wfcampaign',
    taskQueue,
    (db) =>
      createCampaignActivities({
        db,
        secretBox: box,
        textGenerator: offlineTextGenerator,
        baseUrl: 'http://localhost:3000/v1',
        defaultRates: {},
      }),
    (db, team) =>
      setIntegration(db, box, { inboxDomain: 'inbox.localhost' }, team.teamId, team.agentId, 'email', {
        provider: 'sandbox',
        config: {},
        active: true,
      }).then(() => undefined),
  );

  async function campaignFor(contacts: number, tag: string) {
    const rows = Array.from({ length: contacts }, (_, i) => ({
      id: newId('ct'),
      team_id: suite.team.teamId,
      name: `W ${i}`,
      email: i % 10 === 9 ? null : `w${i}-${tag}@example.test`,
      tags: [tag],
      marketing_consent: 'granted',
    }));
    await suite.db('contacts').insert(rows);
    const [campaign] = await suite
      .db('campaigns')
      .insert({
        id: newId('cmp'),
        team_id: suite.team.teamId,
        name: tag,
        channel: 'email',
        subject: 'S',
        content: 'Hi {{n}}',
        template_params: JSON.stringify({ n: 'contact.name' }),
        tags: [tag],
        agent_id: suite.team.agentId,
        status: 'sending',
        run: 1,
      })
      .returning('*');
    return campaign.id as string;
  }
  /** The campaign sends through an agent of its own in manual mode: every sendable recipient waits on an open card. */
  async function sendThroughManualAgent(campaignId: string, slug: string) {
    const [careful] = await suite
      .db('agents')
      .insert({ team_id: suite.team.teamId, name: 'Careful', slug: `${slug}-${Date.now()}`, mode: 'manual' })
      .returning('id');
    await setIntegration(suite.db, box, { inboxDomain: 'inbox.localhost' }, suite.team.teamId, careful.id, 'email', {
      provider: 'sandbox',
      config: {},
      active: true,
    });
    await suite.db('campaigns').where({ id: campaignId }).update({ agent_id: careful.id });
  }
  /** A campaign's first run, now, in batches of 10 (unless `more` says otherwise). */
  const start = (campaignId: string, more: Partial<CampaignRunArgs> = {}) => {
    const args: CampaignRunArgs = {
      campaignId,
      teamId: suite.team.teamId,
      run: 1,
      scheduledAt: null,
      retry: false,
      batchSize: 10,
      ...more,
    };
    return suite.env.client.workflow.start<CampaignWorkflow>(campaignWorkflowName, {
      taskQueue,
      workflowId: `campaign-${args.campaignId}-run-${args.run}`,
      args: [args],
    });
  };

  it('snapshots, dispatches in batches, continues as new, and completes with counters that add up', async () => {
    const campaignId = await campaignFor(120, 'batches');
    const handle = await start(campaignId, { continueAfterEvents: 30 });
    expect(await handle.result()).toEqual({ status: 'completed' });
    const runs = [];
    for await (const run of suite.env.client.workflow.list({ query: `WorkflowId = "${handle.workflowId}"` }))
      runs.push(run.status.name);
    expect(runs.length).toBeGreaterThan(1);
    expect(runs.filter((s) => s === 'CONTINUED_AS_NEW')).toHaveLength(runs.length - 1);
    const campaign = await suite.db('campaigns').where({ id: campaignId }).first();
    expect(campaign).toMatchObject({
      status: 'completed',
      recipient_count: 120,
      sent_count: 108,
      skipped_count: 12,
      failed_count: 0,
    });
    expect(
      await suite
        .db('outbox')
        .where({ team_id: suite.team.teamId })
        .whereLike('idempotency_key', `${campaignId}:%`)
        .count({ n: '*' }),
    ).toEqual([{ n: 108 }]);
    // Skipped recipients were settled by the snapshot; only the pending ones are dispatched.
    expect(await handle.query(progress)).toEqual({ phase: 'done', dispatched: 108 });
    recordHistory(suite.env, 'campaign-send', handle.workflowId);
  });

  it('a batch that stopped at its size says what is left from the counters, at least one, and the next claims after its last recipient; only the last, which found nobody more to claim, counts the recipients', async () => {
    // 25 contacts, 2 without an address (skipped at the snapshot): 23 to send in batches of 10.
    const campaignId = await campaignFor(25, 'left');
    // Counters 5 ahead of the recipients: an estimate from them never ends the send early.
    await suite.db('campaigns').where({ id: campaignId }).update({ sent_count: 5 });
    const handle = await start(campaignId);
    expect(await handle.result()).toEqual({ status: 'completed' });
    // What each dispatchBatch answered, as the Temporal UI shows its results.
    const { events } = await handle.fetchHistory();
    const scheduled = new Map<string, string>();
    const answers: unknown[] = [];
    for (const e of events ?? []) {
      if (e.activityTaskScheduledEventAttributes)
        scheduled.set(String(e.eventId), e.activityTaskScheduledEventAttributes.activityType!.name!);
      const done = e.activityTaskCompletedEventAttributes;
      if (done && scheduled.get(String(done.scheduledEventId)) === 'dispatchBatch')
        answers.push(defaultPayloadConverter.fromPayload(done.result!.payloads![0]));
    }
    // Each batch that stopped at its size sends the next one on from its last recipient; the last,
    // whose claims ran dry, from the first again.
    const sent = await suite
      .db('campaign_recipients')
      .where({ campaign_id: campaignId, status: 'sent' })
      .orderBy('seq')
      .pluck('seq');
    expect(sent).toHaveLength(23);
    expect(answers).toEqual([
      { processed: 10, remaining: 8, awaitingApproval: 0, continueAfterSeq: Number(sent[9]) },
      { processed: 10, remaining: 1, awaitingApproval: 0, continueAfterSeq: Number(sent[19]) },
      { processed: 3, remaining: 0, awaitingApproval: 0, continueAfterSeq: 0 },
    ]);
    expect(
      await suite.db('campaign_recipients').where({ campaign_id: campaignId, status: 'pending' }).count({ n: '*' }),
    ).toEqual([{ n: 0 }]);
  });

  it("an agent without the channel's integration fails the reachable recipients (integration_inactive), retryable; the campaign ends Failed", async () => {
    const campaignId = await campaignFor(25, 'nointegration');
    const [agent] = await suite
      .db('agents')
      .insert({ team_id: suite.team.teamId, name: 'Bare', slug: `bare-${Date.now()}` })
      .returning('id');
    await suite.db('campaigns').where({ id: campaignId }).update({ agent_id: agent.id });
    const handle = await start(campaignId);
    expect(await handle.result()).toEqual({ status: 'failed' });
    const campaign = await suite.db('campaigns').where({ id: campaignId }).first();
    expect(campaign).toMatchObject({
      status: 'failed',
      recipient_count: 25,
      sent_count: 0,
      skipped_count: 2,
      failed_count: 23,
    });
    const failed: { error: { error: { code: string } } }[] = await suite
      .db('campaign_recipients')
      .where({ campaign_id: campaignId, status: 'failed' })
      .select('error');
    expect(new Set(failed.map((r) => r.error.error.code))).toEqual(new Set(['integration_inactive']));
  });

  it('says in its current details (what the Temporal UI shows) that it waits for approval cards, then that it is done', async () => {
    const campaignId = await campaignFor(3, 'cards');
    await sendThroughManualAgent(campaignId, 'careful');
    const handle = await start(campaignId);
    // The UI reads current details with the SDK's built-in metadata query, as here.
    const currentDetails = async () => (await handle.query(workflowMetadataQuery)).currentDetails;
    let details: string | null | undefined;
    for (let i = 0; i < 100 && (await handle.query(progress)).phase !== 'awaiting_approval'; i++)
      await new Promise((r) => setTimeout(r, 100));
    details = await currentDetails();
    expect(details).toBe(
      `Campaign ${campaignId}: waiting for 3 approval cards (the agent is in manual mode): a person approves or skips them at POST /v1/campaigns/${campaignId}/cards, or cancels the send. Dispatched 0 of 3 recipients.`,
    );
    expect((await handle.describe()).status.name).toBe('RUNNING');

    await suite.db('campaign_recipients').where({ campaign_id: campaignId, card: 'open' }).update({ card: 'approved' });
    await handle.signal(cardsDecided);
    expect(await handle.result()).toEqual({ status: 'completed' });
    details = await currentDetails();
    expect(details).toBe(`Campaign ${campaignId}: done (completed). Dispatched 3 of 3 recipients.`);
  });

  it('a recipient approved before where the batches have reached is sent: after a wait for cards, the next pass claims from the first', async () => {
    const campaignId = await campaignFor(25, 'cardsbehind');
    await sendThroughManualAgent(campaignId, 'careful-behind');
    const handle = await start(campaignId);
    const awaitingApproval = async () => {
      for (let i = 0; i < 100 && (await handle.query(progress)).phase !== 'awaiting_approval'; i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(await handle.query(progress)).toEqual({ phase: 'awaiting_approval', dispatched: expect.any(Number) });
    };
    const approve = async (seqs: string[]) => {
      await suite
        .db('campaign_recipients')
        .where({ campaign_id: campaignId })
        .whereIn('seq', seqs)
        .update({ card: 'approved' });
      await handle.signal(cardsDecided);
    };
    await awaitingApproval();
    const cards = await suite
      .db('campaign_recipients')
      .where({ campaign_id: campaignId, card: 'open' })
      .orderBy('seq')
      .pluck('seq');
    expect(cards).toHaveLength(23);
    // The last 13 first: a batch of 10 ends among them, the next from there.
    await approve(cards.slice(10));
    for (let i = 0; i < 100 && (await handle.query(progress)).dispatched < 13; i++)
      await new Promise((r) => setTimeout(r, 100));
    await awaitingApproval();
    expect((await handle.query(progress)).dispatched).toBe(13);
    // Then the first 10, all before where those batches ended.
    await approve(cards.slice(0, 10));
    expect(await handle.result()).toEqual({ status: 'completed' });
    expect(
      await suite.db('campaign_recipients').where({ campaign_id: campaignId }).whereIn('seq', cards).pluck('status'),
    ).toEqual(Array(23).fill('sent'));
    expect(await suite.db('campaigns').where({ id: campaignId }).first()).toMatchObject({
      status: 'completed',
      sent_count: 23,
      skipped_count: 2,
    });
  });

  it('waits on its schedule; the cancelSchedule signal returns the campaign to Draft', async () => {
    const campaignId = await campaignFor(3, 'scheduled');
    await suite
      .db('campaigns')
      .where({ id: campaignId })
      .update({ status: 'scheduled', scheduled_at: new Date(Date.now() + 3600_000) });
    const handle = await start(campaignId, { scheduledAt: new Date(Date.now() + 3600_000).toISOString() });
    expect((await handle.query(progress)).phase).toBe('scheduled');
    expect((await handle.query(workflowMetadataQuery)).currentDetails).toMatch(
      new RegExp(
        `^Campaign ${campaignId}: scheduled until 20\\d\\d-.*Z\\. Waiting for that time, or for cancelSchedule`,
      ),
    );
    await handle.signal(cancelSchedule);
    expect(await handle.result()).toEqual({ status: 'draft' });
    expect(await suite.db('campaigns').where({ id: campaignId }).first()).toMatchObject({
      status: 'draft',
      scheduled_at: null,
    });
    expect(await suite.db('campaign_recipients').where({ campaign_id: campaignId })).toHaveLength(0);
    recordHistory(suite.env, 'campaign-schedule-cancelled', handle.workflowId);
  });
});
