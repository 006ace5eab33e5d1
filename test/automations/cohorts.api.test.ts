import { AutomationIdKey, JourneyStepKey, TeamSlugKey } from '../../temporal/searchAttributes';
import { cohortWorkflowId, membersPerStep } from '../../workflows/contracts/cohort';
import { sleep, temporalClient, useProviderSuite, waitForJob } from '../support/helpers';

/**
 * Journeys as cohorts over HTTP, with the suite's worker, its events dispatcher and the fake email
 * provider (docs/AUTOMATIONS.md › Cohorts): an imported list runs a welcome automation end to end
 * as one cohort an operator finds in Temporal by team, automation and step and reads with a
 * query; a single sign-up's first step runs within a second; a bulk enrollment's rules; an
 * automation disabled mid-journey lets its members finish and takes no one new.
 */
describe('journeys as cohorts over HTTP', () => {
  const suite = useProviderSuite('cohorts');
  beforeAll(async () => {
    await suite.api.call('PUT', '/apps/automations');
    await suite.api.call('PUT', `/agents/${suite.team.agentId}/integrations/email`, {
      provider: 'resend',
      config: { baseUrl: suite.fake.baseUrl },
      secrets: { apiKey: 'k' },
      from: 'journeys@acme.example',
    });
  });
  async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, ms = 60_000): Promise<T> {
    const deadline = Date.now() + ms;
    let last: T;
    do {
      last = await read();
      if (ok(last)) return last;
      await sleep(100);
    } while (Date.now() < deadline);
    throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
  }
  const create = async (body: Record<string, unknown>) => {
    const res = await suite.api.post('/automations', body);
    expect(res.status).toBe(201);
    return res.body;
  };
  const statusCounts = async (automationId: string) =>
    Object.fromEntries(
      (
        await suite
          .db('automation_enrollments')
          .where({ automation_id: automationId })
          .groupBy('status')
          .select('status')
          .count({ n: '*' })
      ).map((r: { status?: string; n?: string | number }) => [r.status, Number(r.n)]),
    );

  it('an imported list runs a welcome automation end to end, as one cohort an operator finds and reads in Temporal', async () => {
    const automation = await create({
      name: 'Welcome imports',
      trigger: { kind: 'event', event: 'contact.created' },
      steps: [
        { type: 'wait', duration: '2s' },
        {
          type: 'send',
          channel: 'email',
          subject: 'Welcome {{first}}',
          content: 'Hi {{first}}, good to have you.',
          templateParams: { first: 'contact.firstName' },
        },
        { type: 'wait', duration: '1h' },
      ],
    });
    const people = Array.from({ length: 300 }, (_, i) => ({
      name: `Imported Person${i}`,
      email: `imported${i}@list.example`,
    }));
    const csv = ['name,email,marketing_consent', ...people.map((p) => `${p.name},${p.email},granted`)].join('\n');
    const job = await suite.api.post('/jobs', { type: 'contacts.import', input: { csv } });
    expect(job.status).toBe(202);
    expect(await waitForJob(suite.api, job.body.jobId)).toMatchObject({ status: 'succeeded' });

    // Every imported contact is sent its welcome, once, and waits at the last step.
    await until(
      () => Promise.resolve(people.filter((p) => suite.fake.byRecipient(p.email).length === 1).length),
      (n) => n === people.length,
      'every imported contact to be welcomed',
    );
    for (const p of people)
      expect(suite.fake.byRecipient(p.email)).toEqual([
        expect.objectContaining({ subject: 'Welcome Imported', duplicates: 0 }),
      ]);
    // Nothing more enters: later tests create contacts too.
    expect((await suite.api.call('PATCH', `/automations/${automation.id}`, { enabled: false })).status).toBe(200);
    expect(await statusCounts(automation.id)).toEqual({ active: people.length });
    const listed = (await suite.api.get(`/automations/${automation.id}/enrollments?limit=100`)).body.data;
    expect(listed).toHaveLength(100);
    expect(listed.every((e: any) => e.status === 'active' && e.step === 2)).toBe(true);
    const one = (await suite.api.get(`/automations/${automation.id}/enrollments/${listed[0].id}`)).body;
    expect(one.steps).toEqual([expect.objectContaining({ step: 1, status: 'sent' })]);

    // The import's batch arrived as one burst: its contacts move as one cohort (or a few, when the
    // dispatcher formed them while the burst was still coming in).
    const cohorts = await suite.db('automation_cohorts').where({ automation_id: automation.id }).select('id');
    expect(cohorts.length).toBeGreaterThanOrEqual(1);
    expect(cohorts.length).toBeLessThanOrEqual(3);
    const client = await temporalClient();
    let sent = 0;
    for (const c of cohorts) {
      const handle = client.workflow.getHandle(cohortWorkflowId(c.id));
      const progress = await until(
        () => handle.query(membersPerStep),
        (p) => p.step === 2 && p.phase === 'waiting',
        'the cohort to wait at step 2',
      );
      sent += progress.steps.find((s) => s.kind === 'send')!.outcomes.sent;
      // What the UI shows for the run: its search attributes, the step upserted as it moved.
      const { typedSearchAttributes } = await handle.describe();
      expect(typedSearchAttributes.get(TeamSlugKey)).toBe(suite.team.slug);
      expect(typedSearchAttributes.get(AutomationIdKey)).toBe(automation.id);
      expect(typedSearchAttributes.get(JourneyStepKey)).toBe(2);
    }
    // An operator's search finds them: visibility follows the run, later on a busy server.
    const atStep2 = async () => {
      const found = [];
      for await (const wf of client.workflow.list({
        query: `TeamSlug = "${suite.team.slug}" AND AutomationId = "${automation.id}" AND JourneyStep = 2`,
      }))
        found.push(wf.workflowId);
      return found.sort();
    };
    const wanted = cohorts.map((c) => cohortWorkflowId(c.id)).sort();
    expect(
      await until(atStep2, (list) => list.length === wanted.length, 'the cohorts in a visibility search', 120_000),
    ).toEqual(wanted);
    expect(sent).toBe(people.length);
  }, 240_000);

  it('a single sign-up starts its first step within a second of its trigger', async () => {
    const automation = await create({
      name: 'Instant hello',
      trigger: {
        kind: 'inbound',
        source: 'instant',
        mapping: { email: '$.email', name: '$.name', marketingConsent: '$.marketingConsent' },
      },
      steps: [{ type: 'send', channel: 'email', subject: 'Hello now', content: 'Right away.' }],
    });
    const key = (await suite.api.post(`/agents/${suite.team.agentId}/auth-keys`)).body.key;
    const email = `instant-${Date.now()}@example.test`;
    const posted = Date.now();
    const res = await fetch(`${suite.server.baseUrl}/agents/${suite.team.agentId}/hooks?source=instant`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'webhook-id': `msg_${posted}` },
      body: JSON.stringify({ email, name: 'Ina Stant', marketingConsent: 'granted' }),
    });
    expect(res.status).toBeLessThan(300);
    const [message] = await until(
      () => Promise.resolve(suite.fake.byRecipient(email)),
      (m) => m.length === 1,
      'the sign-up email',
      10_000,
    );
    expect(message.receivedAt - posted).toBeLessThan(1_000);
    await until(
      () => statusCounts(automation.id),
      (c) => c.completed === 1,
      'the journey to complete',
    );
  });

  it('a bulk enrollment enrolls the known contacts once, reports the unknown, and takes no single-contact fields', async () => {
    const automation = await create({
      name: 'Bulk',
      trigger: { kind: 'inbound', source: 'bulk' },
      steps: [{ type: 'wait', duration: '1h' }],
    });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        (await suite.api.post('/contacts', { name: `Bulk ${i}`, email: `bulk${i}-${Date.now()}@example.test` })).body
          .id,
      );
    const first = await suite.api.post(`/automations/${automation.id}/enrollments`, {
      contactIds: [ids[0], ids[1], 'ct_nobody'],
    });
    expect(first.body).toEqual({
      automationId: automation.id,
      enrolled: 2,
      alreadyEnrolled: 0,
      unknownContactIds: ['ct_nobody'],
    });
    const again = await suite.api.post(`/automations/${automation.id}/enrollments`, { contactIds: ids });
    expect(again.body).toEqual({ automationId: automation.id, enrolled: 1, alreadyEnrolled: 2, unknownContactIds: [] });
    const mixed = await suite.api.post(`/automations/${automation.id}/enrollments`, {
      contactIds: ids,
      email: 'x@example.test',
    });
    expect({ status: mixed.status, code: mixed.body.error?.code }).toEqual({ status: 422, code: 'contact_ids_alone' });
    const empty = await suite.api.post(`/automations/${automation.id}/enrollments`, { contactIds: [] });
    expect({ status: empty.status, code: empty.body.error?.code }).toEqual({ status: 400, code: 'validation_error' });
    expect(await statusCounts(automation.id)).toEqual({ active: 3 });
  });

  it('disabled mid-journey: its members finish, and nobody new is taken', async () => {
    const automation = await create({
      name: 'Switched off',
      trigger: { kind: 'inbound', source: 'off' },
      steps: [
        { type: 'wait', duration: '3s' },
        { type: 'send', channel: 'email', subject: 'Still sent', content: 'The journey finishes.' },
      ],
    });
    const emails = [0, 1].map((i) => `off${i}-${Date.now()}@example.test`);
    const ids: string[] = [];
    for (const email of emails)
      ids.push((await suite.api.post('/contacts', { name: 'Off Person', email, marketingConsent: 'granted' })).body.id);
    await suite.api.post(`/automations/${automation.id}/enrollments`, { contactIds: ids });
    expect((await suite.api.call('PATCH', `/automations/${automation.id}`, { enabled: false })).status).toBe(200);
    const late = await suite.api.post(`/automations/${automation.id}/enrollments`, { contactIds: ids });
    expect({ status: late.status, code: late.body.error?.code }).toEqual({ status: 422, code: 'automation_disabled' });
    await until(
      () => statusCounts(automation.id),
      (c) => c.completed === 2,
      'the members to finish',
    );
    for (const email of emails) expect(suite.fake.byRecipient(email)).toHaveLength(1);
  });
});
