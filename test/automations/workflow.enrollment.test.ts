import { createAutomationActivities } from '../../services/automations/activities';
import { stepCatalog } from '../../services/catalog/features';
import { loadConfig } from '../../config';
import type { Db } from '../../db/knex';
import { createLogger } from '../../logger';
import { setIntegration } from '../../services/agents/integrations';
import { createAutomation, setAutomationEnabled, updateAutomationSteps } from '../../services/automations/automations';
import { enrollContact, exitEnrollment } from '../../services/automations/enroll';
import { automationCreateSchema, stepsSchema } from '../../services/automations/schemas';
import { runEnrollmentStep } from '../../services/automations/steps';
import { createContact } from '../../services/contacts/contacts';
import { buildAppContext } from '../../services/platform/context';
import { TemporalGateway } from '../../temporal/client';
import {
  contactEventHappened,
  enrollmentWorkflowId,
  enrollmentWorkflowName,
  progress,
  type EnrollmentResult,
} from '../../workflows/contracts/enrollment';
import { FakeProviderServer } from '../fakes/providerServer';
import { recordHistory, sleep, TestTeam, useWorkflowSuite } from '../support/helpers';

/**
 * `enrollment-<id>` on the Temporal test environment with its real activities, Postgres and the
 * fake email provider over HTTP: a wait → send → wait journey sends one email; waitForEvent ends
 * by the event or by its timeout; an exit ends a wait at once; a running enrollment keeps its
 * version when the steps change; a branch jumps to a runWarp. RECORD_HISTORIES=1 saves histories.
 */
