import { defaultPayloadConverter } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import { createAutomationActivities } from '../../services/automations/activities';
import { loadConfig } from '../../config';
import type { Db } from '../../db/knex';
import { createLogger } from '../../logger';
import { setIntegration } from '../../services/agents/integrations';
import { createAutomation } from '../../services/automations/automations';
import { enrollContacts, exitEnrollment } from '../../services/automations/enroll';
import { automationCreateSchema } from '../../services/automations/schemas';
import { createContact, updateContact } from '../../services/contacts/contacts';
import { newId } from '../../db/ids';
import { buildAppContext } from '../../services/platform/context';
import { cohortWorkflowId, cohortWorkflowName, membersPerStep } from '../../workflows/contracts/cohort';
import { FakeProviderServer } from '../fakes/providerServer';
import { recordHistory, sleep, TestTeam, useWorkflowSuite } from '../support/helpers';

/**
 * `cohort-<id>` on the Temporal test environment with its real activities, Postgres and the fake
 * email provider over HTTP: members move through wait → send → wait together, each sent once
 * with its own key; a branch keeps one side and hands the other to a cohort of its own; a
 * waitForEvent lets the member whose event came go on alone while the rest time out; an exited
 * member is passed by; a send without an integration fails its members. Cohorts split off run on
 * the suite's shared worker (the dispatcher and the branch start them there). RECORD_HISTORIES=1
 * saves histories.
 */
