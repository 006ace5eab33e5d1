import { sleep, useProviderSuite } from '../support/helpers';

/**
 * Automations over HTTP with the real worker, its events dispatcher and the fake email provider:
 * the checks at creation, an inbound source shared by two automations (the same delivery POSTed
 * three times enrolls the contact once in each), disabling, an event trigger whose journey waits
 * for the contact's next update, a segment entry, and an exit.
 */
describe('automations over HTTP', () => {
  const suite = useProviderSuite('journeys');
  let key: string;
  beforeAll(async () => {
    await suite.api.call('PUT', `/agents/${suite.team.agentId}/integrations/email`, {
      provider: 'resend',
      config: { baseUrl: suite.fake.baseUrl },
      secrets: { apiKey: 'k' },
      from: 'journeys@acme.example',
    });
    key = (await suite.api.post(`/agents/${suite.team.agentId}/auth-keys`)).body.key;
  });

  const inbound = (source: string, body: unknown, deliveryId: string) =>
    fetch(`${suite.server.baseUrl}/agents/${suite.team.agentId}/hooks?source=${source}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'webhook-id': deliveryId },
      body: JSON.stringify(body),
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));
  const create = async (body: Record<string, unknown>) => {
    const res = await suite.api.post('/automations', body);
    expect(res.status).toBe(201);
    return res.body;
  };
  const enrollments = async (automationId: string, contactId?: string) =>
    (await suite.api.get(`/automations/${automationId}/enrollments${contactId ? `?contactId=${contactId}` : ''}`)).body
      .data;
  async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, ms = 30_000): Promise<T> {
    const deadline = Date.now() + ms;
    let last: T;
    do {
      last = await read();
      if (ok(last)) return last;
      await sleep(150);
    } while (Date.now() < deadline);
    throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
  }
  const contactByEmail = (email: string) =>
    suite.db('contacts').where({ team_id: suite.team.teamId }).whereRaw('lower(email) = lower(?)', [email]);

  it('checks the trigger and every step at creation, with the path of each issue', async () => {
    const bad = async (body: unknown, status: number, code: string) => {
      const res = await suite.api.post('/automations', body);
      expect({ status: res.status, code: res.body.error?.code }).toEqual({ status, code });
      return res.body.error;
    };
    const trigger = { kind: 'inbound', source: 'checks' };
    await bad({ name: 'x', trigger, steps: [{ type: 'wait', duration: '2 hours' }] }, 400, 'validation_error');
    await bad({ name: 'x', trigger, steps: [] }, 400, 'validation_error');
    await bad(
      { name: 'x', trigger: { kind: 'event', event: 'campaign.completed' }, steps: [{ type: 'exit' }] },
      400,
      'validation_error',
    );
    const invalid = await bad(
      {
        name: 'x',
        trigger,
        steps: [
          { type: 'wait', duration: '1h', label: 'start' },
          { type: 'branch', if: { conditions: [{ type: 'tag', value: 'vip' }] }, then: 'start' },
          {
            type: 'send',
            channel: 'email',
            subject: 'Hi',
            content: '{{a}}',
            templateParams: { a: 'x' },
            aiParams: { a: 'y' },
          },
          { type: 'runWarp', warp: 'no-such-warp', inputs: { contactId: '$.contact.nope' } },
          { type: 'exit', label: 'start' },
        ],
      },
      422,
      'invalid_automation',
    );
    expect(invalid.details.issues.map((i: any) => i.path)).toEqual([
      'steps.4.label',
      'steps.1.then',
      'steps.2.aiParams',
      'steps.3.warp',
      'steps.3.inputs.contactId',
    ]);
    await bad(
      {
        name: 'x',
        trigger: { kind: 'inbound', source: 'checks', mapping: { colour: '$.c' } },
        steps: [{ type: 'exit' }],
      },
      422,
      'unknown_enroll_field',
    );
    await bad(
      { name: 'x', trigger: { kind: 'segment', segmentId: 'seg_nope' }, steps: [{ type: 'exit' }] },
      422,
      'unknown_segment',
    );
    expect((await suite.api.get('/automations/au_nope')).status).toBe(404);
  });

  it('an inbound source shared by two automations enrolls the contact in both, once each, also when the same delivery is POSTed three times', async () => {
    const welcome = await create({
      name: 'Welcome',
      trigger: {
        kind: 'inbound',
        source: 'signup',
        mapping: { email: '$.user.email', name: '$.user.name', marketingConsent: '$.consent' },
      },
      steps: [
        { type: 'wait', duration: '1s' },
        {
          type: 'send',
          channel: 'email',
          subject: 'Welcome {{first}}',
          content: 'Glad you are here, {{first}}.',
          templateParams: { first: 'contact.firstName' },
        },
      ],
    });
    const nurture = await create({
      name: 'Nurture',
      // The same mapping as Welcome's: whichever of the two runs creates the contact, it is the same contact
      // (an existing contact is not changed, docs/AUTOMATIONS.md).
      trigger: {
        kind: 'inbound',
        source: 'signup',
        mapping: { email: '$.user.email', name: '$.user.name', marketingConsent: '$.consent' },
      },
      steps: [{ type: 'wait', duration: '1d' }],
    });
    // Each keeps its own system-owned hook on the source.
    const hooks = (await suite.api.get(`/agents/${suite.team.agentId}/hook-rules?source=inbound`)).body.data;
    expect(
      hooks
        .filter((h: any) => h.event === 'signup')
        .map((h: any) => h.automationId)
        .sort(),
    ).toEqual([welcome.id, nurture.id].sort());
    expect(welcome.hookId).toEqual(expect.stringMatching(/^hk_/));

    const email = `ada-${Date.now()}@example.test`;
    const payload = { user: { email, name: 'Ada Lovelace' }, consent: 'granted' };
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await inbound('signup', payload, 'signup-delivery-1'));
    for (const a of answers) expect(a.status).toBe(202);
    // One run per hook, the same runs for every replay (the first answer may come before they settle).
    const runsOf = (a: any) => a.body.runs.map((r: any) => r.runId).sort();
    expect(runsOf(answers[0])).toHaveLength(2);
    expect(runsOf(answers[1])).toEqual(runsOf(answers[0]));
    expect(runsOf(answers[2])).toEqual(runsOf(answers[0]));
    const [contact] = await until(
      () => contactByEmail(email),
      (rows) => rows.length > 0,
      'the contact',
    );
    expect(await contactByEmail(email)).toHaveLength(1);
    expect(contact).toMatchObject({ name: 'Ada Lovelace', marketing_consent: 'granted' });
    const inWelcome = await until(
      () => enrollments(welcome.id, contact.id),
      (e) => e.length > 0,
      'the welcome enrollment',
    );
    const inNurture = await until(
      () => enrollments(nurture.id, contact.id),
      (e) => e.length > 0,
      'the nurture enrollment',
    );
    expect([inWelcome.length, inNurture.length]).toEqual([1, 1]);
    await until(
      () => enrollments(welcome.id, contact.id),
      (e) => e[0].status === 'completed',
      'the welcome journey to end',
    );
    const sent = suite.fake.byRecipient(email);
    expect(sent.map((m) => m.subject)).toEqual(['Welcome Ada']);
    const one = (await suite.api.get(`/automations/${welcome.id}/enrollments/${inWelcome[0].id}`)).body;
    expect(one).toMatchObject({ status: 'completed', step: 2, version: 1, steps: [{ step: 1, status: 'sent' }] });
    // Replayed once more after the journey ended: the delivery ran once, nobody is enrolled again.
    await inbound('signup', payload, 'signup-delivery-1');
    await sleep(500);
    expect(await enrollments(welcome.id, contact.id)).toHaveLength(1);

    // Disabled: its hook is off and the next delivery enrolls only in the other automation.
    const off = await suite.api.call('PATCH', `/automations/${nurture.id}`, { enabled: false });
    expect(off.body).toMatchObject({ enabled: false });
    const hook = (await suite.api.get(`/agents/${suite.team.agentId}/hook-rules/${nurture.hookId}`)).body;
    expect(hook).toMatchObject({ enabled: false, systemOwned: true });
    const later = `grace-${Date.now()}@example.test`;
    const answer = await inbound(
      'signup',
      { user: { email: later, name: 'Grace Hopper' }, consent: 'granted' },
      'signup-delivery-2',
    );
    expect(answer.body.runs.map((r: any) => r.hookId)).toEqual([welcome.hookId]);
    const [grace] = await until(
      () => contactByEmail(later),
      (rows) => rows.length > 0,
      'the second contact',
    );
    await until(
      () => enrollments(welcome.id, grace.id),
      (e) => e.length === 1,
      'the second welcome enrollment',
    );
    expect(await enrollments(nurture.id, grace.id)).toEqual([]);
    // By hand too: a disabled automation enrolls nobody.
    const refused = await suite.api.post(`/automations/${nurture.id}/enrollments`, { contactId: grace.id });
    expect(refused.body.error.code).toBe('automation_disabled');
    // The contact already in it goes on with its journey.
    expect((await enrollments(nurture.id, contact.id))[0].status).toBe('active');
    expect((await suite.api.call('PATCH', `/automations/${nurture.id}`, { enabled: true })).body.enabled).toBe(true);

    // Exit: the running enrollment ends at once, recorded; asked again, the same answer.
    const exit = await suite.api.post(`/automations/${nurture.id}/enrollments/${inNurture[0].id}/exit`);
    expect(exit.status).toBe(200);
    expect(exit.body).toMatchObject({ status: 'exited', exitReason: 'exit_requested', endedAt: expect.any(String) });
    expect((await suite.api.post(`/automations/${nurture.id}/enrollments/${inNurture[0].id}/exit`)).body.status).toBe(
      'exited',
    );
    const ended = await suite.api.post(`/automations/${welcome.id}/enrollments/${inWelcome[0].id}/exit`);
    expect(ended.status).toBe(409);
    expect(ended.body.error.code).toBe('invalid_state');
    // Out of the journey, the contact can be enrolled again.
    const again = await suite.api.post(`/automations/${nurture.id}/enrollments`, { contactId: contact.id });
    expect(again.body).toMatchObject({ enrolled: true, contactCreated: false });
    expect(await enrollments(nurture.id, contact.id)).toHaveLength(2);
  });

  it('two automations on one source that name the same new phone-only contact at once create it once', async () => {
    const phone = `+1555${String(Date.now()).slice(-7)}`;
    const automations = await Promise.all(
      ['Phone A', 'Phone B'].map((name) =>
        create({
          name,
          trigger: { kind: 'inbound', source: 'phone-signup', mapping: { phone: '$.phone', name: '$.name' } },
          steps: [{ type: 'wait', duration: '1d' }],
        }),
      ),
    );
    const posted = await inbound('phone-signup', { phone, name: 'Only Phone' }, `phone-${phone}`);
    expect(posted.status).toBe(202);
    const enrolled = await Promise.all(
      automations.map((a) =>
        until(
          () => enrollments(a.id),
          (rows) => rows.length === 1,
          `the enrollment in ${a.name}`,
        ),
      ),
    );
    const contacts = await suite.db('contacts').where({ team_id: suite.team.teamId, phone });
    expect(contacts).toHaveLength(1);
    expect(enrolled.map((rows) => rows[0].contactId)).toEqual([contacts[0].id, contacts[0].id]);
  });

  it('an event trigger enrolls each new contact; its journey waits for the contact’s next update, then sends', async () => {
    const automation = await create({
      name: 'After the first update',
      trigger: { kind: 'event', event: 'contact.created' },
      steps: [
        { type: 'waitForEvent', event: 'contact.updated', timeout: '1h' },
        {
          type: 'send',
          channel: 'email',
          subject: 'Thanks {{first}}',
          content: 'Your details are saved.',
          templateParams: { first: 'contact.firstName' },
        },
      ],
    });
    const email = `lin-${Date.now()}@example.test`;
    const contact = (await suite.api.post('/contacts', { name: 'Lin Example', email, marketingConsent: 'granted' }))
      .body;
    const [enrollment] = await until(
      () => enrollments(automation.id, contact.id),
      (e) => e[0]?.waitingFor === 'contact.updated',
      'the enrollment to wait for contact.updated',
    );
    expect(suite.fake.byRecipient(email)).toHaveLength(0);
    await suite.api.call('PATCH', `/contacts/${contact.id}`, { company: 'Acme' });
    await until(
      () => enrollments(automation.id, contact.id),
      (e) => e[0].status === 'completed',
      'the journey to end',
    );
    expect(suite.fake.byRecipient(email).map((m) => m.subject)).toEqual(['Thanks Lin']);
    expect(enrollment.id).toMatch(/^enr_/);
    await suite.api.call('PATCH', `/automations/${automation.id}`, { enabled: false });
  });

  it('a segment trigger enrolls a contact when it enters the segment, once, not those already in it', async () => {
    const segment = (
      await suite.api.post('/segments', { name: 'Gold', groups: [{ conditions: [{ type: 'tag', value: 'gold' }] }] })
    ).body;
    const already = (
      await suite.api.post('/contacts', { name: 'Old Gold', email: `old-${Date.now()}@example.test`, tags: ['gold'] })
    ).body;
    await sleep(1000); // its contact.created is dispatched before the automation exists
    const automation = await create({
      name: 'Gold members',
      trigger: { kind: 'segment', segmentId: segment.id },
      steps: [{ type: 'wait', duration: '1d' }],
    });
    const newcomer = (await suite.api.post('/contacts', { name: 'New Comer', email: `new-${Date.now()}@example.test` }))
      .body;
    await sleep(1000);
    expect(await enrollments(automation.id, newcomer.id)).toEqual([]);
    await suite.api.call('PATCH', `/contacts/${newcomer.id}`, { tags: ['gold'] });
    await until(
      () => enrollments(automation.id, newcomer.id),
      (e) => e.length === 1,
      'the newcomer to enter',
    );
    await suite.api.call('PATCH', `/contacts/${newcomer.id}`, { company: 'Still gold' });
    await suite.api.call('PATCH', `/contacts/${already.id}`, { company: 'Was gold before' });
    await sleep(1500);
    expect(await enrollments(automation.id, newcomer.id)).toHaveLength(1);
    expect(await enrollments(automation.id, already.id)).toEqual([]);
    await suite.api.call('PATCH', `/automations/${automation.id}`, { enabled: false });
  });
});
