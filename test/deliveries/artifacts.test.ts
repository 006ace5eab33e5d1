import { apiClient, newTeam, useApiSuite } from '../support/helpers';

async function upload(
  baseUrl: string,
  team: { token: string; slug: string },
  name: string,
  type: string,
  content: string | Buffer,
) {
  const form = new FormData();
  form.append('file', new Blob([content], { type }), name);
  const res = await fetch(`${baseUrl}/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${team.token}`, 'x-team-slug': team.slug },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('artifacts and media', () => {
  const suite = useApiSuite('artifacts');

  it('uploads media (multipart), lists it, serves it, and refuses unknown types and oversize files', async () => {
    const up = await upload(suite.server.baseUrl, suite.team, 'offer.pdf', 'application/pdf', '%PDF-1.4 offer');
    expect(up.status).toBe(201);
    expect(up.body).toMatchObject({
      filename: 'offer.pdf',
      contentType: 'application/pdf',
      size: 14,
      url: `${suite.server.baseUrl}/media/${up.body.id}/content`,
    });
    const content = await fetch(up.body.url, {
      headers: { authorization: `Bearer ${suite.team.token}`, 'x-team-slug': suite.team.slug },
    });
    expect(await content.text()).toBe('%PDF-1.4 offer');
    const listed = await suite.api.get('/media');
    expect(listed.body.data.map((m: { id: string }) => m.id)).toContain(up.body.id);

    const exe = await upload(suite.server.baseUrl, suite.team, 'run.exe', 'application/x-msdownload', 'MZ');
    expect(exe.status).toBe(415);
    expect(exe.body.error.code).toBe('unsupported_media_type');
    const json = await suite.api.post('/media', { file: 'x' });
    expect(json.status).toBe(415);
  });

  it('creates, reads, lists with filters, edits and deletes artifacts, with media[].url', async () => {
    const media = await upload(suite.server.baseUrl, suite.team, 'concept.png', 'image/png', 'png-bytes');
    const contact = (
      await suite.api.post('/contacts', { name: 'Client One', email: `client-${Date.now()}@example.test` })
    ).body;
    const created = await suite.api.post('/artifacts', {
      title: 'Brand concept',
      type: 'concept',
      url: 'https://example.test/concept',
      password: 'pw1',
      extraLink: 'https://example.test/more',
      media: [media.body.id],
      contactId: contact.id,
      orderId: 'ORD-7',
      quoteId: 'Q-9',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      title: 'Brand concept',
      type: 'concept',
      status: 'draft',
      deliveredAt: null,
      contactId: contact.id,
      orderId: 'ORD-7',
      quoteId: 'Q-9',
      password: 'pw1',
      media: [{ id: media.body.id, filename: 'concept.png', url: media.body.url }],
    });
    const other = await suite.api.post('/artifacts', { title: 'Old update', type: 'update' });
    expect(other.body.media).toEqual([]);

    expect((await suite.api.get(`/artifacts/${created.body.id}`)).body.title).toBe('Brand concept');
    const byType = await suite.api.get('/artifacts?type=concept');
    expect(byType.body.data.map((a: { id: string }) => a.id)).toEqual([created.body.id]);
    const byIds = await suite.api.get(`/artifacts?ids=${created.body.id},${other.body.id}&limit=1`);
    expect(byIds.body.data).toHaveLength(1);
    expect(byIds.body.pagination.nextCursor).not.toBeNull();
    const byContact = await suite.api.get(`/artifacts?contactId=${contact.id}`);
    expect(byContact.body.data.map((a: { id: string }) => a.id)).toEqual([created.body.id]);

    const edited = await suite.api.call('PATCH', `/artifacts/${created.body.id}`, {
      title: 'Brand concept v2',
      password: null,
      media: [],
    });
    expect(edited.body).toMatchObject({ title: 'Brand concept v2', password: null, media: [] });
    expect((await suite.api.call('DELETE', `/artifacts/${other.body.id}`)).status).toBe(204);
    expect((await suite.api.get(`/artifacts/${other.body.id}`)).status).toBe(404);
  });

  it('moves draft → ready by PATCH, archives from any state, and refuses every other move with 409 invalid_state', async () => {
    const art = (await suite.api.post('/artifacts', { title: 'Offer', type: 'offer' })).body;
    const toSent = await suite.api.call('PATCH', `/artifacts/${art.id}`, { status: 'sent' });
    expect(toSent.status).toBe(409);
    expect(toSent.body.error.code).toBe('invalid_state');
    expect((await suite.api.call('PATCH', `/artifacts/${art.id}`, { status: 'ready' })).body.status).toBe('ready');
    const back = await suite.api.call('PATCH', `/artifacts/${art.id}`, { status: 'draft' });
    expect(back.status).toBe(409);
    expect(back.body.error.details).toMatchObject({ from: 'ready', to: 'draft' });
    expect((await suite.api.call('PATCH', `/artifacts/${art.id}`, { status: 'archived' })).body.status).toBe(
      'archived',
    );
    expect((await suite.api.call('PATCH', `/artifacts/${art.id}`, { status: 'ready' })).status).toBe(409);
  });

  it('rejects bad artifact input with a clear error and loses nothing', async () => {
    const cases: [unknown, number, string][] = [
      [{ type: 'offer' }, 400, 'validation_error'],
      [{ title: 'x', type: 'poem' }, 400, 'validation_error'],
      [{ title: 'x', url: 'javascript:alert(1)' }, 400, 'validation_error'],
      [{ title: 'x', media: ['med_nope'] }, 422, 'unknown_media'],
      [{ title: 'x', contactId: 'ct_nope' }, 422, 'unknown_contact'],
      [{ title: 'x', status: 'sent' }, 400, 'validation_error'],
      [{ title: 'x', surprise: 1 }, 400, 'validation_error'],
    ];
    const before = (await suite.api.get('/artifacts?limit=100')).body.data.length;
    for (const [body, status, code] of cases) {
      const res = await suite.api.post('/artifacts', body);
      expect([res.status, res.body.error?.code]).toEqual([status, code]);
    }
    expect((await suite.api.get('/artifacts?limit=100')).body.data.length).toBe(before);
  });

  it('will not delete a file an artifact uses (409), and does once it is detached', async () => {
    const media = await upload(suite.server.baseUrl, suite.team, 'a.txt', 'text/plain', 'hello');
    const art = (await suite.api.post('/artifacts', { title: 'With file', media: [media.body.id] })).body;
    const blocked = await suite.api.call('DELETE', `/media/${media.body.id}`);
    expect(blocked.status).toBe(409);
    expect(blocked.body.error.details.artifactIds).toEqual([art.id]);
    await suite.api.call('PATCH', `/artifacts/${art.id}`, { media: [] });
    expect((await suite.api.call('DELETE', `/media/${media.body.id}`)).status).toBe(204);
  });

  it('another team sees none of it: artifact and media ids are 404', async () => {
    const media = await upload(suite.server.baseUrl, suite.team, 'secret.pdf', 'application/pdf', 'secret');
    const art = (await suite.api.post('/artifacts', { title: 'Ours', media: [media.body.id] })).body;
    const other = apiClient(suite.server.baseUrl, await newTeam(suite.db, 'artifacts-other'));
    expect((await other.get(`/artifacts/${art.id}`)).status).toBe(404);
    expect((await other.call('PATCH', `/artifacts/${art.id}`, { title: 'theirs' })).status).toBe(404);
    expect((await other.call('DELETE', `/artifacts/${art.id}`)).status).toBe(404);
    expect((await other.get(`/artifacts?ids=${art.id}`)).body.data).toEqual([]);
    expect((await other.get(`/media/${media.body.id}/content`)).status).toBe(404);
    expect((await other.call('DELETE', `/media/${media.body.id}`)).status).toBe(404);
    const attach = await other.post('/artifacts', { title: 'Steal', media: [media.body.id] });
    expect(attach.status).toBe(422);
  });
});