describe('enrollmentWorkflow on the Temporal test environment', () => {
  const taskQueue = 'enrollment-unit';
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
  const appContext = (db: Db) => buildAppContext(config, db, createLogger('silent', 'worker'));
  const fake = new FakeProviderServer();
  beforeAll(async () => {
    await fake.start();
  });
  afterAll(async () => {
    await fake.stop();
  });
  const suite = useWorkflowSuite(
    'wfenroll',
    taskQueue,
    (db) => createAutomationActivities({ appContext: appContext(db) }),
    async (db, team: TestTeam) => {
      await setIntegration(
        db,
        appContext(db).secretBox,
        { inboxDomain: 'inbox.test' },
        team.teamId,
        team.agentId,
        'email',
        {
          provider: 'resend',
          config: { baseUrl: fake.baseUrl },
          secrets: { apiKey: 'k' },
          from: 'journeys@acme.example',
          active: true,
        },
      );
    },
  );

  let n = 0;
  async function journey(steps: unknown[]) {
    return createAutomation(
      suite.db,
      suite.team.teamId,
      { userId: suite.team.userId, agentId: null },
      suite.team.agentId,
      automationCreateSchema.parse({
        name: `Journey ${++n}`,
        // An inbound source nobody posts to: the test enrolls by hand.
        trigger: { kind: 'inbound', source: `wf-${n}` },
        steps,
      }),
    );
  }
  async function contact(extra: Record<string, unknown> = {}) {
    return createContact(suite.db, suite.team.teamId, {
      name: `Journey Person${++n}`,
      email: `journey${n}-${Date.now()}@example.test`,
      marketingConsent: 'granted',
      ...extra,
    });
  }
  async function enroll(automation: { id: string; version: number }, contactId: string) {
    // Started here, on the test environment: marked so in the same commit, so that no events
    // dispatcher of the suite's shared worker starts it on its own server too.
    const id = await suite.db.transaction(async (trx) => {
      const enrolled = await enrollContact(
        trx,
        { id: automation.id, team_id: suite.team.teamId, version: automation.version },
        contactId,
        'test',
      );
      await trx('automation_enrollments').where({ id: enrolled.id }).update({ workflow_started_at: trx.fn.now() });
      return enrolled.id;
    });
    const { plan } = await suite
      .db('automation_versions')
      .where({ automation_id: automation.id, version: automation.version })
      .first('plan');
    const handle = await suite.env.client.workflow.start(enrollmentWorkflowName, {
      workflowId: enrollmentWorkflowId(id),
      taskQueue,
      args: [{ enrollmentId: id, plan }],
    });
    return { id, handle };
  }
  const row = (id: string) => suite.db('automation_enrollments').where({ id }).first();
  async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string): Promise<T> {
    for (let i = 0; i < 200; i++) {
      const v = await read();
      if (ok(v)) return v;
      await sleep(100);
    }
    throw new Error(`timed out waiting for ${what}`);
  }

  it('wait → send → wait sends exactly one email, rendered with the campaign placeholders, and completes', async () => {
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
    const who = await contact();
    const { id, handle } = await enroll(automation, who.id);
    expect(await handle.result()).toEqual({ status: 'completed', step: 3 } satisfies EnrollmentResult);
    recordHistory(suite.env, 'enrollment-journey', enrollmentWorkflowId(id));
    const sent = fake.byRecipient(who.email!);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ subject: 'Welcome Journey', key: `automation:${id}:1`, duplicates: 0 });
    expect(sent[0].text).toContain('Hi Journey!');
    expect(await row(id)).toMatchObject({ status: 'completed', step: 3, waiting_event: null });
    const outbound = await suite.db('outbound_messages').where({ source_kind: 'automation', source_id: id });
    expect(outbound).toEqual([expect.objectContaining({ status: 'sent', contact_id: who.id })]);
    // One activity for the send and one to record the end: the history stays a couple of dozen events.
    const { historyLength } = await handle.describe();
    expect(historyLength).toBeLessThanOrEqual(30);
  });

  it('waitForEvent goes on when the event about the contact arrives; another type is not it', async () => {
    const automation = await journey([
      { type: 'waitForEvent', event: 'contact.updated', timeout: '1h' },
      { type: 'send', channel: 'email', subject: 'Thanks', content: 'Thanks for the update' },
    ]);
    const who = await contact();
    const { id, handle } = await enroll(automation, who.id);
    await until(
      () => row(id),
      (r) => r.waiting_event === 'contact.updated',
      'the wait to be recorded',
    );
    await handle.signal(contactEventHappened, { eventId: 'evt_other', type: 'artifact.sent' });
    expect((await handle.query(progress)).waitingFor).toBe('contact.updated');
    await handle.signal(contactEventHappened, { eventId: 'evt_1', type: 'contact.updated' });
    expect(await handle.result()).toEqual({ status: 'completed', step: 2 });
    recordHistory(suite.env, 'enrollment-event', enrollmentWorkflowId(id));
    expect(fake.byRecipient(who.email!)).toHaveLength(1);
  });

  it('an event matched at an earlier wait that arrives late does not satisfy a later wait for the same type', async () => {
    const automation = await journey([
      { type: 'waitForEvent', event: 'contact.updated', timeout: '1s' },
      { type: 'waitForEvent', event: 'contact.updated', timeout: '1h' },
      { type: 'send', channel: 'email', subject: 'Updated twice', content: 'Thanks' },
    ]);
    const who = await contact();
    const { id, handle } = await enroll(automation, who.id);
    // The first wait times out; the second is recorded at step 1.
    await until(
      () => row(id),
      (r) => r.step === 1 && r.waiting_event === 'contact.updated',
      'the second wait to be recorded',
    );
    // The dispatcher matched this event while the enrollment waited at step 0; it is delivered now.
    await handle.signal(contactEventHappened, { eventId: 'evt_late', type: 'contact.updated', step: 0 });
    await sleep(500);
    expect(await handle.query(progress)).toMatchObject({ status: 'active', step: 1, waitingFor: 'contact.updated' });
    expect(fake.byRecipient(who.email!)).toHaveLength(0);
    await handle.signal(contactEventHappened, { eventId: 'evt_now', type: 'contact.updated', step: 1 });
    expect(await handle.result()).toEqual({ status: 'completed', step: 3 });
    recordHistory(suite.env, 'enrollment-event-late', enrollmentWorkflowId(id));
    expect(fake.byRecipient(who.email!)).toHaveLength(1);
  });

  it('waitForEvent times out to its onTimeout step: an exit step ends the journey without the send', async () => {
    const automation = await journey([
      { type: 'waitForEvent', event: 'contact.updated', timeout: '1s', onTimeout: 'gone' },
      { type: 'send', channel: 'email', subject: 'Not this', content: 'Never sent' },
      { type: 'exit', label: 'gone' },
    ]);
    const who = await contact();
    const { id, handle } = await enroll(automation, who.id);
    expect(await handle.result()).toEqual({ status: 'exited', step: 2 });
    recordHistory(suite.env, 'enrollment-timeout', enrollmentWorkflowId(id));
    expect(fake.byRecipient(who.email!)).toHaveLength(0);
    expect(await row(id)).toMatchObject({ status: 'exited', exit_reason: 'exit_step', step: 2 });
  });

  it('an exit ends a long wait at once, with the state recorded; exiting again answers the same', async () => {
    const automation = await journey([
      { type: 'wait', duration: '1d' },
      { type: 'send', channel: 'email', subject: 'Too late', content: 'Never sent' },
    ]);
    const who = await contact();
    const { id, handle } = await enroll(automation, who.id);
    await until(
      () => handle.query(progress),
      (p) => p.status === 'active',
      'the workflow to run',
    );
    const temporal = new TemporalGateway({
      address: suite.env.address,
      namespace: 'default',
      taskQueue,
      requestTimeoutMs: 5000,
    });
    try {
      const exited = await exitEnrollment(suite.db, temporal, suite.team.teamId, id);
      expect(exited).toMatchObject({ status: 'exited', exitReason: 'exit_requested', endedAt: expect.any(String) });
      expect(await handle.result()).toEqual({ status: 'exited', step: 0 });
      recordHistory(suite.env, 'enrollment-exit', enrollmentWorkflowId(id));
      expect(await exitEnrollment(suite.db, temporal, suite.team.teamId, id)).toMatchObject({ status: 'exited' });
    } finally {
      await temporal.close();
    }
    expect(fake.byRecipient(who.email!)).toHaveLength(0);
  });

  it('new steps are a new version: the running enrollment finishes the version it started on', async () => {
    const automation = await journey([
      { type: 'wait', duration: '2s' },
      { type: 'send', channel: 'email', subject: 'Version one', content: 'v1' },
    ]);
    const first = await contact();
    const running = await enroll(automation, first.id);
    const updated = await updateAutomationSteps(
      suite.db,
      suite.team.teamId,
      automation.id,
      stepsSchema.parse([{ type: 'send', channel: 'email', subject: 'Version two', content: 'v2' }]),
      { userId: suite.team.userId, agentId: null },
    );
    expect(updated.version).toBe(2);
    const second = await contact();
    const later = await enroll(updated, second.id);
    expect(await later.handle.result()).toEqual({ status: 'completed', step: 1 });
    expect(await running.handle.result()).toEqual({ status: 'completed', step: 2 });
    expect(fake.byRecipient(first.email!).map((m) => m.subject)).toEqual(['Version one']);
    expect(fake.byRecipient(second.email!).map((m) => m.subject)).toEqual(['Version two']);
    expect((await row(running.id)).version).toBe(1);
    expect((await row(later.id)).version).toBe(2);
  });

  it("a version's runWarp steps run as the user who wrote them; an agent writes only its own automations", async () => {
    const automation = await journey([
      { type: 'runWarp', warp: 'artifact-create', inputs: { title: 'v1', type: 'offer', contactId: '$.contact.id' } },
    ]);
    const [member] = await suite
      .db('users')
      .insert({ email: `author-${Date.now()}@example.test`, name: 'Member' })
      .returning('id');
    await suite.db('memberships').insert({ team_id: suite.team.teamId, user_id: member.id, role: 'member' });
    const edited = await updateAutomationSteps(
      suite.db,
      suite.team.teamId,
      automation.id,
      stepsSchema.parse([
        { type: 'runWarp', warp: 'artifact-create', inputs: { title: 'v2', type: 'offer', contactId: '$.contact.id' } },
      ]),
      { userId: member.id, agentId: suite.team.agentId },
    );
    const byAdmin = await enroll(automation, (await contact()).id);
    const byMember = await enroll(edited, (await contact()).id);
    expect(await byAdmin.handle.result()).toEqual({ status: 'completed', step: 1 });
    expect(await byMember.handle.result()).toEqual({ status: 'completed', step: 1 });
    const authors = await suite
      .db('warp_executions')
      .where({ team_id: suite.team.teamId, warp: 'artifact-create' })
      .whereRaw("input->>'title' IN ('v1', 'v2')")
      .select(suite.db.raw("input->>'title' AS title"), 'created_by');
    expect(Object.fromEntries(authors.map((a: any) => [a.title, a.created_by]))).toEqual({
      v1: suite.team.userId,
      v2: member.id,
    });
    expect(
      await suite
        .db('automation_versions')
        .where({ automation_id: automation.id })
        .orderBy('version')
        .pluck('created_by_agent_id'),
    ).toEqual([null, suite.team.agentId]);

    // Another agent of the team: it neither edits this automation nor creates one running as someone else.
    const [other] = await suite
      .db('agents')
      .insert({ team_id: suite.team.teamId, name: 'Other', slug: `other-${Date.now()}` })
      .returning('id');
    await expect(
      updateAutomationSteps(suite.db, suite.team.teamId, automation.id, stepsSchema.parse([{ type: 'exit' }]), {
        userId: member.id,
        agentId: other.id,
      }),
    ).rejects.toMatchObject({ status: 404 });
    await expect(
      setAutomationEnabled(suite.db, suite.team.teamId, automation.id, false, { userId: member.id, agentId: other.id }),
    ).rejects.toMatchObject({ status: 404 });
    expect((await suite.db('automations').where({ id: automation.id }).first()).enabled).toBe(true);
    await expect(
      createAutomation(
        suite.db,
        suite.team.teamId,
        { userId: member.id, agentId: other.id },
        other.id,
        automationCreateSchema.parse({
          name: 'Not mine',
          agentId: suite.team.agentId,
          trigger: { kind: 'inbound', source: 'wf-not-mine' },
          steps: [{ type: 'exit' }],
        }),
      ),
    ).rejects.toMatchObject({ code: 'agent_not_self' });
  });

  it('an enrollment row not found (its transaction not committed) is retried, not an exit; enrolling starts work', async () => {
    await expect(runEnrollmentStep(appContext(suite.db), 'enr_not_committed', 0)).rejects.toThrow(/not found/);
    // A private warp step runs svc-automation-enroll outside its transaction: the row commits before the start.
    expect(stepCatalog.find('svc-automation-enroll')?.startsWork).toBe(true);
    expect(stepCatalog.find('artifact-create')?.startsWork).toBe(false);
  });

  it('a branch on a contact condition jumps to its label, where a warp runs as the automation agent', async () => {
    const automation = await journey([
      { type: 'branch', if: { conditions: [{ type: 'tag', value: 'vip' }] }, then: 'vip' },
      { type: 'send', channel: 'email', subject: 'Regular', content: 'For everyone else' },
      { type: 'exit' },
      {
        type: 'runWarp',
        label: 'vip',
        warp: 'artifact-create',
        inputs: { title: 'Welcome pack for $.contact.name', type: 'offer', contactId: '$.contact.id' },
      },
    ]);
    const vip = await contact({ tags: ['vip'] });
    const { id, handle } = await enroll(automation, vip.id);
    expect(await handle.result()).toEqual({ status: 'completed', step: 4 });
    recordHistory(suite.env, 'enrollment-branch-warp', enrollmentWorkflowId(id));
    expect(fake.byRecipient(vip.email!)).toHaveLength(0);
    const made = await suite.db('artifacts').where({ team_id: suite.team.teamId, contact_id: vip.id });
    // A literal that only contains a reference stays literal: references are whole strings.
    expect(made).toEqual([expect.objectContaining({ title: 'Welcome pack for $.contact.name', type: 'offer' })]);
    const runs = await suite.db('automation_step_runs').where({ enrollment_id: id });
    expect(runs).toEqual([expect.objectContaining({ step: 3, status: 'succeeded' })]);
    const regular = await contact();
    const other = await enroll(automation, regular.id);
    expect(await other.handle.result()).toEqual({ status: 'exited', step: 2 });
    expect(fake.byRecipient(regular.email!).map((m) => m.subject)).toEqual(['Regular']);
  });
});
