import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createJobActivities } from '../../services/jobs/activities';
import { LocalDiskStorage } from '../../services/media/storage';
import { FakeWebhookReceiver } from '../fakes/webhookReceiver';
import { useApiSuite, waitForJob } from '../support/helpers';

/**
 * A contacts.import emits contact.created for each contact it creates and contact.updated for each
 * one it changes, in the outbox, once per change (docs/EVENTS.md), and its events reach webhooks.
 */
describe('contacts.import emits platform events', () => {
  const suite = useApiSuite('import-events');
  let receiver: FakeWebhookReceiver;
  beforeAll(async () => {
    receiver = await new FakeWebhookReceiver().start();
  });
  afterAll(async () => {
    await receiver?.stop();
  });

  async function runImport(csv: string) {
    const accepted = await suite.api.post('/jobs', { type: 'contacts.import', input: { csv } });
    expect(accepted.status).toBe(202);
    const job = await waitForJob(suite.api, accepted.body.jobId);
    expect(job.status).toBe('succeeded');
    return { jobId: accepted.body.jobId as string, result: job.result };
  }

  const idOf = async (email: string): Promise<string> =>
    (await suite.db('contacts').where({ team_id: suite.team.teamId, email }).first('id')).id;

  /** The team's events after `afterSeq`, oldest first. */
  const eventsAfter = (afterSeq: number) =>
    suite
      .db('platform_events')
      .where({ team_id: suite.team.teamId })
      .where('seq', '>', afterSeq)
      .orderBy('seq')
      .select('seq', 'type', 'subject', 'data', 'dedupe_key');

  const lastSeq = async () =>
    Number((await suite.db('platform_events').where({ team_id: suite.team.teamId }).max({ seq: 'seq' }))[0].seq ?? 0);

  it('2 new rows, 1 changing an existing contact, 1 identical to one: 2 contact.created and 1 contact.updated; run again, none more', async () => {
    expect((await suite.api.post('/contacts', { name: 'Will Change', email: 'change@imp.example' })).status).toBe(201);
    expect((await suite.api.post('/contacts', { name: 'Stay Same', email: 'same@imp.example' })).status).toBe(201);
    const before = await lastSeq();

    const csv = [
      'name,email,marketingConsent,consentSource',
      'New One,new1@imp.example,,',
      'New Two,new2@imp.example,granted,spring fair',
      'Will Change,change@imp.example,granted,spring fair',
      'Stay Same,same@imp.example,,',
    ].join('\n');
    const { jobId, result } = await runImport(csv);
    expect(result).toMatchObject({ total: 4, imported: 2, duplicates: 2, failed: 0 });

    const [new1, new2, changed] = await Promise.all(
      ['new1@imp.example', 'new2@imp.example', 'change@imp.example'].map(idOf),
    );
    const events = await eventsAfter(before);
    expect(events.map((e) => [e.type, e.subject, e.dedupe_key])).toEqual([
      ['contact.created', new1, `import:${jobId}:${new1}:created`],
      ['contact.created', new2, `import:${jobId}:${new2}:created`],
      ['contact.updated', changed, `import:${jobId}:${changed}:updated`],
    ]);
    // The payloads of the single write: the contact as GET /contacts/{id} shows it (and, for an
    // update, the fields the row named).
    for (const event of events) {
      const shown = (await suite.api.get(`/contacts/${event.subject}`)).body;
      expect(event.data).toEqual(
        event.type === 'contact.created'
          ? { contact: shown }
          : { contact: shown, changed: ['marketingConsent', 'consentSource'] },
      );
    }
    expect(events[2].data.contact).toMatchObject({ marketingConsent: 'granted', consentSource: 'spring fair' });

    // The batch's activity run again (as a retry after its commit would): the same counts, no event.
    const jobs = createJobActivities({
      db: suite.db,
      storage: new LocalDiskStorage(fs.mkdtempSync(path.join(os.tmpdir(), 'tap-media-'))),
    });
    const again = await jobs.importContactsBatch({
      jobId,
      offset: 0,
      limit: suite.server.ctx.config.IMPORT_BATCH_SIZE,
    });
    expect(again).toMatchObject({ imported: 2, duplicates: 2, failed: 0 });
    expect(await eventsAfter(before)).toHaveLength(3);

    // The same file imported by a new job: every row is now a duplicate and changes nothing.
    const rerun = await runImport(csv);
    expect(rerun.result).toMatchObject({ imported: 0, duplicates: 4 });
    expect(await eventsAfter(before)).toHaveLength(3);
  });

  it('an endpoint subscribed to contact.created receives the imported contacts', async () => {
    const created = await suite.api.post('/webhooks/endpoints', {
      url: receiver.url('/imported'),
      eventTypes: ['contact.created'],
    });
    expect(created.status).toBe(201);
    receiver.setSecret('/imported', created.body.secret);

    await runImport(['name,email', 'Hook One,hook1@imp.example', 'Hook Two,hook2@imp.example'].join('\n'));
    const ids = await Promise.all(['hook1@imp.example', 'hook2@imp.example'].map(idOf));
    const fromImport = () => receiver.forPath('/imported').filter((r) => ids.includes(r.data.contact.id));
    await receiver.waitFor(() => fromImport().length >= 2);
    expect(
      fromImport()
        .map((r) => [r.type, r.data.contact.id, r.data.contact.name])
        .sort(),
    ).toEqual(
      [
        ['contact.created', ids[0], 'Hook One'],
        ['contact.created', ids[1], 'Hook Two'],
      ].sort(),
    );
  });
});
