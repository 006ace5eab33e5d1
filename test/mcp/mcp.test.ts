import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createAgent } from '../../services/agents/agents';
import { apiClient, newTeam, sleep, useProviderSuite } from '../support/helpers';
import { callTool, failing, mcpClient, ok } from '../support/mcpHelpers';

/**
 * The MCP surface through the official SDK client over Streamable HTTP: the live catalog, every
 * tool against the real services (the worker and the fake provider behind them), sensitive writes
 * as approvals, and credits.
 */
const PLATFORM_CORE_TOOLS = [
  'check_warp_executions',
  'create_api_token',
  'ingest_knowledge',
  'list_public_teams',
  'media_delete',
  'media_list',
  'media_upload',
  'secret_clear',
  'secret_list',
  'secret_set',
  'secret_status',
  'set_contact_property',
  'svc_agent_info',
  'svc_list_agents',
];
/** The agent's mind (issue 15 § 6): memories, skills, knowledge documents, character. */
const AGENT_KNOWLEDGE_TOOLS = [
  'character_update',
  'create_document',
  'create_memory',
  'create_skill',
  'delete_skill',
  'list_documents',
  'list_skills',
  'search_memories',
  'update_memory',
  'update_skill',
];
/** The agent's receive-only mailbox (docs/INBOX.md). */
const INBOX_TOOLS = ['get_inbox_message', 'list_inbox_messages'];
/** Talking to the agent: prompt_agent and the rooms its conversations live in. */
const ROOM_TOOLS = ['get_room_messages', 'list_room_keys', 'list_rooms', 'prompt_agent', 'revoke_room_keys'];
/** Warps (issue 16 § 1): execute, and the team's private warps. */
const WARP_TOOLS = ['create_private_app', 'create_private_warp', 'execute', 'list_private_warps'];
/** Team admin and search (issue 16 § 6). */
const TEAM_TOOLS = ['create_team', 'search', 'update_team', 'update_team_place', 'update_team_settings'];
/** The Studio (issue 16 § 6). */
const STUDIO_TOOLS = ['studio_export', 'studio_produce', 'studio_send', 'studio_wait'];
const CORE_TOOLS = [
  ...PLATFORM_CORE_TOOLS,
  ...AGENT_KNOWLEDGE_TOOLS,
  ...INBOX_TOOLS,
  ...ROOM_TOOLS,
  ...WARP_TOOLS,
  ...TEAM_TOOLS,
  ...STUDIO_TOOLS,
].sort();
const ARTIFACT_TOOLS = [
  'create_artifact',
  'delete_artifact',
  'deliver_artifacts',
  'get_artifact',
  'list_artifacts',
  'update_artifact',
];
const CAMPAIGN_TOOLS = [
  'campaign_stats',
  'campaign_totals',
  'create_campaign',
  'delete_campaign',
  'list_campaigns',
  'preview_campaign_audience',
  'send_campaign',
];
const CONTACT_TOOLS = ['create_segment', 'delete_segment', 'list_segments'];
const HOOK_TOOLS = ['create_hook', 'delete_hook', 'list_hooks', 'toggle_hook'];
const AUTOMATION_TOOLS = [
  'create_automation',
  'exit_enrollment',
  'get_automation',
  'list_automations',
  'list_enrollments',
  'set_automation_enabled',
  'update_automation_steps',
];

const FORM_TOOLS = ['create_form', 'delete_form', 'get_form', 'list_form_submissions', 'list_forms', 'update_form'];

