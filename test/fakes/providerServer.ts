import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { SMTPServer } from 'smtp-server';

/** One message a fake provider accepted (duplicates: later requests that carried the same key). */
export interface FakeMessage {
  provider: 'resend' | 'twilio' | 'whatsapp_cloud' | 'fcm' | 'smtp';
  key: string;
  to: string;
  from: string | null;
  subject: string | null;
  text: string;
  /** The HTML alternative, where the provider API carries it (Resend-style email). */
  html?: string | null;
  /** Extra headers the sender asked for (List-Unsubscribe), where the provider API carries them. */
  headers?: Record<string, string>;
  id: string;
  duplicates: number;
  /** When the first request with this key arrived (ms since the epoch). */
  receivedAt: number;
  /** SMTP: the credentials the session carrying the message authenticated with, if any. */
  auth?: { username: string; password: string };
  /** SMTP: the Message-ID header of the first copy, and of every repeat (a receiver drops a repeat by it). */
  messageId?: string | null;
  repeatMessageIds?: (string | null)[];
}

/** What the next requests should suffer, in order: a status to answer, or a hang. */
type Fault = { status: number } | { hang: true };

/**
 * A local stand-in for the real providers, over real HTTP and SMTP: Resend-style email
 * (`POST /emails`), Twilio-style SMS, WhatsApp Cloud-style and FCM v1-style push, and an SMTP
 * server. It keeps one message per idempotency key (a repeat is counted as a duplicate and
 * answered with the first id), and can be told to add latency, answer 5xx/429/4xx, or hang.
 */
export class FakeProviderServer {
  readonly messages = new Map<string, FakeMessage>();
  /** WhatsApp templates submitted; set `status` (and `reason`) to decide them. */
  readonly templates = new Map<string, { name: string; body: string; status: string; reason?: string }>();
  /** Names of the WhatsApp templates a delete request asked to remove, in order. */
  readonly deletedTemplates: string[] = [];
  private faults: Fault[] = [];
  latencyMs = 0;
  requests = 0;
  /** SMTP connections opened since the last reset. */
  smtpConnections = 0;
  private http?: http.Server;
  private smtp?: SMTPServer;
  baseUrl = '';
  smtpPort = 0;
  private counter = 0;
  private readonly instance = randomBytes(4).toString('hex');

  /** Queue faults for the next requests (any provider), e.g. `fail({ status: 503 }, { status: 503 })`. */
  fail(...faults: Fault[]): void {
    this.faults.push(...faults);
  }

  reset(): void {
    this.messages.clear();
    this.faults = [];
    this.latencyMs = 0;
    this.requests = 0;
    this.smtpConnections = 0;
  }

  byRecipient(to: string): FakeMessage[] {
    return [...this.messages.values()].filter((m) => m.to === to);
  }

  totalDuplicates(): number {
    return [...this.messages.values()].reduce((sum, m) => sum + m.duplicates, 0);
  }

  private accept(
    provider: FakeMessage['provider'],
    key: string,
    fields: Omit<FakeMessage, 'provider' | 'key' | 'id' | 'duplicates' | 'receivedAt'>,
  ): FakeMessage {
    const existing = this.messages.get(key);
    if (existing) {
      existing.duplicates++;
      if (fields.messageId !== undefined) (existing.repeatMessageIds ??= []).push(fields.messageId);
      return existing;
    }
    // Ids unique across fake servers, as a real provider's are (tests run several at once on one database).
    const message = {
      provider,
      key,
      ...fields,
      id: `${provider}-${this.instance}-${++this.counter}`,
      duplicates: 0,
      receivedAt: Date.now(),
    };
    this.messages.set(key, message);
    return message;
  }

  /** Latency, then the next queued fault, if any. Returns false when the request was answered (or left hanging). */
  private async gate(res: express.Response): Promise<boolean> {
    this.requests++;
    if (this.latencyMs) await new Promise((r) => setTimeout(r, this.latencyMs));
    const fault = this.faults.shift();
    if (!fault) return true;
    if ('hang' in fault) return false;
    res.status(fault.status).json({ error: { message: `fake provider answers ${fault.status}` } });
    return false;
  }

