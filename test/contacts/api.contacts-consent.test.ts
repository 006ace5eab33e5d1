import { useApiSuite, waitForJob } from '../support/helpers';

/** Marketing consent carried by an import, under the same rule as the single-contact write. */
describe('marketing consent on import', () => {
  const suite = useApiSuite('consent');

  async function runImport(input: Record<string, unknown>) {
    const accepted = await suite.api.post('/jobs', { type: 'contacts.import', input });
    expect(accepted.status).toBe(202);
    const job = await waitForJob(suite.api, accepted.body.jobId);
    expect(job.status).toBe('succeeded');
    return job.result;
  }

  const contactByEmail = async (email: string) => {
    const row = await suite
      .db('contacts')
      .where({ team_id: suite.team.teamId })
      .whereRaw('lower(email) = lower(?)', [email])
      .first('id');
    return (await suite.api.get(`/contacts/${row.id}`)).body;
  };

  it('a CSV with consent granted, its source and time makes the contacts sendable without any PATCH', async () => {
    const csv = [
      'name,email,tags,marketingConsent,consentSource,consentAt',
      'Ann Granted,ann@list.example,spring-list,granted,signup form,2025-03-01T09:30:00Z',
      'Ben Granted,ben@list.example,spring-list,granted,signup form,2025-03-02',
      'Cat Unsaid,cat@list.example,spring-list,,,',
    ].join('\n');
    expect(await runImport({ csv })).toEqual({
      total: 3,
      imported: 3,
      duplicates: 0,
      failed: 0,
      errors: [],
      errorsTruncated: false,
    });

    const preview = await suite.api.post('/campaigns/audience-preview', { channel: 'email', tags: ['spring-list'] });
    expect(preview.status).toBe(200);
    expect(preview.body).toEqual({
      channel: 'email',
      total: 3,
      sendable: 2,
      skipped: { pending_consent: 1, opted_out: 0, missing_channel: 0 },
    });

    expect(await contactByEmail('ann@list.example')).toMatchObject({
      marketingConsent: 'granted',
      consentSource: 'signup form',
      consentAt: '2025-03-01T09:30:00.000Z',
    });
    expect(await contactByEmail('ben@list.example')).toMatchObject({
      marketingConsent: 'granted',
      consentAt: '2025-03-02T00:00:00.000Z',
    });
    const cat = await contactByEmail('cat@list.example');
    expect(cat.marketingConsent).toBe('pending');
    expect(cat).not.toHaveProperty('consentSource');
    expect(cat).not.toHaveProperty('consentAt');
  });

  const future = new Date(Date.now() + 2 * 86_400_000).toISOString();
  const badConsent: [string, Record<string, string>, string][] = [
    ['an unknown consent state', { marketingConsent: 'yes' }, 'marketingConsent'],
    ['a consent time that is not a date', { marketingConsent: 'granted', consentAt: 'last tuesday' }, 'consentAt'],
    ['a consent time in the future', { marketingConsent: 'granted', consentAt: future }, 'consentAt'],
    ['a source without a consent state', { consentSource: 'fair' }, 'marketingConsent'],
    [
      'a source longer than 200 characters',
      { marketingConsent: 'granted', consentSource: 'x'.repeat(201) },
      'consentSource',
    ],
  ];

  it('reports each bad consent value with its row, field and message, and imports the other rows', async () => {
    const rows = [
      { name: 'Good Row', email: 'good@rows.example', marketingConsent: 'granted', consentSource: 'fair' },
      ...badConsent.map(([, consent], i) => ({ name: `Bad ${i}`, email: `bad${i}@rows.example`, ...consent })),
    ];
    const result = await runImport({ rows });
    expect(result).toMatchObject({
      total: rows.length,
      imported: 1,
      duplicates: 0,
      failed: badConsent.length,
      errorsTruncated: false,
    });
    expect(result.errors.map((e: { index: number; field: string }) => [e.index, e.field])).toEqual(
      badConsent.map(([, , field], i) => [i + 1, field]),
    );
    expect(result.errors[0].message).toBe('marketingConsent: Invalid option: expected one of "granted"|"pending"');
    expect(result.errors[2].message).toBe('consentAt: must not be in the future');
    expect((await contactByEmail('good@rows.example')).marketingConsent).toBe('granted');
    const stored = await suite
      .db('contacts')
      .where({ team_id: suite.team.teamId })
      .whereLike('email', 'bad%@rows.example');
    expect(stored).toEqual([]);
  });

  it('the single write and the import reject the same bad input with the same message', async () => {
    const target = await suite.api.post('/contacts', { name: 'Patch Target', email: 'target@same.example' });
    const result = await runImport({
      rows: badConsent.map(([, consent], i) => ({ email: `same${i}@same.example`, ...consent })),
    });
    expect(result.failed).toBe(badConsent.length);
    for (const [i, [label, consent, field]] of badConsent.entries()) {
      const rowError = result.errors.find((e: { index: number }) => e.index === i);
      const patch = await suite.api.call('PATCH', `/contacts/${target.body.id}`, consent);
      expect({ label, status: patch.status, code: patch.body.error.code }).toEqual({
        label,
        status: 400,
        code: 'validation_error',
      });
      expect(patch.body.error.details.issues[0].path).toBe(field);
      expect(rowError).toMatchObject({ field });
      expect(patch.body.error.message).toBe(`Invalid body: ${rowError.message}`);
    }
    // Nothing of the refused writes stuck.
    expect((await suite.api.get(`/contacts/${target.body.id}`)).body.marketingConsent).toBe('pending');
  });

  it('re-importing an existing email: granted is recorded, no column leaves consent alone, pending never revokes', async () => {
    const make = async (email: string, patch?: Record<string, unknown>) => {
      const created = await suite.api.post('/contacts', { name: email.split('@')[0], email });
      if (patch) expect((await suite.api.call('PATCH', `/contacts/${created.body.id}`, patch)).status).toBe(200);
    };
    await make('was-pending@re.example');
    await make('was-granted@re.example', {
      marketingConsent: 'granted',
      consentSource: 'double opt-in',
      consentAt: '2024-01-05T10:00:00Z',
    });
    await make('untouched@re.example', {
      marketingConsent: 'granted',
      consentSource: 'crm',
      consentAt: '2024-02-01T00:00:00Z',
    });
    await make('opted-out@re.example', { optedOut: true });

    const csv = [
      'email,marketingConsent,consentSource,consentAt',
      'WAS-PENDING@re.example,granted,spring fair,2025-04-01T12:00:00Z',
      'was-granted@re.example,pending,,',
      'untouched@re.example,,,',
      'opted-out@re.example,granted,spring fair,2025-04-01T12:00:00Z',
    ].join('\n');
    const first = await runImport({ csv });
    expect(first).toMatchObject({ total: 4, imported: 0, duplicates: 4, failed: 0 });

    expect(await contactByEmail('was-pending@re.example')).toMatchObject({
      marketingConsent: 'granted',
      consentSource: 'spring fair',
      consentAt: '2025-04-01T12:00:00.000Z',
    });
    expect(await contactByEmail('was-granted@re.example')).toMatchObject({
      marketingConsent: 'granted',
      consentSource: 'double opt-in',
      consentAt: '2024-01-05T10:00:00.000Z',
    });
    expect(await contactByEmail('untouched@re.example')).toMatchObject({
      marketingConsent: 'granted',
      consentSource: 'crm',
      consentAt: '2024-02-01T00:00:00.000Z',
    });
    // Consent is recorded, but an opt-out is the person's own word: an import never clears it.
    expect(await contactByEmail('opted-out@re.example')).toMatchObject({ marketingConsent: 'granted', optedOut: true });

    // The same file again changes nothing: a grant already recorded keeps its source and time.
    const again = csv.replace(/spring fair,2025-04-01T12:00:00Z/g, 'autumn fair,2025-09-01T12:00:00Z');
    await runImport({ csv: again });
    expect(await contactByEmail('was-pending@re.example')).toMatchObject({
      consentSource: 'spring fair',
      consentAt: '2025-04-01T12:00:00.000Z',
    });
  });

  it('PATCH records source and time; restating the same state keeps them, a new state without them is recorded now', async () => {
    const { body: contact } = await suite.api.post('/contacts', { name: 'Pat Ch', email: 'pat@patch.example' });
    const granted = await suite.api.call('PATCH', `/contacts/${contact.id}`, {
      marketingConsent: 'granted',
      consentSource: 'phone call',
      consentAt: '2025-05-05T08:00:00+02:00',
    });
    expect(granted.body).toMatchObject({
      marketingConsent: 'granted',
      consentSource: 'phone call',
      consentAt: '2025-05-05T06:00:00.000Z',
    });
    const restated = await suite.api.call('PATCH', `/contacts/${contact.id}`, { marketingConsent: 'granted' });
    expect(restated.body).toMatchObject({ consentSource: 'phone call', consentAt: '2025-05-05T06:00:00.000Z' });
    const before = Date.now();
    const pending = await suite.api.call('PATCH', `/contacts/${contact.id}`, { marketingConsent: 'pending' });
    expect(pending.body.marketingConsent).toBe('pending');
    expect(pending.body).not.toHaveProperty('consentSource');
    expect(Date.parse(pending.body.consentAt)).toBeGreaterThanOrEqual(before - 5_000);
  });

  it('POST /contacts takes consent with the same rule', async () => {
    const created = await suite.api.post('/contacts', {
      email: 'post@consent.example',
      marketingConsent: 'granted',
      consentSource: 'webinar',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ marketingConsent: 'granted', consentSource: 'webinar' });
    expect(created.body.properties).toEqual({});
    const refused = await suite.api.post('/contacts', { email: 'post2@consent.example', marketingConsent: 'yes' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.issues[0].path).toBe('marketingConsent');
  });
});