describe('MCP', () => {
  const suite = useProviderSuite('mcp', { MCP_CREDITS: JSON.stringify({ free: 50, pro: 100_000 }) });
  let mcp: Client;
  let mcpUrl: string;
  let n = 0;

  beforeAll(async () => {
    await suite.db('teams').where({ id: suite.team.teamId }).update({ plan: 'pro' });
    mcpUrl = suite.server.ctx.config.mcpEndpoint;
    mcp = await mcpClient(mcpUrl, suite.team.token);
    await suite.api.call('PUT', `/agents/${suite.team.agentId}/integrations/email`, {
      provider: 'resend',
      config: { baseUrl: suite.fake.baseUrl },
      secrets: { apiKey: 'k' },
      from: 'studio@acme.example',
    });
  });
  afterAll(async () => {
    await mcp?.close();
  });

  const setMode = async (mode: 'auto' | 'manual') =>
    expect((await suite.api.call('PATCH', `/agents/${suite.team.agentId}`, { mode })).body.mode).toBe(mode);
  const listedNames = async (client: Client = mcp) => (await client.listTools()).tools.map((t) => t.name).sort();
  async function contact() {
    const i = ++n;
    const created = (
      await suite.api.post('/contacts', {
        name: `Mia${i} Client`,
        email: `mcp${i}-${Date.now()}@example.test`,
        company: 'Acme',
      })
    ).body;
    await suite.api.call('PATCH', `/contacts/${created.id}`, { marketingConsent: 'granted' });
    return created;
  }
  async function settled(executionId: string) {
    for (let i = 0; i < 150; i++) {
      const { executions } = await ok(mcp, 'check_warp_executions', { executionIds: [executionId] });
      if (!['pending_approval', 'running'].includes(executions[0].status)) return executions[0];
      await sleep(200);
    }
    throw new Error(`execution ${executionId} did not settle`);
  }
  async function campaignUntil(campaignId: string, done: (c: any) => boolean) {
    for (let i = 0; i < 200; i++) {
      const campaign = (await suite.api.get(`/campaigns/${campaignId}`)).body;
      if (done(campaign)) return campaign;
      await sleep(150);
    }
    throw new Error(`campaign ${campaignId} did not settle`);
  }
  const installAll = async () => {
    for (const app of ['artifacts', 'campaigns', 'contacts'])
      expect((await suite.api.call('PUT', `/apps/${app}`)).body).toMatchObject({ slug: app, installed: true });
  };

  it('initializes over Streamable HTTP and lists only the core tools until an app is installed, each with a JSON Schema and a description', async () => {
    expect(mcp.getServerVersion()).toMatchObject({ name: 'team-agent-platform' });
    expect(mcp.getServerCapabilities()?.tools).toBeDefined();
    expect(mcp.getInstructions()).toContain('check_warp_executions');
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(CORE_TOOLS);
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object');
      expect(t.description!.length).toBeGreaterThan(40);
    }
    // The schema is the service's own zod schema: its bounds and required fields come through.
    const upload = tools.find((t) => t.name === 'media_upload')!;
    expect(upload.inputSchema).toMatchObject({
      required: ['filename', 'contentType', 'contentBase64'],
      additionalProperties: false,
    });
    const secret = tools.find((t) => t.name === 'secret_set')!;
    expect((secret.inputSchema.properties as any).key).toMatchObject({ type: 'string', pattern: expect.any(String) });
    expect(tools.find((t) => t.name === 'svc_list_agents')!.annotations).toMatchObject({ readOnlyHint: true });

    // A tool of an app the team has not installed cannot be called either.
    await expect(mcp.callTool({ name: 'list_artifacts', arguments: {} })).rejects.toThrow(/artifacts app/);
    expect((await suite.api.get('/apps')).body.data.map((a: any) => [a.slug, a.installed])).toEqual([
      ['artifacts', false],
      ['campaigns', false],
      ['contacts', false],
      ['board', false],
      ['automations', false],
      ['forms', false],
      ['shop', false],
      ['webhooks', false],
    ]);
  });

  it('tools/list grows with each installed app and shrinks when one is removed', async () => {
    expect((await suite.api.call('PUT', '/apps/artifacts')).body).toMatchObject({
      slug: 'artifacts',
      installed: true,
      installedAt: expect.any(String),
    });
    expect(await listedNames()).toEqual([...CORE_TOOLS, ...ARTIFACT_TOOLS].sort());
    await suite.api.call('PUT', '/apps/campaigns');
    await suite.api.call('PUT', '/apps/contacts');
    expect(await listedNames()).toEqual([...CORE_TOOLS, ...ARTIFACT_TOOLS, ...CAMPAIGN_TOOLS, ...CONTACT_TOOLS].sort());
    expect((await suite.api.call('DELETE', '/apps/contacts')).body).toMatchObject({
      installed: false,
      installedAt: null,
    });
    expect(await listedNames()).not.toContain('create_segment');
    expect((await suite.api.call('PUT', '/apps/not-an-app')).status).toBe(404);
    // Board: the hook tools, listed once it is installed.
    await suite.api.call('PUT', '/apps/board');
    expect(await listedNames()).toEqual([...CORE_TOOLS, ...ARTIFACT_TOOLS, ...CAMPAIGN_TOOLS, ...HOOK_TOOLS].sort());
    await suite.api.call('DELETE', '/apps/board');
    // Automations: the journey tools.
    await suite.api.call('PUT', '/apps/automations');
    expect(await listedNames()).toEqual(
      [...CORE_TOOLS, ...ARTIFACT_TOOLS, ...CAMPAIGN_TOOLS, ...AUTOMATION_TOOLS].sort(),
    );
    await suite.api.call('DELETE', '/apps/automations');
    // Forms: the sign-up form tools.
    await suite.api.call('PUT', '/apps/forms');
    expect(await listedNames()).toEqual([...CORE_TOOLS, ...ARTIFACT_TOOLS, ...CAMPAIGN_TOOLS, ...FORM_TOOLS].sort());
    await suite.api.call('DELETE', '/apps/forms');
    await installAll();
  });

  it('core tools: agent info, agents, public teams, API token, knowledge, contact property, secrets', async () => {
    await installAll();
    const info = await ok(mcp, 'svc_agent_info');
    expect(info.agent).toMatchObject({ uuid: suite.team.agentId, mode: 'auto' });
    expect(info.team).toMatchObject({ slug: suite.team.slug, plan: 'pro' });
    expect(info.integrations).toEqual([
      { channel: 'email', provider: 'resend', from: 'studio@acme.example', active: true },
    ]);
    expect(info.installedApps.sort()).toEqual(['artifacts', 'campaigns', 'contacts']);
    expect(info.credits).toMatchObject({ plan: 'pro', allowance: 100_000 });

    const agents = await ok(mcp, 'svc_list_agents', { limit: 10 });
    expect(agents.data.map((a: any) => a.uuid)).toEqual([suite.team.agentId]);

    expect((await ok(mcp, 'list_public_teams', { limit: 100 })).data.map((t: any) => t.slug)).not.toContain(
      suite.team.slug,
    );
    await suite.api.call('PATCH', '/team', { public: true, description: 'We make things' });
    const listed = await ok(mcp, 'list_public_teams', { limit: 100 });
    expect(listed.data).toContainEqual({ slug: suite.team.slug, name: suite.team.slug, description: 'We make things' });

    const created = await ok(mcp, 'create_api_token', { name: 'from an agent' });
    expect(created.token).toMatch(/^tap_/);
    expect(
      (await apiClient(suite.server.baseUrl, { token: created.token, slug: suite.team.slug }).get('/agents')).status,
    ).toBe(200);

    const job = await ok(mcp, 'ingest_knowledge', { title: 'Pricing', text: 'Our price is fair. '.repeat(200) });
    expect(job).toMatchObject({ jobId: expect.stringMatching(/^job_/), status: 'queued' });
    let state: any;
    for (let i = 0; i < 100 && state?.status !== 'succeeded'; i++) {
      state = (await suite.api.get(`/jobs/${job.jobId}`)).body;
      await sleep(100);
    }
    expect(state).toMatchObject({
      status: 'succeeded',
      result: { agentId: suite.team.agentId, title: 'Pricing', chunkCount: expect.any(Number) },
    });
    expect(await suite.db('knowledge_documents').where({ job_id: job.jobId }).first('agent_id')).toEqual({
      agent_id: suite.team.agentId,
    });

    const who = await contact();
    expect(await ok(mcp, 'set_contact_property', { contactId: who.id, key: 'plan', value: 'gold' })).toMatchObject({
      id: who.id,
      properties: { plan: 'gold' },
    });
    await ok(mcp, 'set_contact_property', { contactId: who.id, key: 'visits', value: 3 });
    await ok(mcp, 'set_contact_property', { contactId: who.id, key: 'plan', value: null });
    expect((await suite.api.get(`/contacts/${who.id}`)).body.properties).toEqual({ visits: 3 });

    expect(await ok(mcp, 'secret_status', { key: 'STRIPE_API_KEY' })).toEqual({
      key: 'STRIPE_API_KEY',
      set: false,
      updatedAt: null,
    });
    const set = await ok(mcp, 'secret_set', { key: 'STRIPE_API_KEY', value: 'sk_live_very_secret' });
    expect(set).toEqual({ key: 'STRIPE_API_KEY', set: true, updatedAt: expect.any(String) });
    const listedSecrets = await ok(mcp, 'secret_list');
    expect(listedSecrets).toEqual({
      data: [{ key: 'STRIPE_API_KEY', set: true, updatedAt: expect.any(String) }],
      pagination: { nextCursor: null, limit: 25 },
    });
    expect(await ok(mcp, 'secret_status', { key: 'STRIPE_API_KEY' })).toMatchObject({ set: true });
    const httpView = await suite.api.get(`/agents/${suite.team.agentId}/secrets`);
    expect(JSON.stringify([set, listedSecrets, httpView.body])).not.toContain('sk_live');
    const stored = await suite.db('agent_secrets').where({ agent_id: suite.team.agentId }).first('value_sealed');
    expect(stored.value_sealed).not.toContain('sk_live');
    expect(await ok(mcp, 'secret_clear', { key: 'STRIPE_API_KEY' })).toMatchObject({
      secret: { key: 'STRIPE_API_KEY', set: false },
    });
    expect(await failing(mcp, 'secret_set', { key: 'lower-case', value: 'x' })).toMatchObject({
      code: 'validation_error',
    });
  });

  it("media, then an artifact with it, then delivery (the only delivery path) through the agent's integration", async () => {
    await installAll();
    const pdf = Buffer.from('%PDF-1.4 offer');
    const media = await ok(mcp, 'media_upload', {
      filename: 'offer.pdf',
      contentType: 'application/pdf',
      contentBase64: pdf.toString('base64'),
    });
    expect(media).toMatchObject({ id: expect.stringMatching(/^med_/), filename: 'offer.pdf', size: pdf.length });
    expect((await ok(mcp, 'media_list', { limit: 100 })).data.map((m: any) => m.id)).toContain(media.id);
    expect(
      await failing(mcp, 'media_upload', {
        filename: 'x.exe',
        contentType: 'application/x-msdownload',
        contentBase64: 'AAAA',
      }),
    ).toMatchObject({ code: 'unsupported_media_type' });

    const who = await contact();
    const artifact = await ok(mcp, 'create_artifact', {
      title: 'Offer',
      type: 'offer',
      media: [media.id],
      contactId: who.id,
    });
    expect(artifact).toMatchObject({ status: 'draft', media: [expect.objectContaining({ id: media.id })] });
    expect(
      await failing(mcp, 'deliver_artifacts', { artifactIds: [artifact.id], message: 'Here', integration: 'email' }),
    ).toMatchObject({ code: 'invalid_state' });
    expect(
      await ok(mcp, 'update_artifact', { artifactId: artifact.id, status: 'ready', password: 'pw1' }),
    ).toMatchObject({ status: 'ready' });
    expect(await ok(mcp, 'get_artifact', { artifactId: artifact.id })).toMatchObject({
      id: artifact.id,
      password: 'pw1',
    });
    expect((await ok(mcp, 'list_artifacts', { ids: artifact.id })).data.map((a: any) => a.id)).toEqual([artifact.id]);

    const delivered = await ok(mcp, 'deliver_artifacts', {
      artifactIds: [artifact.id],
      message: 'Your offer, as promised.',
      integration: 'email',
    });
    expect(delivered).toMatchObject({
      pending: false,
      status: 'succeeded',
      deliveries: [expect.objectContaining({ contactId: who.id, status: 'sent' })],
    });
    const received = suite.fake.byRecipient(who.email);
    expect(received).toHaveLength(1);
    expect(received[0].text).toContain('Your offer, as promised.');
    expect((await suite.api.get(`/artifacts/${artifact.id}`)).body.status).toBe('sent');

    // The file is in use: the rule of the HTTP API answers with its code.
    expect(await failing(mcp, 'media_delete', { mediaId: media.id })).toMatchObject({ code: 'invalid_state' });
    const loose = await ok(mcp, 'media_upload', {
      filename: 'notes.txt',
      contentType: 'text/plain',
      contentBase64: Buffer.from('hi').toString('base64'),
    });
    expect(await ok(mcp, 'media_delete', { mediaId: loose.id })).toEqual({ deleted: true, mediaId: loose.id });
    const draft = await ok(mcp, 'create_artifact', { title: 'Scrap' });
    expect(await ok(mcp, 'delete_artifact', { artifactId: draft.id })).toEqual({ deleted: true, artifactId: draft.id });
    expect(await failing(mcp, 'get_artifact', { artifactId: draft.id })).toMatchObject({ code: 'not_found' });
  });

  it('segments and campaigns: create, preview before send, send (now), list, stats, delete', async () => {
    await installAll();
    const tag = `vip${Date.now()}`;
    const people = [await contact(), await contact()];
    for (const p of people) await suite.api.call('PATCH', `/contacts/${p.id}`, { tags: [tag] });
    const segment = await ok(mcp, 'create_segment', {
      name: 'VIPs',
      groups: [{ conditions: [{ type: 'tag', value: tag }] }],
    });
    expect((await ok(mcp, 'list_segments', { limit: 100 })).data.map((s: any) => s.id)).toContain(segment.id);

    expect(await failing(mcp, 'create_campaign', { name: 'Empty', channel: 'email', content: 'x' })).toMatchObject({
      code: 'empty_audience',
    });
    const campaign = await ok(mcp, 'create_campaign', {
      name: 'Spring',
      channel: 'email',
      subject: 'Hi {{first}}',
      content: 'Hello {{first}}, spring is here.',
      templateParams: { first: 'contact.firstName' },
      segmentId: segment.id,
    });
    expect(campaign).toMatchObject({ status: 'draft', segmentId: segment.id });
    expect(await ok(mcp, 'preview_campaign_audience', { campaignId: campaign.id })).toMatchObject({
      channel: 'email',
      total: 2,
      sendable: 2,
    });
    expect(await ok(mcp, 'preview_campaign_audience', { channel: 'sms', tags: [tag] })).toMatchObject({
      total: 2,
      sendable: 0,
      skipped: { missing_channel: 2 },
    });
    expect(await failing(mcp, 'preview_campaign_audience', {})).toMatchObject({ code: 'validation_error' });
    expect(await failing(mcp, 'delete_segment', { segmentId: segment.id })).toMatchObject({ code: 'invalid_state' });

    const sent = await ok(mcp, 'send_campaign', { campaignId: campaign.id });
    expect(['sending', 'completed']).toContain(sent.campaign.status);
    const done = await campaignUntil(campaign.id, (c) => c.status === 'completed');
    expect(done).toMatchObject({ sentCount: 2 });
    for (const p of people)
      expect(suite.fake.byRecipient(p.email).map((m) => m.subject)).toEqual([`Hi ${p.name.split(' ')[0]}`]);
    expect(await ok(mcp, 'campaign_stats', { campaignId: campaign.id })).toMatchObject({
      status: 'completed',
      sent: 2,
    });
    expect((await ok(mcp, 'list_campaigns', { limit: 100 })).data.map((c: any) => c.id)).toContain(campaign.id);
    expect(await failing(mcp, 'send_campaign', { campaignId: campaign.id })).toMatchObject({ code: 'invalid_state' });

    const later = await ok(mcp, 'create_campaign', {
      name: 'Later',
      channel: 'email',
      subject: 's',
      content: 'x',
      contactIds: [people[0].id],
    });
    const scheduledAt = new Date(Date.now() + 3600_000).toISOString();
    expect((await ok(mcp, 'send_campaign', { campaignId: later.id, scheduledAt })).campaign).toMatchObject({
      status: 'scheduled',
      scheduledAt,
    });
    expect(await failing(mcp, 'send_campaign', { campaignId: later.id, scheduledAt: 'tomorrow' })).toMatchObject({
      code: 'validation_error',
    });
    expect(await ok(mcp, 'delete_campaign', { campaignId: later.id })).toEqual({ deleted: true, campaignId: later.id });
    expect((await suite.api.get(`/campaigns/${later.id}`)).status).toBe(404);
    expect(
      await ok(mcp, 'delete_segment', {
        segmentId: (
          await ok(mcp, 'create_segment', { name: 'tmp', groups: [{ conditions: [{ type: 'tag', value: 'x' }] }] })
        ).id,
      }),
    ).toMatchObject({ deleted: true });
  });

  it('manual mode: send_campaign answers pending, a retry finds the same execution, approval over HTTP sends it, check_warp_executions reports it', async () => {
    await installAll();
    const who = await contact();
    const campaign = await ok(mcp, 'create_campaign', {
      name: 'Gated',
      channel: 'email',
      subject: 'Gated',
      content: 'Approved news',
      contactIds: [who.id],
    });
    await setMode('manual');
    try {
      const pending = await ok(mcp, 'send_campaign', { campaignId: campaign.id });
      expect(pending).toMatchObject({
        pending: true,
        executionId: expect.stringMatching(/^wx_/),
        warp: 'svc-campaign-send',
        status: 'pending_approval',
      });
      const retried = await ok(mcp, 'send_campaign', { campaignId: campaign.id });
      expect(retried.executionId).toBe(pending.executionId);
      expect(
        await suite
          .db('warp_executions')
          .where({ team_id: suite.team.teamId, warp: 'svc-campaign-send' })
          .count({ n: '*' }),
      ).toEqual([{ n: 1 }]);
      expect(
        (await ok(mcp, 'check_warp_executions', { executionIds: [pending.executionId] })).executions[0],
      ).toMatchObject({ status: 'pending_approval', warp: 'svc-campaign-send' });
      await sleep(500);
      expect((await suite.api.get(`/campaigns/${campaign.id}`)).body.status).toBe('draft');
      expect(suite.fake.byRecipient(who.email)).toHaveLength(0);

      // Only a delivery's text is editable; this is approved as it is, by a person's API token.
      expect(
        (await suite.api.post(`/warp-executions/${pending.executionId}/approve`, { message: 'changed' })).body.error
          .code,
      ).toBe('edits_not_accepted');
      expect((await suite.api.post(`/warp-executions/${pending.executionId}/approve`, {})).status).toBe(200);
      const execution = await settled(pending.executionId);
      expect(execution).toMatchObject({ status: 'succeeded', result: { campaign: { id: campaign.id } } });
      const done = await campaignUntil(campaign.id, (c) => c.status === 'completed');
      // The approval covered the whole send: no per-recipient approval cards were opened.
      expect(done).toMatchObject({ sentCount: 1 });
      expect(suite.fake.byRecipient(who.email)).toHaveLength(1);
    } finally {
      await setMode('auto');
    }
  });

  it('manual mode: a declined delete leaves the artifact; an expired one reports expired; deliveries wait too', async () => {
    await installAll();
    const who = await contact();
    const artifact = await ok(mcp, 'create_artifact', { title: 'Keep me', status: 'ready', contactId: who.id });
    await setMode('manual');
    try {
      const pending = await ok(mcp, 'delete_artifact', { artifactId: artifact.id });
      expect(pending).toMatchObject({ pending: true, warp: 'artifact-delete' });
      expect(
        (await suite.api.post(`/warp-executions/${pending.executionId}/decline`, { reason: 'we still need it' })).body
          .status,
      ).toBe('declined');
      expect(await settled(pending.executionId)).toMatchObject({
        status: 'declined',
        error: { error: { code: 'declined', message: 'Declined: we still need it' } },
      });
      expect((await suite.api.get(`/artifacts/${artifact.id}`)).status).toBe(200);
      // Declined is settled: the same write asked again opens a new execution.
      const again = await ok(mcp, 'delete_artifact', { artifactId: artifact.id });
      expect(again.executionId).not.toBe(pending.executionId);
      // This time a person approves by the signed link: the page says what the agent asked for.
      const link = (await suite.api.post(`/warp-executions/${again.executionId}/approval-link`)).body;
      const page = await (await fetch(link.url)).text();
      expect(page).toContain('Delete the artifact “Keep me”?');
      const decided = await fetch(link.url, { method: 'POST', body: new URLSearchParams({ decision: 'approve' }) });
      expect(decided.status).toBe(200);
      expect(await settled(again.executionId)).toMatchObject({ status: 'succeeded', result: { deleted: true } });
      expect((await suite.api.get(`/artifacts/${artifact.id}`)).status).toBe(404);

      const offer = await ok(mcp, 'create_artifact', { title: 'Offer', status: 'ready', contactId: who.id });
      const delivery = await ok(mcp, 'deliver_artifacts', {
        artifactIds: [offer.id],
        message: 'For you',
        integration: 'email',
      });
      expect(delivery).toMatchObject({ pending: true, status: 'pending_approval' });
      expect(
        (await ok(mcp, 'deliver_artifacts', { artifactIds: [offer.id], message: 'For you', integration: 'email' }))
          .executionId,
      ).toBe(delivery.executionId);
      expect(
        (await suite.api.post(`/warp-executions/${delivery.executionId}/approve`, { message: 'For you, approved' }))
          .status,
      ).toBe(200);
      expect(await settled(delivery.executionId)).toMatchObject({ status: 'succeeded' });
      expect(suite.fake.byRecipient(who.email).map((m) => m.text.split('\n')[0])).toEqual(['For you, approved']);
      // Reads are never gated.
      expect((await ok(mcp, 'list_artifacts', { ids: offer.id })).data[0].status).toBe('sent');
    } finally {
      await setMode('auto');
    }
  });

  it("deliver_artifacts acts as the connection's agent: on /mcp/agents/{manual agent} it waits for approval", async () => {
    await installAll();
    const agentId = (await createAgent(suite.db, suite.team.teamId, 'Closer')).uuid;
    await suite.api.call('PUT', `/agents/${agentId}/integrations/email`, { provider: 'sandbox' });
    await suite.api.call('PATCH', `/agents/${agentId}`, { mode: 'manual' });
    const who = await contact();
    const offer = await ok(mcp, 'create_artifact', { title: 'Closing offer', status: 'ready', contactId: who.id });
    const asCloser = await mcpClient(`${mcpUrl}/agents/${agentId}`, suite.team.token);
    try {
      const answer = await ok(asCloser, 'deliver_artifacts', {
        artifactIds: [offer.id],
        message: 'From the closer',
        integration: 'email',
      });
      expect(answer).toMatchObject({ pending: true, status: 'pending_approval' });
      expect(await suite.db('warp_executions').where({ id: answer.executionId }).first('agent_id')).toEqual({
        agent_id: agentId,
      });
    } finally {
      await asCloser.close();
    }
  });

  it("tool errors carry the HTTP API's codes; bad arguments are validation errors and cost nothing", async () => {
    await installAll();
    const before = (await suite.api.get('/credits')).body;
    expect(await failing(mcp, 'get_artifact', {})).toMatchObject({
      code: 'validation_error',
      details: { issues: [expect.objectContaining({ path: 'artifactId' })] },
    });
    expect(await failing(mcp, 'create_artifact', { title: 'x', type: 'poem' })).toMatchObject({
      code: 'validation_error',
    });
    const afterInvalid = (await suite.api.get('/credits')).body;
    expect(afterInvalid.used).toBe(before.used);
    // A value the database cannot store is the HTTP API's 400, not an internal error.
    expect(await failing(mcp, 'create_artifact', { title: 'a\u0000b' })).toMatchObject({
      code: 'validation_error',
      details: { issues: [expect.objectContaining({ code: 'invalid_value' })] },
    });
    expect(await failing(mcp, 'get_artifact', { artifactId: 'art_nope' })).toMatchObject({ code: 'not_found' });
    expect(await failing(mcp, 'campaign_stats', { campaignId: 'cmp_nope' })).toMatchObject({ code: 'not_found' });
    expect(await failing(mcp, 'check_warp_executions', { limit: 0 })).toMatchObject({ code: 'validation_error' });
    expect(await ok(mcp, 'check_warp_executions', { executionIds: ['wx_nope'] })).toEqual({
      executions: [],
      unknownExecutionIds: ['wx_nope'],
    });
    // A known id filtered out by status is not "unknown"; ids are not cut to the default limit.
    const known: string[] = await suite
      .db('warp_executions')
      .where({ team_id: suite.team.teamId })
      .orderBy('seq')
      .pluck('id');
    expect(known.length).toBeGreaterThan(0);
    expect(await ok(mcp, 'check_warp_executions', { executionIds: known, status: 'expired' })).toEqual({
      executions: [],
    });
    expect((await ok(mcp, 'check_warp_executions', { executionIds: known, limit: 1 })).executions).toHaveLength(
      known.length,
    );
    // Refused by the service, not by the schema: charged (a write 2, five reads 1 each).
    expect((await suite.api.get('/credits')).body.used).toBe(before.used + 7);
  });

  it("another team's connection sees nothing of this team through any tool", async () => {
    await installAll();
    const mine = await ok(mcp, 'create_artifact', { title: 'Private' });
    const pendingId = (await suite.db('warp_executions').where({ team_id: suite.team.teamId }).first('id')).id;
    const campaignId = (await suite.db('campaigns').where({ team_id: suite.team.teamId }).first('id')).id;
    const other = await newTeam(suite.db, 'mcp-iso');
    await suite.db('teams').where({ id: other.teamId }).update({ plan: 'pro' });
    for (const app of ['artifacts', 'campaigns', 'contacts'])
      await suite.db('team_apps').insert({ team_id: other.teamId, app });
    const theirs = await mcpClient(mcpUrl, other.token);
    try {
      expect(await failing(theirs, 'get_artifact', { artifactId: mine.id })).toMatchObject({ code: 'not_found' });
      expect(await failing(theirs, 'update_artifact', { artifactId: mine.id, title: 'x' })).toMatchObject({
        code: 'not_found',
      });
      expect(await failing(theirs, 'delete_artifact', { artifactId: mine.id })).toMatchObject({ code: 'not_found' });
      expect((await ok(theirs, 'list_artifacts', { ids: mine.id })).data).toEqual([]);
      expect(await failing(theirs, 'campaign_stats', { campaignId })).toMatchObject({ code: 'not_found' });
      expect(await failing(theirs, 'send_campaign', { campaignId })).toMatchObject({ code: 'not_found' });
      expect(await ok(theirs, 'check_warp_executions', { executionIds: [pendingId] })).toEqual({
        executions: [],
        unknownExecutionIds: [pendingId],
      });
      expect((await ok(theirs, 'check_warp_executions')).executions).toEqual([]);
      expect((await ok(theirs, 'svc_list_agents')).data.map((a: any) => a.uuid)).toEqual([other.agentId]);
      expect((await ok(theirs, 'media_list', { limit: 100 })).data).toEqual([]);
    } finally {
      await theirs.close();
    }
    expect((await suite.api.get(`/artifacts/${mine.id}`)).body.title).toBe('Private');
  });

  it('credits: reads cost 1 and writes 2; at the allowance a call answers credits_exhausted and does nothing; usage through the API', async () => {
    const team = await newTeam(suite.db, 'mcp-credits');
    await suite.db('team_apps').insert({ team_id: team.teamId, app: 'contacts' });
    const client = await mcpClient(mcpUrl, team.token, { 'x-team-slug': team.slug });
    const api = apiClient(suite.server.baseUrl, team);
    try {
      for (let i = 0; i < 24; i++) await ok(client, 'svc_list_agents');
      await ok(client, 'create_segment', { name: 'first', groups: [{ conditions: [{ type: 'tag', value: 'a' }] }] });
      expect((await api.get('/credits')).body).toMatchObject({
        plan: 'free',
        allowance: 50,
        used: 26,
        remaining: 24,
        calls: 25,
        refused: 0,
      });
      for (let i = 0; i < 23; i++) await ok(client, 'list_segments');
      // 49 used: a write (2) no longer fits, and is not done.
      const refused = await failing(client, 'create_segment', {
        name: 'second',
        groups: [{ conditions: [{ type: 'tag', value: 'b' }] }],
      });
      expect(refused).toMatchObject({
        code: 'credits_exhausted',
        details: { allowance: 50, used: 49, cost: 2, resetsAt: expect.any(String) },
      });
      expect((await api.get('/segments')).body.data.map((s: any) => s.name)).toEqual(['first']);
      // A read (1) still fits; then nothing does.
      await ok(client, 'svc_agent_info');
      expect(await failing(client, 'svc_agent_info')).toMatchObject({ code: 'credits_exhausted' });
      const usage = (await api.get('/credits')).body;
      expect(usage).toMatchObject({ used: 50, remaining: 0, calls: 49, refused: 2 });
      expect(new Date(usage.cycleEnd).getTime() - new Date(usage.cycleStart).getTime()).toBeGreaterThanOrEqual(
        28 * 86400_000,
      );
      // tools/list is not metered.
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  it('credits are exact under concurrent calls: of 80 reads at once on a 50-credit allowance, exactly 50 run', async () => {
    const team = await newTeam(suite.db, 'mcp-race');
    const clients = await Promise.all(Array.from({ length: 8 }, () => mcpClient(mcpUrl, team.token)));
    try {
      const answers = await Promise.all(
        Array.from({ length: 80 }, (_, i) => callTool(clients[i % clients.length], 'svc_list_agents')),
      );
      expect(answers.filter((a) => !a.isError)).toHaveLength(50);
      expect(answers.filter((a) => a.isError).map((a) => a.data.error.code)).toEqual(
        Array(30).fill('credits_exhausted'),
      );
      expect((await apiClient(suite.server.baseUrl, team).get('/credits')).body).toMatchObject({
        used: 50,
        calls: 50,
        refused: 30,
      });
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });

  it("an unmetered team's concurrent calls are each counted once; moved to a metered plan, what it used counts against the allowance", async () => {
    const team = await newTeam(suite.db, 'mcp-unmetered');
    // A plan MCP_CREDITS does not list is counted, not limited.
    await suite.db('teams').where({ id: team.teamId }).update({ plan: 'enterprise' });
    const clients = await Promise.all(Array.from({ length: 8 }, () => mcpClient(mcpUrl, team.token)));
    const api = apiClient(suite.server.baseUrl, team);
    try {
      const answers = await Promise.all(
        Array.from({ length: 80 }, (_, i) => callTool(clients[i % clients.length], 'svc_list_agents')),
      );
      expect(answers.filter((a) => a.isError)).toEqual([]);
      expect((await api.get('/credits')).body).toMatchObject({
        plan: 'enterprise',
        allowance: null,
        used: 80,
        remaining: null,
        calls: 80,
        refused: 0,
      });
      // Counted on several rows (no single row lock for every call of the team), summed when read.
      const rows = await suite.db('credit_usage').where({ team_id: team.teamId }).count({ n: '*' });
      expect(Number(rows[0].n)).toBeGreaterThan(1);
      // A read its service refuses (a cursor this API never issued) is charged once, as any refused call is.
      expect(await failing(clients[0], 'svc_list_agents', { cursor: 'bogus' })).toMatchObject({
        code: 'validation_error',
        details: { issues: [expect.objectContaining({ path: 'cursor' })] },
      });
      expect((await ok(clients[0], 'media_list', { limit: 5 })).data).toEqual([]);
      expect((await api.get('/credits')).body).toMatchObject({ used: 82, calls: 82, refused: 0 });

      await suite.db('teams').where({ id: team.teamId }).update({ plan: 'free' });
      expect(await failing(clients[0], 'svc_list_agents')).toMatchObject({
        code: 'credits_exhausted',
        details: { allowance: 50, used: 82, cost: 1 },
      });
      expect((await api.get('/credits')).body).toMatchObject({
        plan: 'free',
        allowance: 50,
        used: 82,
        remaining: 0,
        calls: 82,
        refused: 1,
      });
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });
});