  async start(): Promise<this> {
    const app = express();
    app.use(express.json(), express.urlencoded({ extended: false }));
    const keyOf = (req: express.Request) =>
      String(req.headers['idempotency-key'] ?? req.headers['i-twilio-idempotency-token'] ?? `none-${++this.counter}`);

    app.post('/emails', async (req, res) => {
      if (!(await this.gate(res))) return;
      const m = this.accept('resend', keyOf(req), {
        to: req.body.to?.[0],
        from: req.body.from,
        subject: req.body.subject,
        text: req.body.text,
        html: req.body.html ?? null,
        headers: req.body.headers,
      });
      res.json({ id: m.id });
    });
    app.post('/2010-04-01/Accounts/:sid/Messages.json', async (req, res) => {
      if (!(await this.gate(res))) return;
      const m = this.accept('twilio', keyOf(req), {
        to: req.body.To,
        from: req.body.From ?? null,
        subject: null,
        text: req.body.Body,
      });
      res.status(201).json({ sid: m.id, status: 'queued' });
    });
    // WhatsApp Cloud message templates: created PENDING; `templateStatuses` says what a status read answers.
    app.post('/:version/:accountId/message_templates', async (req, res) => {
      if (!(await this.gate(res))) return;
      const id = `tpl-${++this.counter}`;
      this.templates.set(id, { name: req.body.name, body: req.body.components?.[0]?.text, status: 'PENDING' });
      res.json({ id, status: 'PENDING', category: req.body.category });
    });
    app.delete('/:version/:accountId/message_templates', (req, res) => {
      this.deletedTemplates.push(String(req.query.name));
      for (const [id, t] of this.templates) if (t.name === req.query.name) this.templates.delete(id);
      res.json({ success: true });
    });
    app.get('/:version/:templateId', (req, res) => {
      const t = this.templates.get(req.params.templateId);
      if (!t) return res.status(404).json({ error: { message: 'no such template' } });
      res.json({ id: req.params.templateId, status: t.status, ...(t.reason ? { rejected_reason: t.reason } : {}) });
    });
    app.post('/:version/:phoneNumberId/messages', async (req, res) => {
      if (!(await this.gate(res))) return;
      const m = this.accept('whatsapp_cloud', keyOf(req), {
        to: req.body.to,
        from: req.params.phoneNumberId,
        subject: null,
        text: req.body.text?.body,
      });
      res.json({ messaging_product: 'whatsapp', messages: [{ id: m.id }] });
    });
    // An OpenAI-compatible chat completion: echoes the prompt's first line, so tests can see it was used.
    app.post('/v1/chat/completions', async (req, res) => {
      if (!(await this.gate(res))) return;
      const user = String(req.body.messages?.find((m: { role: string }) => m.role === 'user')?.content ?? '');
      res.json({
        id: `chat-${++this.counter}`,
        choices: [{ index: 0, message: { role: 'assistant', content: `AI says: ${user.split('\n')[0]}` } }],
      });
    });
    app.post('/v1/projects/:project/messages\\:send', async (req, res) => {
      if (!(await this.gate(res))) return;
      const m = this.accept('fcm', keyOf(req), {
        to: req.body.message?.token,
        from: null,
        subject: req.body.message?.notification?.title ?? null,
        text: req.body.message?.notification?.body,
      });
      res.json({ name: `projects/${req.params.project}/messages/${m.id}` });
    });

    this.http = http.createServer(app);
    await new Promise<void>((resolve) => this.http!.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.http.address() as AddressInfo).port}`;

    this.smtp = this.createSmtp();
    await new Promise<void>((resolve) => this.smtp!.listen(0, '127.0.0.1', resolve));
    this.smtpPort = ((this.smtp as unknown as { server: http.Server }).server.address() as AddressInfo).port;
    return this;
  }

  /** The SMTP server goes away: open connections are dropped and new ones refused, until `resumeSmtp`. */
  async pauseSmtp(): Promise<void> {
    const smtp = this.smtp!;
    this.smtp = undefined;
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  }

  /** The SMTP server is back, on the same port. */
  async resumeSmtp(): Promise<void> {
    this.smtp = this.createSmtp();
    await new Promise<void>((resolve) => this.smtp!.listen(this.smtpPort, '127.0.0.1', resolve));
  }

  private createSmtp(): SMTPServer {
    const server = new SMTPServer({
      authOptional: true,
      // Plain-text AUTH is fine on a loopback test server; any credentials pass and are recorded.
      allowInsecureAuth: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      // Clients keep pooled connections open; a stopping fake hangs up on them instead of waiting 30 s.
      closeTimeout: 100,
      onConnect: (_session, callback) => {
        this.smtpConnections++;
        callback();
      },
      onAuth: (auth, _session, callback) =>
        callback(null, { user: { username: auth.username ?? '', password: auth.password ?? '' } }),
      onData: (stream, session, callback) => {
        let raw = '';
        stream.on('data', (chunk: Buffer) => {
          raw += chunk.toString();
        });
        // A failure while answering goes back to the SMTP client, not into an unhandled rejection.
        stream.on('end', () => {
          void answer().catch((err: Error) => callback(err));
        });
        const answer = async () => {
          this.requests++;
          if (this.latencyMs) await new Promise((r) => setTimeout(r, this.latencyMs));
          const fault = this.faults.shift();
          if (fault && 'hang' in fault) return;
          if (fault)
            return callback(
              Object.assign(new Error(`fake SMTP answers ${fault.status}`), {
                responseCode: fault.status >= 500 ? 451 : 550,
              }),
            );
          const header = (name: string) => new RegExp(`^${name}:\\s*(.+)$`, 'im').exec(raw)?.[1]?.trim() ?? null;
          const body = raw
            .split(/\r?\n\r?\n/)
            .slice(1)
            .join('\n\n')
            .trim();
          const m = this.accept(
            'smtp',
            // SMTP carries no idempotency key: the sender's stable Message-ID is what a receiver drops a repeat by.
            header('Message-ID') ?? `none-${++this.counter}`,
            {
              to: session.envelope.rcptTo[0]?.address,
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : null,
              subject: header('Subject'),
              text: body,
              messageId: header('Message-ID'),
              ...(session.user ? { auth: session.user as { username: string; password: string } } : {}),
            },
          );
          callback(null, `queued as ${m.id}`);
        };
      },
    });
    // A client's socket reset (a SIGKILLed worker, a pause that drops the pool) is the client's news, not a crash here.
    server.on('error', () => undefined);
    return server;
  }

  async stop(): Promise<void> {
    this.http?.closeAllConnections();
    await new Promise<void>((resolve) => (this.http ? this.http.close(() => resolve()) : resolve()));
    await new Promise<void>((resolve) => (this.smtp ? this.smtp.close(() => resolve()) : resolve()));
  }
}
