import { useApiSuite, waitForJob } from '../support/helpers';

/**
 * What waits for a person: the team's jobs and its warp executions (the approvals inbox), newest
 * first, a page at a time, each item as its single-item GET answers it.
 */
describe('lists of jobs and warp executions', () => {
  const suite = useApiSuite('lists');

  const expectInvalidQuery = (res: { status: number; body: any }, field: string) => {
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.issues.map((i: { path: string }) => i.path)).toContain(field);
  };

  describe('GET /jobs', () => {
    const jobIds: string[] = [];
    beforeAll(async () => {
      for (const body of [
        { type: 'contacts.import', input: { rows: [{ name: 'Listed Person', email: 'listed@example.com' }] } },
        { type: 'contacts.export' },
        { type: 'contacts.export' },
      ]) {
        const accepted = await suite.api.post('/jobs', body);
        expect(accepted.status).toBe(202);
        jobIds.push(accepted.body.jobId);
        await waitForJob(suite.api, accepted.body.jobId);
      }
    });

    it("lists the team's jobs newest first, a page at a time, each as GET /jobs/{jobId} answers it", async () => {
      const first = await suite.api.get('/jobs?limit=2');
      expect(first.status).toBe(200);
      expect(first.body.data.map((j: { jobId: string }) => j.jobId)).toEqual([jobIds[2], jobIds[1]]);
      expect(first.body.pagination).toEqual({ nextCursor: expect.any(String), limit: 2 });
      const second = await suite.api.get(`/jobs?limit=2&cursor=${first.body.pagination.nextCursor}`);
      expect(second.body.data.map((j: { jobId: string }) => j.jobId)).toEqual([jobIds[0]]);
      expect(second.body.pagination.nextCursor).toBeNull();
      for (const listed of [...first.body.data, ...second.body.data]) {
        expect(listed).toEqual((await suite.api.get(`/jobs/${listed.jobId}`)).body);
      }
      expect(second.body.data[0]).toMatchObject({
        type: 'contacts.import',
        status: 'succeeded',
        result: { imported: 1 },
      });
    });

    it('filters by type and status; the default page is 25', async () => {
      const imports = await suite.api.get('/jobs?type=contacts.import');
      expect(imports.body.data.map((j: { jobId: string }) => j.jobId)).toEqual([jobIds[0]]);
      expect(imports.body.pagination).toEqual({ nextCursor: null, limit: 25 });
      expect((await suite.api.get('/jobs?status=succeeded&type=contacts.export')).body.data).toHaveLength(2);
      expect((await suite.api.get('/jobs?status=running')).body.data).toEqual([]);
    });

    it('answers an unknown status or type, or a limit outside 1..100, with 400 validation_error', async () => {
      expectInvalidQuery(await suite.api.get('/jobs?status=done'), 'status');
      expectInvalidQuery(await suite.api.get('/jobs?type=contacts.delete'), 'type');
      expectInvalidQuery(await suite.api.get('/jobs?limit=0'), 'limit');
      expectInvalidQuery(await suite.api.get('/jobs?limit=101'), 'limit');
      expectInvalidQuery(await suite.api.get('/jobs?cursor=not-ours'), 'cursor');
    });
  });

  describe('GET /warp-executions', () => {
    const executions: { sent: string; declined: string; pending: string } = {} as never;
    beforeAll(async () => {
      const { api, team } = suite;
      await api.call('PUT', `/agents/${team.agentId}/integrations/email`, { provider: 'sandbox' });
      const contactId = (await api.post('/contacts', { name: 'Inbox Reader', email: 'inbox.reader@example.com' })).body
        .id;
      const artifactId = (await api.post('/artifacts', { title: 'Offer', type: 'offer', contactId, status: 'ready' }))
        .body.id;
      const deliver = (message: string) =>
        api.post('/artifacts/deliver', { artifactIds: [artifactId], message, integration: 'email' });
      const sent = await deliver('Sent at once');
      expect(sent.body).toMatchObject({ pending: false, status: 'succeeded' });
      executions.sent = sent.body.executionId;
      await api.call('PATCH', `/agents/${team.agentId}`, { mode: 'manual' });
      executions.declined = (await deliver('Declined later')).body.executionId;
      executions.pending = (await deliver('Waiting for you')).body.executionId;
      expect(
        (await api.post(`/warp-executions/${executions.declined}/decline`, { reason: 'not now' })).body.status,
      ).toBe('declined');
    });

    it('status=pending_approval is the approvals inbox: only what waits for a person, as GET /warp-executions/{id} answers it', async () => {
      const inbox = await suite.api.get('/warp-executions?status=pending_approval');
      expect(inbox.status).toBe(200);
      expect(inbox.body.data).toEqual([(await suite.api.get(`/warp-executions/${executions.pending}`)).body]);
      expect(inbox.body.data[0]).toMatchObject({
        warp: 'artifact-deliver',
        status: 'pending_approval',
        draft: { message: expect.stringContaining('Waiting for you') },
      });
      expect(inbox.body.pagination).toEqual({ nextCursor: null, limit: 25 });
    });

    it('lists every execution newest first, a page at a time, and filters by warp', async () => {
      const first = await suite.api.get('/warp-executions?limit=2');
      expect(first.body.data.map((x: { id: string }) => x.id)).toEqual([executions.pending, executions.declined]);
      const second = await suite.api.get(`/warp-executions?limit=2&cursor=${first.body.pagination.nextCursor}`);
      expect(second.body.data.map((x: { id: string; status: string }) => [x.id, x.status])).toEqual([
        [executions.sent, 'succeeded'],
      ]);
      expect(second.body.pagination.nextCursor).toBeNull();
      expect(
        (await suite.api.get('/warp-executions?warp=artifact-deliver&status=declined')).body.data.map(
          (x: { id: string }) => x.id,
        ),
      ).toEqual([executions.declined]);
      expect((await suite.api.get('/warp-executions?warp=svc-campaign-send')).body.data).toEqual([]);
    });

    it('answers an unknown status or warp with 400 validation_error', async () => {
      expectInvalidQuery(await suite.api.get('/warp-executions?status=waiting'), 'status');
      expectInvalidQuery(await suite.api.get('/warp-executions?warp=send-everything'), 'warp');
      expectInvalidQuery(await suite.api.get('/warp-executions?limit=500'), 'limit');
    });
  });
});
