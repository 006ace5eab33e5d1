import type { Db } from '../../db/knex';
import type { RunningServer } from '../../server';
import { simpleParser } from 'mailparser';
import { storeInboundMessage } from '../../services/inbox/inboxMessages';
import { issueRoomKey } from '../../services/rooms/roomKeys';
import { apiClient, newTeam, startTestApi, testDb, TestTeam, waitForJob } from '../support/helpers';
import { teamClientCredentials } from '../support/oauthHelpers';

/**
 * Team isolation: for every endpoint that exists, a second team's credentials (its API token, and
 * an OAuth token of its own client) see nothing of the first team's data, and naming the first
 * team in X-Team-Slug is refused.
 */
describe('team isolation matrix', () => {
  let db: Db;
  let server: RunningServer & { baseUrl: string };
  let teamA: TestTeam;
  let teamB: TestTeam;
  const a = {} as {
    contactId: string;
    email: string;
    jobId: string;
    mediaId: string;
    apiTokenId: string;
    oauthToken: string;
    client: { id: string; secret: string };
    artifactId: string;
    executionId: string;
    pendingExecutionId: string;
    deliveryId: string;
    outboxId: string;
    messageId: string;
    segmentId: string;
    campaignId: string;
    sentCampaignId: string;
    memoryId: string;
    skillId: string;
    roomId: string;
    turnId: string;
    webhookEndpointId: string;
    privateWarpId: string;
    privateAppId: string;
    hookId: string;
    authKeyId: string;
    authKey: string;
    automationId: string;
    enrollmentId: string;
    productId: string;
    formId: string;
    inboxMessageId: string;
    roomKeyId: string;
    orderId: string;
  };
  const b = {} as { oauthToken: string; client: { id: string; secret: string } };

  const teamClientToken = (team: TestTeam) => teamClientCredentials(server.url, team);

  beforeAll(async () => {
    db = testDb();
    server = await startTestApi(db);
    teamA = await newTeam(db, 'iso-a');
    teamB = await newTeam(db, 'iso-b');
    const apiA = apiClient(server.baseUrl, teamA);
    a.email = `shared-${Date.now()}@example.test`;
    a.contactId = (
      await apiA.post('/contacts', { name: 'Alice A', email: a.email }, { 'idempotency-key': 'same-key' })
    ).body.id;
    const job = await apiA.post('/jobs', { type: 'contacts.export', input: {} }, { 'idempotency-key': 'same-key' });
    a.jobId = job.body.jobId;
    a.mediaId = (await waitForJob(apiA, a.jobId)).result.mediaId;
    a.apiTokenId = (await apiA.get('/api-tokens')).body.data[0].id;
    // Deliverables: an artifact with a file, a delivery sent through the sandbox (a record and an
    // outbox message), and one waiting for approval.
    a.artifactId = (
      await apiA.post('/artifacts', {
        title: 'A contract',
        type: 'agreement',
        media: [a.mediaId],
        contactId: a.contactId,
        status: 'ready',
      })
    ).body.id;
    await apiA.call('PUT', `/agents/${teamA.agentId}/integrations/email`, { provider: 'sandbox' });
    const sent = await apiA.post('/artifacts/deliver', {
      artifactIds: [a.artifactId],
      message: 'For A only',
      integration: 'email',
    });
    a.executionId = sent.body.executionId;
    a.deliveryId = sent.body.deliveries[0].id;
    a.outboxId = sent.body.deliveries[0].providerMessageId;
    a.messageId = (await apiA.get(`/messages?sourceId=${a.executionId}`)).body.data[0].id;
    // Campaigns: a segment, a draft campaign, and one sent to completion (recipients, stats), while the agent is in auto mode.
    await apiA.call('PATCH', `/contacts/${a.contactId}`, { marketingConsent: 'granted', properties: { tier: 'gold' } });
    a.segmentId = (
      await apiA.post('/segments', { name: 'A only', groups: [{ conditions: [{ type: 'prop', value: 'tier:gold' }] }] })
    ).body.id;
    a.campaignId = (
      await apiA.post('/campaigns', { name: 'A draft', channel: 'email', content: 'Hi', segmentId: a.segmentId })
    ).body.id;
    a.sentCampaignId = (
      await apiA.post('/campaigns', { name: 'A sent', channel: 'email', content: 'Hi', contactIds: [a.contactId] })
    ).body.id;
    await apiA.post(`/campaigns/${a.sentCampaignId}/send`, {});
    for (let i = 0; i < 100 && (await apiA.get(`/campaigns/${a.sentCampaignId}`)).body.status === 'sending'; i++)
      await new Promise((r) => setTimeout(r, 100));
    await apiA.call('PATCH', `/agents/${teamA.agentId}`, { mode: 'manual' });
    a.pendingExecutionId = (
      await apiA.post('/artifacts/deliver', { artifactIds: [a.artifactId], message: 'Pending', integration: 'email' })
    ).body.executionId;
    // MCP: A installed an app and spent credits.
    await apiA.call('PUT', '/apps/campaigns');
    await db('credit_usage').insert({
      team_id: teamA.teamId,
      cycle_start: new Date().toISOString().slice(0, 8) + '01',
      used: 7,
      calls: 4,
    });
    await apiA.call('PUT', `/agents/${teamA.agentId}/secrets/A_KEY`, { value: 'a-secret' });
    // An outbound webhook endpoint (disabled: nothing is sent to it).
    a.webhookEndpointId = (
      await apiA.post('/webhooks/endpoints', { url: 'https://93.184.215.14/a-hook', enabled: false })
    ).body.id;
    // A private warp (its name is A's alone).
    a.privateWarpId = (await apiA.post('/warps/private', { name: 'a-only-warp', steps: [{ wait: '1m' }] })).body.id;
    a.privateAppId = (
      await apiA.post('/private-apps', { slug: 'a-only-app', name: 'A', warps: ['a-only-warp'] })
    ).body.app.id;
    // A hook of A's agent, and its agent auth key.
    a.hookId = (
      await apiA.post(`/agents/${teamA.agentId}/hook-rules`, {
        source: 'inbound',
        event: 'a-src',
        warp: 'artifact-list',
      })
    ).body.hook.id;
    // An automation of A with the contact enrolled (waiting a day: it stays active).
    a.automationId = (
      await apiA.post('/automations', {
        name: 'A journey',
        trigger: { kind: 'inbound', source: 'a-journey' },
        steps: [{ type: 'wait', duration: '1d' }],
      })
    ).body.id;
    a.enrollmentId = (
      await apiA.post(`/automations/${a.automationId}/enrollments`, { contactId: a.contactId })
    ).body.enrollmentId;
    const authKey = (await apiA.post(`/agents/${teamA.agentId}/auth-keys`)).body;
    ({ id: a.authKeyId, key: a.authKey } = authKey);
    // Shop: a product and an order of A's contact.
    a.productId = (await apiA.post('/products', { name: 'A mug', sku: 'ISO-MUG', price: 5, currency: 'EUR' })).body.id;
    a.orderId = (
      await apiA.post('/orders', { contactId: a.contactId, items: [{ sku: 'ISO-MUG' }], externalId: 'ISO-1' })
    ).body.id;
    // The agent's mind: a memory, a skill (documents and character are read through the agent alone).
    a.memoryId = (await apiA.post(`/agents/${teamA.agentId}/memories`, { content: 'A remembers the harbour' })).body.id;
    a.skillId = (
      await apiA.post(`/agents/${teamA.agentId}/skills`, { name: 'a-skill', description: 'A only', instructions: 'A' })
    ).body.id;
    // A conversation: a room and a turn (answered by the offline model).
    const said = await apiA.post(`/agents/${teamA.agentId}/messages`, { message: 'A says hello', waitSeconds: 10 });
    a.roomId = said.body.roomId;
    a.turnId = said.body.turnId;
    // A sign-up form, a mail in the agent's inbox, a key of its room, its webhook retry settings.
    a.formId = (await apiA.post('/forms', { name: 'A form', tags: ['a'] })).body.id;
    a.inboxMessageId = (await storeInboundMessage(db, {
      agent: { id: teamA.agentId, team_id: teamA.teamId },
      envelopeFrom: 'someone@example.test',
      envelopeTo: `${teamA.agentId}@inbox.test`,
      parsed: await simpleParser(
        'From: someone@example.test\r\nSubject: For A\r\nMessage-ID: <iso-a@example.test>\r\n\r\nA only',
      ),
      size: 80,
    }))!;
    a.roomKeyId = (await issueRoomKey(db, a.roomId, 3600)).keyId;
    await apiA.call('PUT', '/webhooks/settings', { maxAttempts: 3 });
    ({ token: a.oauthToken, client: a.client } = await teamClientToken(teamA));
    ({ token: b.oauthToken, client: b.client } = await teamClientToken(teamB));
  });
  afterAll(async () => {
    await server?.close();
    await db?.destroy();
  });

  interface Row {
    endpoint: string;
    method: string;
    /** The operation as the description document names it, e.g. `GET /artifacts/{artifactId}`. */
    operation: string;
    path: () => string;
    body?: () => unknown;
    form?: () => FormData;
    /** What team B must get for the A-owned thing the row touches, with B's own slug. */
    check: (status: number, body: any) => void;
  }
  const notFound = (status: number, body: any) => {
    expect(status).toBe(404);
    expect(body.error.code).toBe('not_found');
  };
  const excludes = (field: string, value: () => string) => (status: number, body: any) => {
    expect(status).toBe(200);
    expect(body.data.map((x: any) => x[field])).not.toContain(value());
  };
  let bWarps = 0;
  let bProducts = 0;
  const rule = (code: string) => (status: number, body: any) => {
    expect(status).toBe(422);
    expect(body.error.code).toBe(code);
  };
  const rows: Row[] = [
    {
      endpoint: 'GET /agents/{id}/inbox',
      method: 'GET',
      operation: 'GET /agents/{agentId}/inbox',
      path: () => `/agents/${teamA.agentId}/inbox`,
      check: notFound,
    },
    {
      endpoint: 'GET /agents/{id}/inbox/{messageId}',
      method: 'GET',
      operation: 'GET /agents/{agentId}/inbox/{messageId}',
      path: () => `/agents/${teamA.agentId}/inbox/${a.inboxMessageId}`,
      check: notFound,
    },
    {
      endpoint: 'GET /rooms/{id}/keys',
      method: 'GET',
      operation: 'GET /rooms/{roomId}/keys',
      path: () => `/rooms/${a.roomId}/keys`,
      check: notFound,
    },
    {
      endpoint: 'DELETE /rooms/{id}/keys/{keyId}',
      method: 'DELETE',
      operation: 'DELETE /rooms/{roomId}/keys/{keyId}',
      path: () => `/rooms/${a.roomId}/keys/${a.roomKeyId}`,
      check: notFound,
    },
    {
      endpoint: 'DELETE /rooms/{id}/keys',
      method: 'DELETE',
      operation: 'DELETE /rooms/{roomId}/keys',
      path: () => `/rooms/${a.roomId}/keys`,
      check: notFound,
    },
    {
      endpoint: "GET /webhooks/settings (B's own, not A's)",
      method: 'GET',
      operation: 'GET /webhooks/settings',
      path: () => '/webhooks/settings',
      check: (status, body) => {
        expect(status).toBe(200);
        expect(body).toMatchObject({ custom: false, maxAttempts: 10 });
      },
    },
    {
      endpoint: "PUT /webhooks/settings (B's own)",
      method: 'PUT',
      operation: 'PUT /webhooks/settings',
      path: () => '/webhooks/settings',
      body: () => ({ maxAttempts: 5 }),
      check: (status, body) => {
        expect(status).toBe(200);
        expect(body).toMatchObject({ custom: true, maxAttempts: 5 });
      },
    },
    {
      endpoint: "DELETE /webhooks/settings (B's own)",
      method: 'DELETE',
      operation: 'DELETE /webhooks/settings',
      path: () => '/webhooks/settings',
      check: (status, body) => {
        expect(status).toBe(200);
        expect(body).toMatchObject({ custom: false });
      },
    },
    {
      endpoint: "POST /forms (B's own)",
      method: 'POST',
      operation: 'POST /forms',
      path: () => '/forms',
      body: () => ({ name: 'B form' }),
      check: (status) => expect(status).toBe(201),
    },
    {
      endpoint: 'GET /forms',
      method: 'GET',
      operation: 'GET /forms',
      path: () => '/forms',
      check: excludes('id', () => a.formId),
    },
    {
      endpoint: 'GET /forms/{id}',
      method: 'GET',
      operation: 'GET /forms/{formId}',
      path: () => `/forms/${a.formId}`,
      check: notFound,
    },
    {
      endpoint: 'PATCH /forms/{id}',
      method: 'PATCH',
      operation: 'PATCH /forms/{formId}',
      path: () => `/forms/${a.formId}`,
      body: () => ({ name: 'B took it' }),
      check: notFound,
    },
    {
      endpoint: 'GET /forms/{id}/submissions',
      method: 'GET',
      operation: 'GET /forms/{formId}/submissions',
      path: () => `/forms/${a.formId}/submissions`,
      check: notFound,
    },
    {
      endpoint: 'DELETE /forms/{id}',
      method: 'DELETE',
      operation: 'DELETE /forms/{formId}',
      path: () => `/forms/${a.formId}`,
      check: notFound,
    },
    {
      endpoint: 'GET /agents',
      method: 'GET',
      operation: 'GET /agents',
      path: () => '/agents',
      check: excludes('uuid', () => teamA.agentId),
    },
    {
      endpoint: 'PATCH /agents/{id}',
      method: 'PATCH',
      operation: 'PATCH /agents/{agentId}',
      path: () => `/agents/${teamA.agentId}`,
      body: () => ({ mode: 'auto' }),
      check: notFound,
    },
    {
      endpoint: 'GET /agents/{id}/integrations',
      method: 'GET',
      operation: 'GET /agents/{agentId}/integrations',
      path: () => `/agents/${teamA.agentId}/integrations`,
      check: notFound,
    },
    {
      endpoint: 'PUT /agents/{id}/integrations/email',
      method: 'PUT',
      operation: 'PUT /agents/{agentId}/integrations/{channel}',
      path: () => `/agents/${teamA.agentId}/integrations/email`,
      body: () => ({ provider: 'sandbox' }),
      check: notFound,
    },
    {
      endpoint: 'GET /agents/{id}/secrets',
      method: 'GET',
      operation: 'GET /agents/{agentId}/secrets',
      path: () => `/agents/${teamA.agentId}/secrets`,
      check: notFound,
    },
    {
      endpoint: 'PUT /agents/{id}/secrets/{key}',
      method: 'PUT',
      operation: 'PUT /agents/{agentId}/secrets/{key}',
      path: () => `/agents/${teamA.agentId}/secrets/A_KEY`,
      body: () => ({ value: 'b' }),
      check: notFound,
    },
    {
      endpoint: 'DELETE /agents/{id}/secrets/{key}',
      method: 'DELETE',
      operation: 'DELETE /agents/{agentId}/secrets/{key}',
      path: () => `/agents/${teamA.agentId}/secrets/A_KEY`,
      check: notFound,
    },
    ...(
      [
        ['GET', '/memories', undefined],
        ['POST', '/memories', { content: 'B was here' }],
        ['PATCH', '/memories/{memoryId}', { importance: 1 }],
        ['DELETE', '/memories/{memoryId}', undefined],
        ['GET', '/skills', undefined],
        ['POST', '/skills', { name: 'b-skill', description: 'B', instructions: 'B' }],
        ['PATCH', '/skills/{skillId}', { instructions: 'B' }],
        ['DELETE', '/skills/{skillId}', undefined],
        ['GET', '/documents', undefined],
        ['POST', '/documents', { title: 'B', text: 'B' }],
        ['GET', '/character', undefined],
        ['PUT', '/character', { persona: 'B' }],
      ] as const
    ).map(([method, rest, body]): Row => ({
      endpoint: `${method} /agents/{id}${rest}`,
      method,
      operation: `${method} /agents/{agentId}${rest}`,
      path: () => `/agents/${teamA.agentId}${rest.replace('{memoryId}', a.memoryId).replace('{skillId}', a.skillId)}`,
      ...(body ? { body: () => body } : {}),
      check: notFound,
    })),
    ...(
      [
        ['GET', '/hook-rules', undefined],
        ['POST', '/hook-rules', { source: 'internal', event: 'contact.created', warp: 'artifact-list' }],
        ['GET', '/hook-rules/{hookId}', undefined],
        ['PATCH', '/hook-rules/{hookId}', { enabled: false }],
        ['DELETE', '/hook-rules/{hookId}', undefined],
        ['GET', '/auth-keys', undefined],
        ['POST', '/auth-keys', undefined],
        ['DELETE', '/auth-keys/{keyId}', undefined],
      ] as const
    ).map(([method, rest, body]): Row => ({
      endpoint: `${method} /agents/{id}${rest}`,
      method,
      operation: `${method} /agents/{agentId}${rest}`,
      path: () => `/agents/${teamA.agentId}${rest.replace('{hookId}', a.hookId).replace('{keyId}', a.authKeyId)}`,
      ...(body ? { body: () => body } : {}),
      check: notFound,
    })),
    {
      endpoint: 'GET /automations',
      method: 'GET',
      operation: 'GET /automations',
      path: () => '/automations?limit=100',
      check: excludes('id', () => a.automationId),
    },
    {
      endpoint: "POST /automations (A's segment)",
      method: 'POST',
      operation: 'POST /automations',
      path: () => '/automations',
      body: () => ({
        name: 'B journey',
        trigger: { kind: 'segment', segmentId: a.segmentId },
        steps: [{ type: 'wait', duration: '1m' }],
      }),
      check: rule('unknown_segment'),
    },
    ...(
      [
        ['GET', '', undefined],
        ['PATCH', '', { enabled: false }],
        ['PUT', '/steps', { steps: [{ type: 'exit' }] }],
        ['GET', '/step-counts', undefined],
        ['GET', '/enrollments', undefined],
        ['POST', '/enrollments', { email: 'b-person@example.test' }],
        ['GET', '/enrollments/{enrollmentId}', undefined],
        ['POST', '/enrollments/{enrollmentId}/exit', undefined],
      ] as const
    ).map(([method, rest, body]): Row => ({
      endpoint: `${method} /automations/{id}${rest}`,
      method,
      operation: `${method} /automations/{automationId}${rest}`,
      path: () => `/automations/${a.automationId}${rest.replace('{enrollmentId}', a.enrollmentId)}`,
      ...(body ? { body: () => body } : {}),
      check: notFound,
    })),
    {
      endpoint: 'GET /team',
      method: 'GET',
      operation: 'GET /team',
      path: () => '/team',
      check: (s, body) => {
        expect(s).toBe(200);
        expect(body.slug).toBe(teamB.slug);
      },
    },
    {
      endpoint: 'PATCH /team',
      method: 'PATCH',
      operation: 'PATCH /team',
      path: () => '/team',
      body: () => ({ description: 'B' }),
      check: (s, body) => {
        expect(s).toBe(200);
        expect(body.slug).toBe(teamB.slug);
      },
    },
    ...(
      [
        ['/team/place', { timezone: 'Asia/Tokyo' }, 'place'],
        ['/team/settings', { brand: { color: '#0000ff' } }, 'settings'],
      ] as const
    ).map(([path, body, field]): Row => ({
      endpoint: `PATCH ${path}`,
      method: 'PATCH',
      operation: `PATCH ${path}`,
      path: () => path,
      body: () => body,
      // B changes its own team (its client was registered by B's owner, a team admin).
      check: (s, answer) => {
        expect(s).toBe(200);
        expect(answer.slug).toBe(teamB.slug);
        expect(answer[field]).toMatchObject(body);
      },
    })),
    {
      endpoint: 'GET /search',
      method: 'GET',
      operation: 'GET /search',
      path: () => '/search?q=alice&limit=100',
      check: excludes('id', () => a.contactId),
    },
    {
      endpoint: 'GET /apps',
      method: 'GET',
      operation: 'GET /apps',
      path: () => '/apps',
      check: (s, body) => {
        expect(s).toBe(200);
        expect(body.data.find((x: any) => x.slug === 'campaigns').installed).toBe(false);
      },
    },
    {
      endpoint: 'PUT /apps/{slug}',
      method: 'PUT',
      operation: 'PUT /apps/{appSlug}',
      path: () => '/apps/contacts',
      check: (s, body) => {
        expect(s).toBe(200);
        expect(body).toMatchObject({ slug: 'contacts', installed: true });
      },
    },
    {
      endpoint: 'DELETE /apps/{slug} (A installed it)',
      method: 'DELETE',
      operation: 'DELETE /apps/{appSlug}',
      path: () => '/apps/campaigns',
      check: (s, body) => {
        expect(s).toBe(200);
        expect(body.installed).toBe(false);
      },
    },
    {
      endpoint: 'GET /credits',
      method: 'GET',
      operation: 'GET /credits',
      path: () => '/credits',
      check: (s, body) => {
        expect(s).toBe(200);
        expect(body).toMatchObject({ used: 0, calls: 0 });
      },
    },
    {
      endpoint: 'GET /contacts',
      method: 'GET',
      operation: 'GET /contacts',
      path: () => '/contacts?limit=100',
      check: excludes('id', () => a.contactId),
    },
    {
      endpoint: 'GET /contacts/{id}',
      method: 'GET',
      operation: 'GET /contacts/{contactId}',
      path: () => `/contacts/${a.contactId}`,
      check: notFound,
    },
    {
      endpoint: "POST /contacts (A's email and idempotency key)",
      method: 'POST',
      operation: 'POST /contacts',
      path: () => '/contacts',
      body: () => ({ name: 'Alice A', email: a.email }),
      check: (s, body) => {
        expect(s).toBe(201);
        expect(body.id).not.toBe(a.contactId);
      },
    },
    {
      endpoint: 'GET /jobs',
      method: 'GET',
      operation: 'GET /jobs',
      path: () => '/jobs?limit=100',
      check: excludes('jobId', () => a.jobId),
    },
    {
      endpoint: 'GET /jobs/{id}',
      method: 'GET',
      operation: 'GET /jobs/{jobId}',
      path: () => `/jobs/${a.jobId}`,
      check: notFound,
    },
    {
      endpoint: "POST /jobs (A's idempotency key)",
      method: 'POST',
      operation: 'POST /jobs',
      path: () => '/jobs',
      body: () => ({ type: 'contacts.export', input: {} }),
      check: (s, body) => {
        expect(s).toBe(202);
        expect(body.jobId).not.toBe(a.jobId);
      },
    },
    {
      endpoint: 'GET /media',
      method: 'GET',
      operation: 'GET /media',
      path: () => '/media?limit=100',
      check: excludes('id', () => a.mediaId),
    },
    {
      endpoint: 'POST /media',
      method: 'POST',
      operation: 'POST /media',
      path: () => '/media',
      form: () => {
        const f = new FormData();
        f.append('file', new Blob(['b'], { type: 'text/plain' }), 'b.txt');
        return f;
      },
      check: (s, body) => {
        expect(s).toBe(201);
        expect(body.id).not.toBe(a.mediaId);
      },
    },
    {
      endpoint: 'GET /media/{id}/content',
      method: 'GET',
      operation: 'GET /media/{mediaId}/content',
      path: () => `/media/${a.mediaId}/content`,
      check: notFound,
    },
    {
      endpoint: 'DELETE /media/{id}',
      method: 'DELETE',
      operation: 'DELETE /media/{mediaId}',
      path: () => `/media/${a.mediaId}`,
      check: notFound,
    },
    {
      endpoint: 'GET /artifacts',
      method: 'GET',
      operation: 'GET /artifacts',
      path: () => `/artifacts?ids=${a.artifactId}`,
      check: excludes('id', () => a.artifactId),
    },
    {
      endpoint: "POST /artifacts (A's file and contact)",
      method: 'POST',
      operation: 'POST /artifacts',
      path: () => '/artifacts',
      body: () => ({ title: 'x', media: [a.mediaId] }),
      check: rule('unknown_media'),
    },
    {
      endpoint: 'GET /artifacts/{id}',
      method: 'GET',
      operation: 'GET /artifacts/{artifactId}',
      path: () => `/artifacts/${a.artifactId}`,
      check: notFound,
    },
    {
      endpoint: 'PATCH /artifacts/{id}',
      method: 'PATCH',
      operation: 'PATCH /artifacts/{artifactId}',
      path: () => `/artifacts/${a.artifactId}`,
      body: () => ({ title: 'mine' }),
      check: notFound,
    },
    {
      endpoint: 'DELETE /artifacts/{id}',
      method: 'DELETE',
      operation: 'DELETE /artifacts/{artifactId}',
      path: () => `/artifacts/${a.artifactId}`,
      check: notFound,
    },
    {
      endpoint: "POST /artifacts/deliver (A's artifact)",
      method: 'POST',
      operation: 'POST /artifacts/deliver',
      path: () => '/artifacts/deliver',
      body: () => ({ artifactIds: [a.artifactId], message: 'x', integration: 'email' }),
      check: notFound,
    },
    {
      endpoint: "POST /warps/{name}/execute (A's private warp)",
      method: 'POST',
      operation: 'POST /warps/{name}/execute',
      path: () => '/warps/a-only-warp/execute',
      body: () => ({ inputs: {} }),
      check: (status, body) => {
        expect(status).toBe(404);
        expect(body.error.code).toBe('unknown_warp');
        expect(body.error.details.private).not.toContain('a-only-warp');
      },
    },
    {
      endpoint: 'GET /warps/private',
      method: 'GET',
      operation: 'GET /warps/private',
      path: () => '/warps/private?limit=100',
      check: excludes('id', () => a.privateWarpId),
    },
    {
      endpoint: 'POST /warps/private',
      method: 'POST',
      operation: 'POST /warps/private',
      path: () => '/warps/private',
      // B's own warp, under a name of B's (a name A uses is free for B too: see test/warps).
      body: () => ({ name: `b-warp-${++bWarps}`, steps: [{ wait: '1m' }] }),
      check: (status, body) => {
        expect(status).toBe(201);
        expect(body.id).not.toBe(a.privateWarpId);
      },
    },
    {
      endpoint: 'GET /private-apps',
      method: 'GET',
      operation: 'GET /private-apps',
      path: () => '/private-apps?limit=100',
      check: excludes('id', () => a.privateAppId),
    },
    {
      endpoint: "POST /private-apps (A's warp)",
      method: 'POST',
      operation: 'POST /private-apps',
      path: () => '/private-apps',
      body: () => ({ slug: 'a-only-app', name: 'A', warps: ['a-only-warp'] }),
      check: rule('unknown_private_warp'),
    },
    {
      endpoint: 'DELETE /private-apps/{appSlug}',
      method: 'DELETE',
      operation: 'DELETE /private-apps/{appSlug}',
      path: () => '/private-apps/a-only-app',
      check: notFound,
    },
    {
      endpoint: 'GET /warp-executions',
      method: 'GET',
      operation: 'GET /warp-executions',
      path: () => '/warp-executions?status=pending_approval&limit=100',
      check: excludes('id', () => a.pendingExecutionId),
    },
    {
      endpoint: 'GET /warp-executions/{id}',
      method: 'GET',
      operation: 'GET /warp-executions/{executionId}',
      path: () => `/warp-executions/${a.executionId}`,
      check: notFound,
    },
    {
      endpoint: 'GET /warp-executions/{id}/approval-view',
      method: 'GET',
      operation: 'GET /warp-executions/{executionId}/approval-view',
      path: () => `/warp-executions/${a.pendingExecutionId}/approval-view`,
      check: notFound,
    },
    {
      endpoint: 'POST /warp-executions/{id}/approve',
      method: 'POST',
      operation: 'POST /warp-executions/{executionId}/approve',
      path: () => `/warp-executions/${a.pendingExecutionId}/approve`,
      body: () => ({}),
      check: notFound,
    },
    {
      endpoint: 'POST /warp-executions/{id}/decline',
      method: 'POST',
      operation: 'POST /warp-executions/{executionId}/decline',
      path: () => `/warp-executions/${a.pendingExecutionId}/decline`,
      body: () => ({}),
      check: notFound,
    },
    {
      endpoint: 'POST /warp-executions/{id}/approval-link',
      method: 'POST',
      operation: 'POST /warp-executions/{executionId}/approval-link',
      path: () => `/warp-executions/${a.pendingExecutionId}/approval-link`,
      check: notFound,
    },
    {
      endpoint: 'GET /deliveries',
      method: 'GET',
      operation: 'GET /deliveries',
      path: () => `/deliveries?executionId=${a.executionId}`,
      check: excludes('id', () => a.deliveryId),
    },
    {
      endpoint: 'GET /messages',
      method: 'GET',
      operation: 'GET /messages',
      path: () => `/messages?sourceId=${a.executionId}`,
      check: excludes('id', () => a.messageId),
    },
    {
      endpoint: 'POST /agents/{id}/messages',
      method: 'POST',
      operation: 'POST /agents/{agentId}/messages',
      path: () => `/agents/${teamA.agentId}/messages`,
      body: () => ({ message: 'B talks to A', waitSeconds: 0 }),
      check: notFound,
    },
    {
      endpoint: 'POST /rooms',
      method: 'POST',
      operation: 'POST /rooms',
      path: () => '/rooms',
      body: () => ({ roomId: a.roomId }),
      check: notFound,
    },
    {
      endpoint: 'GET /rooms',
      method: 'GET',
      operation: 'GET /rooms',
      path: () => '/rooms?limit=100',
      check: excludes('id', () => a.roomId),
    },
    {
      endpoint: 'GET /rooms/{id}/messages',
      method: 'GET',
      operation: 'GET /rooms/{roomId}/messages',
      path: () => `/rooms/${a.roomId}/messages`,
      check: notFound,
    },
    {
      endpoint: 'GET /rooms/{id}/turns/{turnId}',
      method: 'GET',
      operation: 'GET /rooms/{roomId}/turns/{turnId}',
      path: () => `/rooms/${a.roomId}/turns/${encodeURIComponent(a.turnId)}`,
      check: notFound,
    },
    {
      endpoint: 'POST /rooms/{id}/turns/{turnId}/cancel',
      method: 'POST',
      operation: 'POST /rooms/{roomId}/turns/{turnId}/cancel',
      path: () => `/rooms/${a.roomId}/turns/${encodeURIComponent(a.turnId)}/cancel`,
      check: notFound,
    },
    {
      endpoint: 'GET /outbox',
      method: 'GET',
      operation: 'GET /outbox',
      path: () => '/outbox?limit=100',
      check: excludes('id', () => a.outboxId),
    },
    {
      endpoint: 'GET /webhooks/endpoints',
      method: 'GET',
      operation: 'GET /webhooks/endpoints',
      path: () => '/webhooks/endpoints?limit=100',
      check: excludes('id', () => a.webhookEndpointId),
    },
    {
      endpoint: 'POST /webhooks/endpoints',
      method: 'POST',
      operation: 'POST /webhooks/endpoints',
      path: () => '/webhooks/endpoints',
      body: () => ({ url: 'https://93.184.215.14/b-hook', enabled: false }),
      check: (status, body) => {
        expect(status).toBe(201);
        expect(body.id).not.toBe(a.webhookEndpointId);
      },
    },
    ...(['GET', 'PATCH', 'DELETE'] as const).map((method): Row => ({
      endpoint: `${method} /webhooks/endpoints/{id}`,
      method,
      operation: `${method} /webhooks/endpoints/{endpointId}`,
      path: () => `/webhooks/endpoints/${a.webhookEndpointId}`,
      body: method === 'PATCH' ? () => ({ enabled: true }) : undefined,
      check: notFound,
    })),
    {
      endpoint: 'GET /webhooks/endpoints/{id}/deliveries',
      method: 'GET',
      operation: 'GET /webhooks/endpoints/{endpointId}/deliveries',
      path: () => `/webhooks/endpoints/${a.webhookEndpointId}/deliveries`,
      check: notFound,
    },
    {
      endpoint: 'GET /webhooks/endpoints/{id}/deliveries/{deliveryId}/attempts',
      method: 'GET',
      operation: 'GET /webhooks/endpoints/{endpointId}/deliveries/{deliveryId}/attempts',
      path: () => `/webhooks/endpoints/${a.webhookEndpointId}/deliveries/whd_any/attempts`,
      check: notFound,
    },
    {
      endpoint: 'PATCH /contacts/{id}',
      method: 'PATCH',
      operation: 'PATCH /contacts/{contactId}',
      path: () => `/contacts/${a.contactId}`,
      body: () => ({ name: 'mine' }),
      check: notFound,
    },
    {
      endpoint: 'POST /contacts/{id}/orders',
      method: 'POST',
      operation: 'POST /contacts/{contactId}/orders',
      path: () => `/contacts/${a.contactId}/orders`,
      body: () => ({ amount: 1 }),
      check: notFound,
    },
    {
      endpoint: 'GET /contacts/{id}/orders',
      method: 'GET',
      operation: 'GET /contacts/{contactId}/orders',
      path: () => `/contacts/${a.contactId}/orders`,
      check: notFound,
    },
    {
      endpoint: "POST /products (A's sku: skus are per team)",
      method: 'POST',
      operation: 'POST /products',
      path: () => '/products',
      body: () => ({ name: 'B mug', sku: bProducts++ ? `ISO-MUG-${bProducts}` : 'ISO-MUG', price: 6, currency: 'EUR' }),
      check: (status, body) => {
        expect(status).toBe(201);
        expect(body.id).not.toBe(a.productId);
      },
    },
    {
      endpoint: 'GET /products',
      method: 'GET',
      operation: 'GET /products',
      path: () => '/products?limit=100',
      check: excludes('id', () => a.productId),
    },
    ...(['GET', 'PATCH', 'DELETE'] as const).map((method): Row => ({
      endpoint: `${method} /products/{id}`,
      method,
      operation: `${method} /products/{productId}`,
      path: () => `/products/${a.productId}`,
      body: method === 'PATCH' ? () => ({ price: 0 }) : undefined,
      check: notFound,
    })),
    {
      endpoint: "POST /orders (A's contact)",
      method: 'POST',
      operation: 'POST /orders',
      path: () => '/orders',
      body: () => ({ contactId: a.contactId, amount: 1 }),
      check: notFound,
    },
    {
      endpoint: 'GET /orders',
      method: 'GET',
      operation: 'GET /orders',
      path: () => '/orders?limit=100',
      check: excludes('id', () => a.orderId),
    },
    ...(['GET', 'DELETE'] as const).map((method): Row => ({
      endpoint: `${method} /orders/{id}`,
      method,
      operation: `${method} /orders/{orderId}`,
      path: () => `/orders/${a.orderId}`,
      check: notFound,
    })),
    {
      endpoint: "POST /orders/import (A's contact id)",
      method: 'POST',
      operation: 'POST /orders/import',
      path: () => '/orders/import',
      body: () => ({ csv: `externalId,contactId,amount\nISO-B-1,${a.contactId},1\n` }),
      check: (status, body) => {
        expect(status).toBe(200);
        expect(body).toMatchObject({ created: 0, errors: [{ line: 2, code: 'not_found' }] });
      },
    },
    {
      endpoint: 'GET /segments',
      method: 'GET',
      operation: 'GET /segments',
      path: () => '/segments?limit=100',
      check: excludes('id', () => a.segmentId),
    },
    {
      endpoint: "POST /segments (A's property)",
      method: 'POST',
      operation: 'POST /segments',
      path: () => '/segments',
      body: () => ({ name: 'x', groups: [{ conditions: [{ type: 'prop', value: 'tier:gold' }] }] }),
      check: rule('unknown_property'),
    },
    {
      endpoint: 'GET /segments/{id}',
      method: 'GET',
      operation: 'GET /segments/{segmentId}',
      path: () => `/segments/${a.segmentId}`,
      check: notFound,
    },
    {
      endpoint: 'GET /segments/{id}/contacts',
      method: 'GET',
      operation: 'GET /segments/{segmentId}/contacts',
      path: () => `/segments/${a.segmentId}/contacts`,
      check: notFound,
    },
    {
      endpoint: 'DELETE /segments/{id}',
      method: 'DELETE',
      operation: 'DELETE /segments/{segmentId}',
      path: () => `/segments/${a.segmentId}`,
      check: notFound,
    },
    {
      endpoint: "POST /campaigns/audience-preview (A's segment)",
      method: 'POST',
      operation: 'POST /campaigns/audience-preview',
      path: () => '/campaigns/audience-preview',
      body: () => ({ channel: 'email', segmentId: a.segmentId }),
      check: rule('unknown_segment'),
    },
    {
      endpoint: 'GET /campaigns',
      method: 'GET',
      operation: 'GET /campaigns',
      path: () => '/campaigns?limit=100',
      check: excludes('id', () => a.campaignId),
    },
    {
      // B has no campaign of its own: A's two (one sent, which counts its recipient) must not show.
      endpoint: 'GET /campaigns/totals',
      method: 'GET',
      operation: 'GET /campaigns/totals',
      path: () => '/campaigns/totals',
      check: (status, body) => {
        expect(status).toBe(200);
        expect([body.campaigns, body.recipients, body.byStatus.draft]).toEqual([0, 0, 0]);
      },
    },
    {
      endpoint: "POST /campaigns (A's contact)",
      method: 'POST',
      operation: 'POST /campaigns',
      path: () => '/campaigns',
      body: () => ({ name: 'x', channel: 'email', content: 'x', contactIds: [a.contactId] }),
      check: rule('unknown_contact'),
    },
    {
      endpoint: 'GET /campaigns/{id}',
      method: 'GET',
      operation: 'GET /campaigns/{campaignId}',
      path: () => `/campaigns/${a.campaignId}`,
      check: notFound,
    },
    {
      endpoint: 'PATCH /campaigns/{id}',
      method: 'PATCH',
      operation: 'PATCH /campaigns/{campaignId}',
      path: () => `/campaigns/${a.campaignId}`,
      body: () => ({ name: 'x' }),
      check: notFound,
    },
    {
      endpoint: 'DELETE /campaigns/{id}',
      method: 'DELETE',
      operation: 'DELETE /campaigns/{campaignId}',
      path: () => `/campaigns/${a.campaignId}`,
      check: notFound,
    },
    ...(
      ['send', 'cancel-schedule', 'cancel-send', 'archive', 'unarchive', 'whatsapp/submit', 'whatsapp/refresh'] as const
    ).map((action): Row => ({
      endpoint: `POST /campaigns/{id}/${action}`,
      method: 'POST',
      operation: `POST /campaigns/{campaignId}/${action}`,
      path: () => `/campaigns/${a.campaignId}/${action}`,
      check: notFound,
    })),
    {
      endpoint: 'POST /campaigns/{id}/retry',
      method: 'POST',
      operation: 'POST /campaigns/{campaignId}/retry',
      path: () => `/campaigns/${a.sentCampaignId}/retry`,
      body: () => ({}),
      check: notFound,
    },
    {
      endpoint: 'POST /campaigns/{id}/send-test',
      method: 'POST',
      operation: 'POST /campaigns/{campaignId}/send-test',
      path: () => `/campaigns/${a.sentCampaignId}/send-test`,
      body: () => ({ contactId: a.contactId }),
      check: notFound,
    },
    {
      endpoint: 'GET /campaigns/{id}/recipients',
      method: 'GET',
      operation: 'GET /campaigns/{campaignId}/recipients',
      path: () => `/campaigns/${a.sentCampaignId}/recipients`,
      check: notFound,
    },
    {
      endpoint: 'GET /campaigns/{id}/cards',
      method: 'GET',
      operation: 'GET /campaigns/{campaignId}/cards',
      path: () => `/campaigns/${a.sentCampaignId}/cards`,
      check: notFound,
    },
    {
      endpoint: 'POST /campaigns/{id}/cards',
      method: 'POST',
      operation: 'POST /campaigns/{campaignId}/cards',
      path: () => `/campaigns/${a.sentCampaignId}/cards`,
      body: () => ({ approve: 'all' }),
      check: notFound,
    },
    {
      endpoint: 'GET /campaigns/{id}/stats',
      method: 'GET',
      operation: 'GET /campaigns/{campaignId}/stats',
      path: () => `/campaigns/${a.sentCampaignId}/stats`,
      check: notFound,
    },
    {
      endpoint: 'GET /campaigns/{id}/timeline',
      method: 'GET',
      operation: 'GET /campaigns/{campaignId}/timeline',
      path: () => `/campaigns/${a.sentCampaignId}/timeline`,
      check: notFound,
    },
  ];

  const credentials = [
    ["B's API token", () => teamB.token],
    ["B's OAuth token", () => b.oauthToken],
  ] as const;

  const call = async (token: string, slug: string, row: Row) => {
    const res = await fetch(`${server.baseUrl}${row.path()}`, {
      method: row.method,
      headers: {
        authorization: `Bearer ${token}`,
        'x-team-slug': slug,
        'idempotency-key': 'same-key',
        ...(row.body ? { 'content-type': 'application/json' } : {}),
      },
      body: row.form ? row.form() : row.body ? JSON.stringify(row.body()) : undefined,
    });
    const text = await res.text();
    return {
      status: res.status,
      body: text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text,
    };
  };

  describe.each(credentials)('%s', (_name, token) => {
    it.each(rows.map((row) => [row.endpoint, row] as const))(
      '%s with its own slug sees nothing of team A',
      async (_endpoint, row) => {
        const { status, body } = await call(token(), teamB.slug, row);
        row.check(status, body);
      },
    );

    it.each(rows.map((row) => [row.endpoint, row] as const))(
      "%s with team A's slug → 403 forbidden",
      async (_endpoint, row) => {
        const { status, body } = await call(token(), teamA.slug, row);
        expect(status).toBe(403);
        expect(body.error.code).toBe('forbidden');
      },
    );
  });

  it('the rows cover every team endpoint the API has', async () => {
    const spec = (await (await fetch(`${server.baseUrl}/openapi.json`)).json()) as any;
    const teamOperations = Object.entries(
      spec.paths as Record<string, Record<string, { parameters?: { name: string }[] }>>,
    ).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => op.parameters?.some((p) => p.name.toLowerCase() === 'x-team-slug'))
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    const covered = rows.map((r) => r.operation);
    expect(teamOperations.length).toBeGreaterThanOrEqual(rows.length);
    expect(teamOperations.filter((operation) => !covered.includes(operation))).toEqual([]);
  });

  it("what B did to its own team and apps left A's apps, secrets and credits as they were", async () => {
    const apiA = apiClient(server.baseUrl, teamA);
    expect((await apiA.get('/apps')).body.data.find((x: any) => x.slug === 'campaigns').installed).toBe(true);
    expect((await apiA.get(`/agents/${teamA.agentId}/secrets`)).body.data.map((x: any) => x.key)).toEqual(['A_KEY']);
    expect((await apiA.get('/credits')).body).toMatchObject({ used: 7, calls: 4 });
    const teamAfter = (await apiA.get('/team')).body;
    expect(teamAfter).toMatchObject({ slug: teamA.slug, description: null });
    expect([teamAfter.place, teamAfter.settings]).toEqual([{}, {}]);
    expect((await apiA.get(`/webhooks/endpoints/${a.webhookEndpointId}`)).body).toMatchObject({ enabled: false });
    const journey = (await apiA.get(`/automations/${a.automationId}`)).body;
    expect(journey).toMatchObject({ enabled: true, version: 1 });
    expect((await apiA.get(`/automations/${a.automationId}/enrollments/${a.enrollmentId}`)).body).toMatchObject({
      status: 'active',
    });
    // B set and reset its own webhook retries; A's stand, as do A's form, room key and inbox mail.
    expect((await apiA.get('/webhooks/settings')).body).toMatchObject({ custom: true, maxAttempts: 3 });
    expect((await apiA.get(`/forms/${a.formId}`)).body).toMatchObject({ name: 'A form' });
    expect((await apiA.get(`/rooms/${a.roomId}/keys`)).body.data).toContainEqual(
      expect.objectContaining({ id: a.roomKeyId, status: 'active' }),
    );
    expect((await apiA.get(`/agents/${teamA.agentId}/inbox/${a.inboxMessageId}`)).status).toBe(200);
  });

  it("API tokens: B lists only its own, and cannot revoke A's (404; A's token keeps working)", async () => {
    const listed = await apiClient(server.baseUrl, teamB).get('/api-tokens');
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((t: { id: string }) => t.id)).not.toContain(a.apiTokenId);
    const revoke = await apiClient(server.baseUrl, teamB).call('DELETE', `/api-tokens/${a.apiTokenId}`);
    expect(revoke.status).toBe(404);
    expect((await apiClient(server.baseUrl, teamA).get('/agents')).status).toBe(200);
  });

  it("team A's things are intact after all of B's attempts", async () => {
    const apiA = apiClient(server.baseUrl, teamA);
    expect((await apiA.get(`/artifacts/${a.artifactId}`)).body).toMatchObject({
      title: 'A contract',
      media: [{ id: a.mediaId }],
    });
    expect((await apiA.get(`/warp-executions/${a.pendingExecutionId}`)).body.status).toBe('pending_approval');
    expect((await apiA.get(`/agents/${teamA.agentId}/integrations`)).body.data[0].provider).toBe('sandbox');
    expect((await apiA.get(`/campaigns/${a.campaignId}`)).body).toMatchObject({ name: 'A draft', status: 'draft' });
    expect((await apiA.get(`/campaigns/${a.sentCampaignId}`)).body).toMatchObject({
      status: 'completed',
      sentCount: 1,
    });
    expect((await apiA.get(`/segments/${a.segmentId}/contacts`)).body.data.map((c: any) => c.id)).toEqual([
      a.contactId,
    ]);
    expect((await apiA.get(`/agents/${teamA.agentId}/memories`)).body.data).toEqual([
      expect.objectContaining({ id: a.memoryId, content: 'A remembers the harbour', importance: 3 }),
    ]);
    expect((await apiA.get(`/agents/${teamA.agentId}/skills`)).body.data).toEqual([
      expect.objectContaining({ id: a.skillId, instructions: 'A' }),
    ]);
    expect((await apiA.get(`/agents/${teamA.agentId}/documents`)).body.data).toEqual([]);
    expect((await apiA.get(`/agents/${teamA.agentId}/character`)).body).toMatchObject({ persona: null });
    expect((await apiA.get(`/products/${a.productId}`)).body).toMatchObject({ sku: 'ISO-MUG', price: 5 });
    expect((await apiA.get(`/orders?contactId=${a.contactId}`)).body.data.map((o: any) => o.id)).toEqual([a.orderId]);
  });

  it("the agent hooks path: B's AGENT_AUTH_KEY is 401 on A's agent; A's key on B's agent too; A's hook and key intact", async () => {
    const apiB = apiClient(server.baseUrl, teamB);
    const keyB = (await apiB.post(`/agents/${teamB.agentId}/auth-keys`)).body.key;
    const hooks = (agentId: string, key: string, query = '') =>
      fetch(`${server.baseUrl}/agents/${agentId}/hooks${query}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'session.start' }),
      });
    expect((await hooks(teamA.agentId, keyB)).status).toBe(401);
    expect((await hooks(teamA.agentId, keyB, '?source=a-src')).status).toBe(401);
    expect((await hooks(teamB.agentId, a.authKey)).status).toBe(401);
    expect((await hooks(teamA.agentId, a.authKey)).status).toBe(200);
    // A's hook under B's own agent is not found either.
    for (const method of ['GET', 'PATCH', 'DELETE'])
      expect(
        (
          await apiB.call(
            method,
            `/agents/${teamB.agentId}/hook-rules/${a.hookId}`,
            method === 'PATCH' ? { enabled: false } : undefined,
          )
        ).status,
      ).toBe(404);
    const apiA = apiClient(server.baseUrl, teamA);
    expect((await apiA.get(`/agents/${teamA.agentId}/hook-rules/${a.hookId}`)).body).toMatchObject({ enabled: true });
    expect((await apiA.get(`/agents/${teamA.agentId}/auth-keys`)).body.data.map((k: any) => k.id)).toEqual([
      a.authKeyId,
    ]);
  });

  it("OAuth: B's client learns nothing of A's token by introspection and cannot revoke it", async () => {
    const basicB = `Basic ${Buffer.from(`${b.client.id}:${b.client.secret}`).toString('base64')}`;
    const introspection = await fetch(`${server.url}/mcp/introspect`, {
      method: 'POST',
      headers: { authorization: basicB },
      body: new URLSearchParams({ token: a.oauthToken }),
    });
    expect((await introspection.json()) as any).toEqual({ active: false });
    const revoke = await fetch(`${server.url}/oauth/token/revoke`, {
      method: 'POST',
      headers: { authorization: basicB },
      body: new URLSearchParams({ token: a.oauthToken }),
    });
    expect(revoke.status).toBe(200);
    const stillWorks = await fetch(`${server.baseUrl}/agents`, {
      headers: { authorization: `Bearer ${a.oauthToken}`, 'x-team-slug': teamA.slug },
    });
    expect(stillWorks.status).toBe(200);
  });
});