describe('cohortWorkflow on the Temporal test environment', () => {
  const taskQueue = 'cohort-unit';
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
  const appContext = (db: Db) => buildAppContext(config, db, createLogger('silent', 'worker'));
  const fake = new FakeProviderServer();
  beforeAll(async () => {
    await fake.start();
  });
  afterAll(async () => {
    await fake.stop();
  });
  const integration = (db: Db, team: TestTeam, active = true) =>
    setIntegration(db, appContext(db).secretBox, { inboxDomain: 'inbox.test' }, team.teamId, team.agentId, 'email', {
      provider: 'resend',
      config: { baseUrl: fake.baseUrl },
      secrets: { apiKey: 'k' },
      from: 'journeys@acme.example',
      active,
    });
  const suite = useWorkflowSuite(
    'wfcohort',
    taskQueue,
    (db) => createAutomationActivities({ appContext: appContext(db) }),
    (db, team) => integration(db, team).then(() => undefined),
  );

  let n = 0;
  async function journey(steps: unknown[]) {
    return createAutomation(
      suite.db,
      suite.team.teamId,
      { userId: suite.team.userId, agentId: null },
      suite.team.agentId,
      automationCreateSchema.parse({ name: `Cohort ${++n}`, trigger: { kind: 'inbound', source: `co-${n}` }, steps }),
    );
  }
  async function people(count: number, extra: Record<string, unknown> = {}) {
    const made = [];
    for (let i = 0; i < count; i++)
      made.push(
        await createContact(suite.db, suite.team.teamId, {
          name: `Cohort Person${++n}`,
          email: `cohort${n}-${Date.now()}@example.test`,
          marketingConsent: 'granted',
          ...extra,
        }),
      );
    return made;
  }
  /**
   * Enrolls the contacts and forms them into one cohort, started here on the test environment:
   * marked started in the same commit, so the shared worker's dispatcher never starts it too.
   */
  async function cohortOf(automation: { id: string; version: number }, contactIds: string[], queue = taskQueue) {
    const cohortId = newId('enr').replace(/^enr_/, 'coh_');
    const { plan } = await suite.db.transaction(async (trx): Promise<{ plan: unknown }> => {
      await enrollContacts(
        trx,
        { id: automation.id, team_id: suite.team.teamId, version: automation.version },
        contactIds.map((contactId) => ({ contactId, enrolledBy: 'test' })),
      );
      await trx('automation_cohorts').insert({
        id: cohortId,
        team_id: suite.team.teamId,
        automation_id: automation.id,
        version: automation.version,
        start_step: 0,
        member_count: contactIds.length,
        workflow_started_at: trx.fn.now(),
      });
      await trx('automation_enrollments')
        .where({ automation_id: automation.id })
        .update({ cohort_id: cohortId, workflow_started_at: trx.fn.now() });
      return trx('automation_versions')
        .where({ automation_id: automation.id, version: automation.version })
        .first('plan');
    });
    const handle = await suite.env.client.workflow.start(cohortWorkflowName, {
      workflowId: cohortWorkflowId(cohortId),
      taskQueue: queue,
      args: [{ cohortId, automationId: automation.id, plan, step: 0, members: contactIds.length }],
    });
    return { cohortId, handle };
  }
  const member = (automationId: string, contactId: string) =>
    suite.db('automation_enrollments').where({ automation_id: automationId, contact_id: contactId }).first();
  async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string): Promise<T> {
    for (let i = 0; i < 300; i++) {
      const v = await read();
      if (ok(v)) return v;
      await sleep(100);
    }
    throw new Error(`timed out waiting for ${what}`);
  }

  it('wait → send → wait: every member with consent gets one email with its own key; one without is skipped; all complete', async () => {
    const automation = await journey([
      { type: 'wait', duration: '1s' },
      {
        type: 'send',
        channel: 'email',
        subject: 'Welcome {{first}}',
        content: 'Hi {{first}}!',
        templateParams: { first: 'contact.firstName' },
      },
      { type: 'wait', duration: '1s' },
    ]);
    const consenting = await people(3);
    const [pending] = await people(1, { marketingConsent: 'pending' });
    const { cohortId, handle } = await cohortOf(
      automation,
      [...consenting, pending].map((c) => c.id),
    );
    const result = await handle.result();
    recordHistory(suite.env, 'cohort-journey', cohortWorkflowId(cohortId));
    expect(result.step).toBe(3);
    expect(result.steps).toEqual([
      { step: 0, kind: 'wait', entered: 4, outcomes: { movedOn: 4 } },
      { step: 1, kind: 'send', entered: 4, outcomes: { sent: 3, skipped: 1 } },
      { step: 2, kind: 'wait', entered: 4, outcomes: { movedOn: 4 } },
    ]);
    expect(await handle.query(membersPerStep)).toMatchObject({ phase: 'done', step: 3, steps: result.steps });
    for (const c of consenting) {
      const row = await member(automation.id, c.id);
      expect(row).toMatchObject({ status: 'completed', step: 3, cohort_id: cohortId });
      const sent = fake.byRecipient(c.email!);
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatchObject({ subject: 'Welcome Cohort', key: `automation:${row.id}:1`, duplicates: 0 });
      const runs = await suite.db('automation_step_runs').where({ enrollment_id: row.id });
      expect(runs).toEqual([
        expect.objectContaining({
          step: 1,
          status: 'sent',
          detail: expect.objectContaining({ to: c.email, providerMessageId: sent[0].id }),
        }),
      ]);
      const outbound = await suite.db('outbound_messages').where({ source_kind: 'automation', source_id: row.id });
      expect(outbound).toEqual([
        expect.objectContaining({ status: 'sent', idempotency_key: `automation:${row.id}:1` }),
      ]);
    }
    const skipped = await member(automation.id, pending.id);
    expect(skipped).toMatchObject({ status: 'completed', step: 3 });
    expect(await suite.db('automation_step_runs').where({ enrollment_id: skipped.id })).toEqual([
      expect.objectContaining({ step: 1, status: 'skipped', detail: { reason: 'pending_consent' } }),
    ]);
    expect(fake.byRecipient(pending.email!)).toHaveLength(0);
    const { historyLength } = await handle.describe();
    expect(historyLength).toBeLessThanOrEqual(40);
  });

  it('a branch keeps the members of the nearer target and hands the others to a cohort of their own', async () => {
    const automation = await journey([
      { type: 'branch', if: { conditions: [{ type: 'tag', value: 'vip' }] }, then: 'vip' },
      { type: 'send', channel: 'email', subject: 'Regular', content: 'Hello' },
      { type: 'exit' },
      { type: 'send', channel: 'email', subject: 'VIP', content: 'Hello, friend', label: 'vip' },
    ]);
    const regular = await people(2);
    const vips = await people(2, { tags: ['vip'] });
    const { cohortId, handle } = await cohortOf(
      automation,
      [...regular, ...vips].map((c) => c.id),
    );
    const result = await handle.result();
    recordHistory(suite.env, 'cohort-branch', cohortWorkflowId(cohortId));
    expect(result.steps[0]).toEqual({ step: 0, kind: 'branch', entered: 4, outcomes: { stayed: 2, splitOff: 2 } });
    expect(result.steps.at(-1)).toEqual({ step: 2, kind: 'exit', entered: 2, outcomes: { exited: 2 } });
    for (const c of regular) {
      expect(fake.byRecipient(c.email!).map((m) => m.subject)).toEqual(['Regular']);
      expect(await member(automation.id, c.id)).toMatchObject({ status: 'exited', exit_reason: 'exit_step', step: 2 });
    }
    const split = await suite.db('automation_cohorts').where({ parent_cohort_id: cohortId }).first();
    expect(split).toMatchObject({ start_step: 3, member_count: 2 });
    for (const c of vips) {
      const row = await until(
        () => member(automation.id, c.id),
        (r) => r.status !== 'active',
        'the VIP cohort to finish',
      );
      expect(row).toMatchObject({ status: 'completed', step: 4, cohort_id: split.id });
      expect(fake.byRecipient(c.email!).map((m) => m.subject)).toEqual(['VIP']);
    }
  });

  it('waitForEvent: the member whose event comes goes on alone at once; the others time out to onTimeout', async () => {
    const automation = await journey([
      { type: 'waitForEvent', event: 'contact.updated', timeout: '4s', onTimeout: 'nudge' },
      { type: 'send', channel: 'email', subject: 'Thanks', content: 'Thanks for the update' },
      { type: 'exit' },
      { type: 'send', channel: 'email', subject: 'Nudge', content: 'Still there?', label: 'nudge' },
    ]);
    const [eager, ...slow] = await people(3);
    const { cohortId, handle } = await cohortOf(
      automation,
      [eager, ...slow].map((c) => c.id),
    );
    await until(
      () => member(automation.id, eager.id),
      (r) => r.waiting_event === 'contact.updated',
      'the wait to be recorded',
    );
    const updatedAt = Date.now();
    await updateContact(suite.db, suite.team.teamId, eager.id, { company: 'Eager Ltd' });
    // Handed on by the shared worker's dispatcher to a cohort of its own, well before the timeout.
    const row = await until(
      () => member(automation.id, eager.id),
      (r) => r.status !== 'active',
      'the eager member to finish',
    );
    expect(Date.now() - updatedAt).toBeLessThan(4_000);
    expect(row).toMatchObject({ status: 'exited', step: 2 });
    expect(row.cohort_id).not.toBe(cohortId);
    expect(fake.byRecipient(eager.email!).map((m) => m.subject)).toEqual(['Thanks']);
    const result = await handle.result();
    recordHistory(suite.env, 'cohort-wait-event', cohortWorkflowId(cohortId));
    expect(result.steps[0]).toMatchObject({
      kind: 'waitForEvent',
      entered: 3,
      outcomes: { timedOut: 2, leftEarly: 1 },
    });
    for (const c of slow) {
      expect(fake.byRecipient(c.email!).map((m) => m.subject)).toEqual(['Nudge']);
      expect(await member(automation.id, c.id)).toMatchObject({ status: 'completed', step: 4, cohort_id: cohortId });
    }
  });

  it('a member exited during a wait is passed by; the rest go on', async () => {
    const automation = await journey([
      { type: 'wait', duration: '2s' },
      { type: 'send', channel: 'email', subject: 'After the wait', content: 'Hello' },
    ]);
    const [leaving, staying] = await people(2);
    const { handle } = await cohortOf(automation, [leaving.id, staying.id]);
    const row = await member(automation.id, leaving.id);
    const exited = await exitEnrollment(suite.db, appContext(suite.db).temporal, suite.team.teamId, row.id);
    expect(exited).toMatchObject({ status: 'exited', exitReason: 'exit_requested' });
    const result = await handle.result();
    expect(result.steps[1]).toMatchObject({ kind: 'send', entered: 1, outcomes: { sent: 1 } });
    expect(fake.byRecipient(leaving.email!)).toHaveLength(0);
    expect(fake.byRecipient(staying.email!)).toHaveLength(1);
    expect(await member(automation.id, leaving.id)).toMatchObject({ status: 'exited', exit_reason: 'exit_requested' });
  });

  it('a send of several batches: each batch claims after where the last one ended; every member once', async () => {
    // A worker of its own whose send batches take two members each.
    const small = loadConfig({ ...process.env, LOG_LEVEL: 'silent', CAMPAIGN_BATCH_SIZE: '2' });
    const worker = await Worker.create({
      connection: suite.env.nativeConnection,
      taskQueue: 'cohort-unit-small-batches',
      workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! },
      activities: createAutomationActivities({
        appContext: buildAppContext(small, suite.db, createLogger('silent', 'worker')),
      }),
    });
    const automation = await journey([{ type: 'send', channel: 'email', subject: 'Batched', content: 'Hi' }]);
    const members = await people(5);
    const result = await worker.runUntil(async () => {
      const { handle } = await cohortOf(
        automation,
        members.map((c) => c.id),
        'cohort-unit-small-batches',
      );
      return { value: await handle.result(), history: await handle.fetchHistory() };
    });
    expect(result.value.steps[0]).toEqual({ step: 0, kind: 'send', entered: 5, outcomes: { sent: 5 } });
    for (const c of members) expect(fake.byRecipient(c.email!)).toHaveLength(1);
    const seqs: number[] = await suite
      .db('automation_enrollments')
      .where({ automation_id: automation.id })
      .orderBy('seq')
      .pluck('seq');
    // What each batch was asked to claim after, as an operator reads it in the history.
    const claimedAfter = result.history
      .events!.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'sendCohortStep')
      .map((e) =>
        defaultPayloadConverter.fromPayload<unknown>(e.activityTaskScheduledEventAttributes!.input!.payloads![2]),
      );
    expect(claimedAfter).toEqual([0, Number(seqs[1]), Number(seqs[3])]);
  });

  it('a send whose integration is inactive fails its members with the reason; none stays active', async () => {
    const automation = await journey([{ type: 'send', channel: 'email', subject: 'Nope', content: 'Nobody' }]);
    const members = await people(2);
    await integration(suite.db, suite.team, false);
    try {
      const { handle } = await cohortOf(
        automation,
        members.map((c) => c.id),
      );
      const result = await handle.result();
      expect(result.steps[0]).toMatchObject({ kind: 'send', entered: 2, outcomes: { failed: 2 } });
      for (const c of members) {
        const row = await member(automation.id, c.id);
        expect(row).toMatchObject({ status: 'failed', error: { error: { code: 'integration_inactive' } } });
        const runs = await suite.db('automation_step_runs').where({ enrollment_id: row.id });
        expect(runs).toEqual([expect.objectContaining({ status: 'failed' })]);
      }
    } finally {
      await integration(suite.db, suite.team, true);
    }
  });
});
