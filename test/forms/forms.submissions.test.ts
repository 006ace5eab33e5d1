import { confirmationUrl } from '../../services/forms/confirmation';
import { sleep, useProviderSuite } from '../support/helpers';

/**
 * Submissions of a form's page over plain HTTP, as a browser without JavaScript posts them: the
 * contact and its events, a known email answered with the very same page, the honeypot, the
 * rate limits, double opt-in through the fake email provider and its signed link (expired and
 * tampered links refused), and an event-triggered automation that enrols a sign-up.
 */
describe('form submissions', () => {
  const suite = useProviderSuite('forms-submit', { FORM_LIMIT_PER_ADDRESS: '5/600', FORM_LIMIT_PER_FORM: '6/600' });
  let addressCount = 0;
  /** A client address of its own per test (the API trusts X-Forwarded-For from loopback): limits stay apart. */
  const newAddress = () => `203.0.113.${++addressCount}`;
  const unique = (name: string) => `${name}-${Date.now()}-${addressCount}@example.test`;

  beforeAll(async () => {
    expect((await suite.api.call('PUT', '/apps/forms')).status).toBe(200);
  });
  beforeEach(async () => {
    // The fake provider is reset before each test; the integration points at it again.
    await suite.api.call('PUT', `/agents/${suite.team.agentId}/integrations/email`, {
      provider: 'resend',
      config: { baseUrl: suite.fake.baseUrl },
      secrets: { apiKey: 'k' },
      from: 'news@acme.example',
    });
  });

  const createForm = async (body: Record<string, unknown> = {}) => {
    const res = await suite.api.post('/forms', {
      name: 'Newsletter',
      fields: [{ name: 'name' }, { name: 'email' }, { name: 'company' }],
      tags: ['newsletter'],
      consentText: 'Email me the monthly newsletter',
      ...body,
    });
    expect(res.status).toBe(201);
    return res.body;
  };
  const submit = async (url: string, fields: Record<string, string>, address: string) => {
    const res = await fetch(url, {
      method: 'POST',
      body: new URLSearchParams(fields),
      headers: { 'x-forwarded-for': address },
      redirect: 'manual',
    });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  const contactByEmail = (email: string) =>
    suite.db('contacts').where({ team_id: suite.team.teamId }).whereRaw('lower(email) = lower(?)', [email]).first();
  const lastSeq = async () =>
    Number((await suite.db('platform_events').where({ team_id: suite.team.teamId }).max({ seq: 'seq' }))[0].seq ?? 0);
  const eventsAfter = (seq: number) =>
    suite
      .db('platform_events')
      .where({ team_id: suite.team.teamId })
      .where('seq', '>', seq)
      .orderBy('seq')
      .select('type', 'subject', 'data');
  async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, ms = 20_000): Promise<T> {
    const deadline = Date.now() + ms;
    let last: T;
    do {
      last = await read();
      if (ok(last)) return last;
      await sleep(150);
    } while (Date.now() < deadline);
    throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
  }

  it('a POST creates the contact with the form’s tags and a ticked consent, and records contact.created', async () => {
    const form = await createForm();
    const email = unique('ada');
    const before = await lastSeq();
    const res = await submit(
      form.url,
      { name: 'Ada Lovelace', email, company: 'Analytical', consent: 'yes', website: '' },
      newAddress(),
    );
    expect(res.status).toBe(200);
    expect(res.text).toContain('Thank you for signing up.');
    const contact = await contactByEmail(email);
    expect(contact).toMatchObject({
      name: 'Ada Lovelace',
      first_name: 'Ada',
      company: 'Analytical',
      tags: ['newsletter'],
      marketing_consent: 'granted',
      consent_source: `form:${form.id}`,
    });
    expect(Date.now() - contact.consent_at.getTime()).toBeLessThan(60_000);
    const events = await eventsAfter(before);
    expect(events.map((e: any) => [e.type, e.subject])).toEqual([['contact.created', contact.id]]);
    expect(events[0].data.contact).toMatchObject({ email, tags: ['newsletter'], marketingConsent: 'granted' });
  });

  it('a known email gets the identical page; the contact is updated (empty fields, tags), never overwritten: contact.updated', async () => {
    const form = await createForm({ tags: ['webinar'], consentText: undefined });
    const email = unique('grace');
    const known = await suite.api.post('/contacts', { name: 'Grace Hopper', email, tags: ['vip'] });
    const fresh = unique('fresh');
    const address = newAddress();
    const before = await lastSeq();
    const forKnown = await submit(form.url, { name: 'Someone Else', email, company: 'Navy' }, address);
    const forNew = await submit(form.url, { name: 'Someone Else', email: fresh, company: 'Navy' }, address);
    // Nothing tells the submitter whether the address was known: same status, same bytes.
    expect(forKnown.status).toBe(forNew.status);
    expect(forKnown.text).toBe(forNew.text);
    expect(await contactByEmail(email)).toMatchObject({
      id: known.body.id,
      name: 'Grace Hopper',
      company: 'Navy',
      tags: ['vip', 'webinar'],
      marketing_consent: 'pending',
    });
    const events = await eventsAfter(before);
    expect(events.map((e: any) => e.type)).toEqual(['contact.updated', 'contact.created']);
    expect(events[0]).toMatchObject({ subject: known.body.id, data: { changed: expect.arrayContaining(['tags']) } });
    // Without a consent checkbox nothing is granted.
    expect((await contactByEmail(fresh)).marketing_consent).toBe('pending');
  });

  it('an unticked box grants nothing; a wrong email answers the form again with the error, nothing stored', async () => {
    const form = await createForm();
    const email = unique('unticked');
    expect((await submit(form.url, { email }, newAddress())).status).toBe(200);
    expect((await contactByEmail(email)).marketing_consent).toBe('pending');
    const bad = await submit(form.url, { name: 'X', email: 'not-an-email' }, newAddress());
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('aria-invalid="true"');
    expect(bad.text).toContain('Enter an email address like name@example.com');
    expect(bad.text).toContain('value="not-an-email"');
    expect((await suite.api.get(`/forms/${form.id}`)).body.submissionCount).toBe(1);
  });

  it('a filled honeypot is dropped silently: the same thank-you page, no contact, no submission', async () => {
    const form = await createForm();
    const address = newAddress();
    const real = await submit(form.url, { email: unique('real') }, address);
    const email = unique('bot');
    const bot = await submit(form.url, { email, name: 'Bot', website: 'http://spam.example' }, address);
    expect(bot.status).toBe(200);
    expect(bot.text).toBe(real.text);
    expect(await contactByEmail(email)).toBeUndefined();
    expect((await suite.api.get(`/forms/${form.id}`)).body.submissionCount).toBe(1);
  });

  it('limits submissions per client address and per form: a 429 page with Retry-After, nothing saved', async () => {
    const form = await createForm();
    const address = newAddress();
    for (let i = 0; i < 5; i++) expect((await submit(form.url, { email: unique(`a${i}`) }, address)).status).toBe(200);
    const email = unique('over');
    const refused = await submit(form.url, { email }, address);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.text).toContain('Too many sign-ups');
    expect(await contactByEmail(email)).toBeUndefined();
    // Another address may still sign up, until the form's own quota (6) is spent.
    expect((await submit(form.url, { email: unique('b') }, newAddress())).status).toBe(200);
    expect((await submit(form.url, { email: unique('c') }, newAddress())).status).toBe(429);
    // Another form is not this one's quota.
    const other = await createForm();
    expect((await submit(other.url, { email: unique('d') }, newAddress())).status).toBe(200);
  });

  it('double opt-in: consent stays pending until the emailed link is clicked; then granted with source and time', async () => {
    const form = await createForm({ doubleOptIn: true, agentId: suite.team.agentId });
    const email = unique('dora');
    const res = await submit(form.url, { name: 'Dora', email, consent: 'yes' }, newAddress());
    expect(res.status).toBe(200);
    expect(res.text).toContain('check your inbox');
    expect((await contactByEmail(email)).marketing_consent).toBe('pending');
    const [message] = await until(
      async () => suite.fake.byRecipient(email),
      (m) => m.length === 1,
      'the confirmation email',
    );
    expect(message).toMatchObject({ from: 'news@acme.example', subject: 'Please confirm your subscription' });
    const link = message.text.match(/https?:\/\/\S+\/confirm\?\S+/)![0];
    expect(link.startsWith(`${form.url}/confirm?`)).toBe(true);
    const logged = await suite.db('outbound_messages').where({ source_kind: 'form', source_id: form.id });
    expect(logged).toHaveLength(1);

    // Opening the link changes nothing (mail scanners open links); its button confirms.
    const opened = await fetch(link);
    expect(opened.status).toBe(200);
    expect(await opened.text()).toContain('Yes, confirm my subscription');
    expect((await contactByEmail(email)).marketing_consent).toBe('pending');
    const clickedAt = Date.now();
    const confirmed = await fetch(link, { method: 'POST', body: new URLSearchParams({ confirm: 'yes' }) });
    expect(confirmed.status).toBe(200);
    expect(await confirmed.text()).toContain('Subscription confirmed');
    const contact = await contactByEmail(email);
    expect(contact).toMatchObject({ marketing_consent: 'granted', consent_source: `form:${form.id}` });
    expect(Math.abs(contact.consent_at.getTime() - clickedAt)).toBeLessThan(5_000);
    const [submission] = (await suite.api.get(`/forms/${form.id}/submissions`)).body.data;
    expect(submission).toMatchObject({ consent: 'confirmed', confirmationSentAt: expect.any(String) });
    const again = await fetch(link, { method: 'POST', body: new URLSearchParams({ confirm: 'yes' }) });
    expect(await again.text()).toContain('Already confirmed');
    // The same address again, not ticked: no second email.
    await submit(form.url, { email }, newAddress());
    await sleep(300);
    expect(suite.fake.byRecipient(email)).toHaveLength(1);
  });

  it('an expired or tampered confirmation link is refused in words, and grants nothing', async () => {
    const form = await createForm({ doubleOptIn: true, agentId: suite.team.agentId });
    const email = unique('late');
    await submit(form.url, { email, consent: 'yes' }, newAddress());
    const [submission] = await until(
      async () => (await suite.api.get(`/forms/${form.id}/submissions`)).body.data,
      (d: any[]) => d[0]?.confirmationSentAt,
      'the confirmation to be sent',
    );
    const { siteUrl } = suite.server.ctx.config;
    const box = suite.server.ctx.secretBox;
    const expired = confirmationUrl(siteUrl, box, form.id, submission.id, new Date(Date.now() - 60_000));
    for (const method of ['GET', 'POST']) {
      const res = await fetch(expired, { method });
      expect(res.status).toBe(410);
      expect(await res.text()).toContain('This link has expired');
    }
    const valid = new URL(confirmationUrl(siteUrl, box, form.id, submission.id, new Date(Date.now() + 60_000)));
    const later = new URL(valid);
    later.searchParams.set('expires', String(Number(valid.searchParams.get('expires')) + 86_400));
    const otherSubmission = new URL(valid);
    otherSubmission.searchParams.set('s', 'fsb_someoneelse');
    const noSig = new URL(valid);
    noSig.searchParams.delete('sig');
    for (const url of [later, otherSubmission, noSig]) {
      const res = await fetch(url, { method: 'POST' });
      expect(res.status).toBe(403);
      expect(await res.text()).toContain('This link is not valid');
    }
    expect((await contactByEmail(email)).marketing_consent).toBe('pending');
  });

  it('an automation triggered by contact.created enrols a form sign-up', async () => {
    const automation = (
      await suite.api.post('/automations', {
        name: 'Welcome sign-ups',
        trigger: { kind: 'event', event: 'contact.created' },
        steps: [{ type: 'wait', duration: '1d' }],
      })
    ).body;
    const form = await createForm();
    const email = unique('journey');
    await submit(form.url, { name: 'Jo Urney', email }, newAddress());
    const contact: any = await until(() => contactByEmail(email), Boolean, 'the contact');
    const enrolled = await until(
      async () => (await suite.api.get(`/automations/${automation.id}/enrollments?contactId=${contact.id}`)).body.data,
      (data: any[]) => data.length === 1,
      'the enrollment',
    );
    expect(enrolled[0]).toMatchObject({ contactId: contact.id, status: 'active' });
    await suite.api.call('PATCH', `/automations/${automation.id}`, { enabled: false });
  });
});
