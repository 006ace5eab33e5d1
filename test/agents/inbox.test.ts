import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import nodemailer from 'nodemailer';
import pino from 'pino';
import { createAgent } from '../../services/agents/agents';
import { RunningInbox, startInboxListener } from '../../services/inbox/smtpListener';
import { FakeWebhookReceiver } from '../fakes/webhookReceiver';
import { apiClient, newTeam, sleep, useApiSuite } from '../support/helpers';
import { failing, mcpClient, ok } from '../support/mcpHelpers';
import { SmtpDialog } from '../support/smtpDialog';

/**
 * The agents' receive-only mailboxes (docs/INBOX.md): a real SMTP client sends to the listener on
 * a free port against the suite's database; the message is stored, announced as email.received
 * (platform_events, an outbound webhook) and read through the API and MCP; unknown recipients,
 * other domains and oversize messages are refused; another team reads nothing.
 */
const MAX_BYTES = 64 * 1024;

describe('agent inbox: SMTP in, API and MCP out', () => {
  const suite = useApiSuite('inbox');
  let inbox: RunningInbox;
  let receiver: FakeWebhookReceiver;
  let mcp: Client;
  /** The API's own INBOX_DOMAIN, so MCP answers the same address. */
  let DOMAIN: string;
  const address = () => `${suite.team.agentId}@${DOMAIN}`;

  beforeAll(async () => {
    DOMAIN = suite.server.ctx.config.INBOX_DOMAIN;
    inbox = await startInboxListener(
      { INBOX_DOMAIN: DOMAIN, INBOX_SMTP_PORT: 0, INBOX_SMTP_HOST: '127.0.0.1', INBOX_MAX_BYTES: MAX_BYTES },
      suite.db,
      pino({ level: 'silent' }),
    );
    receiver = await new FakeWebhookReceiver().start();
    mcp = await mcpClient(suite.server.ctx.config.mcpEndpoint, suite.team.token);
  });
  afterAll(async () => {
    await mcp?.close();
    await receiver?.stop();
    await inbox?.close();
  });

  const transport = () =>
    nodemailer.createTransport({ host: '127.0.0.1', port: inbox.port, secure: false, ignoreTLS: true });

  async function inboxUntil(count: number) {
    for (let i = 0; i < 100; i++) {
      const page = await suite.api.get(`/agents/${suite.team.agentId}/inbox`);
      if (page.body.data?.length >= count) return page;
      await sleep(100);
    }
    throw new Error('the inbox did not fill');
  }

  it('stores mail to <agent>@inbox domain, announces email.received (with the sender contact) and a webhook gets it', async () => {
    const sender = `ada-${Date.now()}@example.com`;
    const contact = await suite.api.post('/contacts', { name: 'Ada Lovelace', email: sender });
    expect(contact.status).toBe(201);
    const endpoint = await suite.api.post('/webhooks/endpoints', {
      url: receiver.url('/mail'),
      eventTypes: ['email.received'],
    });
    expect(endpoint.status).toBe(201);
    receiver.setSecret('/mail', endpoint.body.secret);

    const info = await transport().sendMail({
      from: `"Ada Lovelace" <${sender.toUpperCase()}>`,
      to: address(),
      cc: 'someone@example.org',
      subject: 'Re: the proposal',
      text: 'Thanks, the proposal reads well.\nLet us talk on Monday.',
      html: '<p>Thanks, the proposal reads well.</p>',
      inReplyTo: '<offer-1@acme.example>',
      messageId: `<reply-${Date.now()}@example.com>`,
      attachments: [{ filename: 'notes.txt', content: 'a note' }],
    });
    expect(info.accepted).toEqual([address()]);

    const list = await inboxUntil(1);
    expect(list.status).toBe(200);
    expect(list.body.pagination).toEqual({ nextCursor: null, limit: 25 });
    const [summary] = list.body.data;
    expect(summary).toMatchObject({
      agentId: suite.team.agentId,
      messageId: info.messageId,
      from: { address: sender, name: 'Ada Lovelace' },
      to: [{ address: address(), name: '' }],
      subject: 'Re: the proposal',
      snippet: 'Thanks, the proposal reads well. Let us talk on Monday.',
      hasAttachments: true,
      contactId: contact.body.id,
    });
    expect(summary.size).toBeGreaterThan(100);
    expect(summary).not.toHaveProperty('text');

    const full = await suite.api.get(`/agents/${suite.team.agentId}/inbox/${summary.id}`);
    expect(full.status).toBe(200);
    expect(full.body).toMatchObject({
      id: summary.id,
      cc: [{ address: 'someone@example.org', name: '' }],
      envelope: { from: expect.stringMatching(/^ada-\d+@example\.com$/i), to: address() },
      text: 'Thanks, the proposal reads well.\nLet us talk on Monday.',
      html: '<p>Thanks, the proposal reads well.</p>',
      headers: { 'in-reply-to': '<offer-1@acme.example>' },
      attachments: [{ filename: 'notes.txt', contentType: 'text/plain', size: 6 }],
    });

    const events = await suite.db('platform_events').where({ team_id: suite.team.teamId, type: 'email.received' });
    expect(events).toHaveLength(1);
    expect(events[0].subject).toBe(summary.id);
    expect(events[0].data).toEqual({
      agentId: suite.team.agentId,
      contactId: contact.body.id,
      message: {
        id: summary.id,
        messageId: info.messageId,
        from: { address: sender, name: 'Ada Lovelace' },
        to: [{ address: address(), name: '' }],
        subject: 'Re: the proposal',
        size: summary.size,
        receivedAt: summary.receivedAt,
      },
    });

    await receiver.waitFor(() => receiver.forPath('/mail').length >= 1);
    expect(receiver.forPath('/mail')[0]).toMatchObject({
      type: 'email.received',
      data: { agentId: suite.team.agentId, message: { id: summary.id } },
    });
  });

  it('a message sent again with the same Message-ID is stored and announced once', async () => {
    const before = (await inboxUntil(1)).body.data.length;
    const messageId = `<twice-${Date.now()}@example.com>`;
    for (let i = 0; i < 2; i++)
      await transport().sendMail({ from: 'x@example.net', to: address(), subject: 'twice', text: 'hi', messageId });
    expect((await inboxUntil(before + 1)).body.data.filter((m: any) => m.messageId === messageId)).toHaveLength(1);
    const events = await suite.db('platform_events').where({ team_id: suite.team.teamId, type: 'email.received' });
    expect(events.filter((e) => e.data.message.messageId === messageId)).toHaveLength(1);
    expect(events.find((e) => e.data.message.messageId === messageId)!.data.contactId).toBeNull();
  });

  it('an automation triggered by email.received enrolls the sending contact; waitForEvent waits for its next mail', async () => {
    const sender = `lin-${Date.now()}@example.com`;
    const contact = (await suite.api.post('/contacts', { name: 'Lin Example', email: sender })).body;
    const automation = await suite.api.post('/automations', {
      name: 'Replies',
      trigger: { kind: 'event', event: 'email.received' },
      steps: [{ type: 'waitForEvent', event: 'email.received', timeout: '1h' }],
    });
    expect(automation.status).toBe(201);
    const enrollment = async () =>
      (await suite.api.get(`/automations/${automation.body.id}/enrollments?contactId=${contact.id}`)).body.data[0];
    const until = async (done: (e: any) => boolean) => {
      for (let i = 0; i < 200; i++) {
        const e = await enrollment();
        if (e && done(e)) return e;
        await sleep(150);
      }
      throw new Error(`enrollment: ${JSON.stringify(await enrollment())}`);
    };
    // Mail from an address that is no contact enrolls nobody.
    await transport().sendMail({ from: 'stranger@example.net', to: address(), subject: 'hello', text: 'hi' });
    await transport().sendMail({ from: sender, to: address(), subject: 'first', text: 'one' });
    await until((e) => e.waitingFor === 'email.received');
    await transport().sendMail({ from: sender, to: address(), subject: 'second', text: 'two' });
    await until((e) => e.status === 'completed');
    const all = (await suite.api.get(`/automations/${automation.body.id}/enrollments`)).body.data;
    expect(all.map((e: any) => e.contactId)).toEqual([contact.id]);
    await suite.api.call('PATCH', `/automations/${automation.body.id}`, { enabled: false });
  });

  it('reads the inbox over MCP: the connected agent’s address and messages, one message whole', async () => {
    const listed = await ok(mcp, 'list_inbox_messages', { limit: 1 });
    expect(listed.address).toBe(address());
    expect(listed.data).toHaveLength(1);
    expect(listed.pagination.nextCursor).toEqual(expect.any(String));
    const next = await ok(mcp, 'list_inbox_messages', { limit: 1, cursor: listed.pagination.nextCursor });
    expect(next.data[0].id).not.toBe(listed.data[0].id);
    const first = (await suite.api.get(`/agents/${suite.team.agentId}/inbox?limit=100`)).body.data.at(-1);
    const message = await ok(mcp, 'get_inbox_message', { messageId: first.id });
    expect(message).toMatchObject({
      id: first.id,
      subject: 'Re: the proposal',
      text: expect.stringContaining('Monday'),
    });
    expect((await failing(mcp, 'get_inbox_message', { messageId: 'inm_nope' })).code).toBe('not_found');
  });

  it('refuses at RCPT an unknown agent (550), another domain (550); advertises SIZE', async () => {
    const { dialog, greeting } = await SmtpDialog.open(inbox.port);
    try {
      expect(greeting.code).toBe(220);
      const ehlo = await dialog.send('EHLO sender.example');
      expect(ehlo.code).toBe(250);
      expect(ehlo.text).toContain(`SIZE ${MAX_BYTES}`);
      expect(ehlo.text).not.toContain('AUTH');
      expect((await dialog.send('MAIL FROM:<bob@example.com>')).code).toBe(250);
      const unknown = await dialog.send(`RCPT TO:<00000000-0000-4000-8000-000000000000@${DOMAIN}>`);
      expect(unknown.code).toBe(550);
      expect((await dialog.send(`RCPT TO:<support@${DOMAIN}>`)).code).toBe(550);
      const relay = await dialog.send(`RCPT TO:<${suite.team.agentId}@elsewhere.example>`);
      expect(relay.code).toBe(550);
      expect(relay.text).toContain('Relay denied');
      // With no accepted recipient there is nothing to send.
      expect((await dialog.data('Subject: x\n\nnothing')).start.code).toBe(503);
    } finally {
      dialog.close();
    }
  });

  it('refuses an oversize message with 552: declared at MAIL FROM, and sent without declaring it', async () => {
    const { dialog } = await SmtpDialog.open(inbox.port);
    try {
      await dialog.send('EHLO sender.example');
      expect((await dialog.send(`MAIL FROM:<big@example.com> SIZE=${MAX_BYTES + 1}`)).code).toBe(552);
      expect((await dialog.send('MAIL FROM:<big@example.com>')).code).toBe(250);
      // An uppercase address finds the agent too.
      expect((await dialog.send(`RCPT TO:<${address().toUpperCase()}>`)).code).toBe(250);
      const big = `Subject: big\nMessage-ID: <big-${Date.now()}@example.com>\n\n${'x'.repeat(999)}\n`.repeat(70);
      const { end } = await dialog.data(big);
      expect(end?.code).toBe(552);
    } finally {
      dialog.close();
    }
    const stored = await suite.db('inbox_messages').where({ agent_id: suite.team.agentId, subject: 'big' });
    expect(stored).toHaveLength(0);
  });

  it('one message to two agents is stored for each; another team reads neither (404)', async () => {
    const second = await createAgent(suite.db, suite.team.teamId, 'Inbox Second');
    await transport().sendMail({
      from: 'carol@example.com',
      to: [address(), `${second.uuid}@${DOMAIN}`],
      subject: 'to both',
      text: 'hello both',
    });
    let mine: any;
    for (let i = 0; i < 100 && !mine; i++) {
      mine = (await suite.api.get(`/agents/${second.uuid}/inbox`)).body.data[0];
      if (!mine) await sleep(100);
    }
    expect(mine).toMatchObject({ subject: 'to both', agentId: second.uuid });
    const firstOwn = (await suite.api.get(`/agents/${suite.team.agentId}/inbox`)).body.data[0];
    expect(firstOwn).toMatchObject({ subject: 'to both', agentId: suite.team.agentId });
    expect(firstOwn.id).not.toBe(mine.id);
    // A message is read only under its own agent.
    expect((await suite.api.get(`/agents/${suite.team.agentId}/inbox/${mine.id}`)).status).toBe(404);

    const other = await newTeam(suite.db, 'inbox-other');
    const otherApi = apiClient(suite.server.baseUrl, other);
    expect((await otherApi.get(`/agents/${second.uuid}/inbox`)).status).toBe(404);
    const read = await otherApi.get(`/agents/${second.uuid}/inbox/${mine.id}`);
    expect(read.status).toBe(404);
    expect(read.body.error.code).toBe('not_found');
    expect((await otherApi.get(`/agents/${other.agentId}/inbox/${mine.id}`)).status).toBe(404);
    const otherMcp = await mcpClient(suite.server.ctx.config.mcpEndpoint, other.token);
    try {
      expect((await ok(otherMcp, 'list_inbox_messages')).data).toEqual([]);
      const refused = await failing(otherMcp, 'get_inbox_message', { agentId: second.uuid, messageId: mine.id });
      expect(refused.code).toBe('not_found');
    } finally {
      await otherMcp.close();
    }
  });
});
