import { z } from 'zod';
import type { Db } from '../db/knex';
import { newId } from '../db/ids';
import { openSmtpPool, SmtpSendError, type SmtpMail, type SmtpRefusal } from './smtpSender';
import { bearer, HTTP_CONNECTIONS_PER_INTEGRATION, httpPool, providerRequest } from './http';
import { Channel, type OutboundMessage, PooledProvider, ProviderError, type SendAttempt } from './types';

const baseUrl = (fallback: string) =>
  z
    .url({ protocol: /^https?$/ })
    .default(fallback)
    .transform((u) => u.replace(/\/+$/, ''));

/**
 * Every provider: the channels it serves, its settings (`config`, stored as is) and its
 * credentials (`secrets`, stored encrypted). Base URLs are settings, so tests and benchmarks
 * point the real adapters at the local fake provider server.
 */
export const providerDefinitions = {
  sandbox: { channels: ['email', 'sms', 'whatsapp', 'push'], config: z.strictObject({}), secrets: z.strictObject({}) },
  smtp: {
    channels: ['email'],
    config: z.strictObject({
      host: z.string().min(1),
      port: z.number().int().min(1).max(65535).default(587),
      secure: z.boolean().default(false),
      /** Connections the pool keeps open to the server, per worker process (a bulk send keeps them all busy). */
      maxConnections: z.number().int().min(1).max(100).default(20),
      /** Messages sent over one connection before it is replaced (servers cap a session). */
      maxMessages: z.number().int().min(1).max(100_000).default(1000),
    }),
    secrets: z.strictObject({ username: z.string().optional(), password: z.string().optional() }),
  },
  resend: {
    channels: ['email'],
    config: z.strictObject({ baseUrl: baseUrl('https://api.resend.com') }),
    secrets: z.strictObject({ apiKey: z.string().min(1) }),
  },
  twilio: {
    channels: ['sms'],
    config: z.strictObject({ baseUrl: baseUrl('https://api.twilio.com'), accountSid: z.string().min(1) }),
    secrets: z.strictObject({ authToken: z.string().min(1) }),
  },
  whatsapp_cloud: {
    channels: ['whatsapp'],
    config: z.strictObject({
      baseUrl: baseUrl('https://graph.facebook.com'),
      apiVersion: z.string().default('v19.0'),
      phoneNumberId: z.string().min(1),
      /** The WhatsApp Business Account that owns message templates (needed to submit campaign templates). */
      businessAccountId: z.string().min(1).optional(),
    }),
    secrets: z.strictObject({ accessToken: z.string().min(1) }),
  },
  fcm: {
    channels: ['push'],
    config: z.strictObject({ baseUrl: baseUrl('https://fcm.googleapis.com'), projectId: z.string().min(1) }),
    secrets: z.strictObject({ accessToken: z.string().min(1) }),
  },
} as const satisfies Record<string, { channels: readonly Channel[]; config: z.ZodType; secrets: z.ZodType }>;

export type ProviderName = keyof typeof providerDefinitions;
export const providerNameSchema = z.enum(Object.keys(providerDefinitions) as [ProviderName, ...ProviderName[]]);

type Config<P extends ProviderName> = z.infer<(typeof providerDefinitions)[P]['config']>;
type Secrets<P extends ProviderName> = z.infer<(typeof providerDefinitions)[P]['secrets']>;

/** Records the message in the team's outbox (GET /v1/outbox): everything works offline. */
function sandbox(db: Db, teamId: string): PooledProvider {
  return {
    // One insert per message on the caller's database pool: a few at a time.
    concurrency: 10,
    close: async () => undefined,
    async send(message) {
      const [row] = await db('outbox')
        .insert({
          id: newId('msg'),
          team_id: teamId,
          channel: message.channel,
          from_address: message.from,
          to_address: message.to,
          subject: message.subject ?? null,
          body: message.text,
          idempotency_key: message.idempotencyKey,
        })
        .onConflict('idempotency_key')
        .merge({ idempotency_key: db.raw('excluded.idempotency_key') })
        .returning('id');
      return { providerMessageId: row.id };
    },
  };
}

/**
 * The Message-ID of the message sent with `idempotencyKey`: the key itself, spelled in a
 * Message-ID's characters (ids joined by `:` become ids joined by `.`; a key of another shape has
 * each byte outside letters, digits, `_` and `-` written `=XX`). The same key always gives the
 * same Message-ID, so a receiver drops a repeat; and keys that sort give Message-IDs that sort
 * the same way, so recording a campaign's chunk appends to the provider-message index instead of
 * landing on a random page per message.
 */
export function smtpMessageId(idempotencyKey: string, domain: string): string {
  // Our keys are ids joined by `:`; only another shape takes the byte-by-byte path.
  const local = /^[\w-]+(:[\w-]+)*$/.test(idempotencyKey)
    ? idempotencyKey.replaceAll(':', '.')
    : Array.from(Buffer.from(idempotencyKey, 'utf8'), (byte) =>
        /[\w-]/.test(String.fromCharCode(byte))
          ? String.fromCharCode(byte)
          : `=${byte.toString(16).toUpperCase().padStart(2, '0')}`,
      ).join('');
  return `<${local}@${domain}>`;
}

function smtp(config: Config<'smtp'>, secrets: Secrets<'smtp'>): PooledProvider {
  // Every socket has TCP_NODELAY (channels/smtpWire.js): without it each message would wait out
  // the server's delayed ACK. The pool lives on the SMTP sender thread.
  const pool = openSmtpPool({
    maxConnections: config.maxConnections,
    maxMessages: config.maxMessages,
    host: config.host,
    port: config.port,
    secure: config.secure,
    auth: secrets.username ? { user: secrets.username, pass: secrets.password } : undefined,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 15_000,
  });
  return {
    // One message on each connection and one queued behind it, so no connection waits for the next.
    concurrency: config.maxConnections * 2,
    close: () => pool.close(),
    ready: () => pool.ready(),
    async send(message) {
      const mail = smtpMail(message);
      try {
        return { providerMessageId: (await pool.send(mail)) ?? mail.messageId };
      } catch (err) {
        throw smtpRefusal((err as Error).message, err instanceof SmtpSendError ? err.responseCode : undefined);
      }
    },
    async sendMany(messages) {
      const mails = messages.map(smtpMail);
      const refusals = await pool.sendMany(mails).catch((err: Error) => {
        const code = err instanceof SmtpSendError ? err.responseCode : undefined;
        return mails.map((_, index): SmtpRefusal => ({ index, message: err.message, responseCode: code }));
      });
      const attempts: SendAttempt[] = mails.map((mail) => ({ providerMessageId: mail.messageId }));
      for (const r of refusals) attempts[r.index] = { error: smtpRefusal(r.message, r.responseCode) };
      return attempts;
    },
  };
}

/** A message as the SMTP thread takes it, with the Message-ID its key gives. */
function smtpMail(message: OutboundMessage): SmtpMail {
  // SMTP has no idempotency header; a stable Message-ID lets the receiving side drop a repeat.
  const at = message.from?.lastIndexOf('@') ?? -1;
  const domain = at === -1 ? 'localhost' : message.from!.slice(at + 1).replace(/>.*$/, '');
  const mail: SmtpMail = {
    to: message.to,
    subject: message.subject ?? '',
    text: message.text,
    messageId: smtpMessageId(message.idempotencyKey, domain),
  };
  // Absent, not undefined: the message crosses to the thread, and an absent field costs nothing there.
  if (message.from) mail.from = message.from;
  if (message.html !== undefined) mail.html = message.html;
  if (message.headers) mail.headers = message.headers;
  return mail;
}

/** SMTP 4xx replies are transient by definition, 5xx permanent; no reply at all: try again. */
const smtpRefusal = (message: string, code: number | undefined) =>
  new ProviderError(`smtp: ${message}`, code === undefined || code < 500, code);

function resend(config: Config<'resend'>, secrets: Secrets<'resend'>): PooledProvider {
  const pool = httpPool();
  return {
    concurrency: 2 * HTTP_CONNECTIONS_PER_INTEGRATION,
    close: () => pool.close(),
    async send(message) {
      const body = await providerRequest<{ id: string }>('resend', `${config.baseUrl}/emails`, {
        pool,
        headers: { ...bearer(secrets.apiKey), 'idempotency-key': message.idempotencyKey },
        json: {
          from: message.from,
          to: [message.to],
          subject: message.subject ?? '',
          text: message.text,
          ...(message.html ? { html: message.html } : {}),
          ...(message.headers ? { headers: message.headers } : {}),
        },
      });
      return { providerMessageId: body.id };
    },
  };
}

function twilio(config: Config<'twilio'>, secrets: Secrets<'twilio'>): PooledProvider {
  const pool = httpPool();
  return {
    concurrency: 2 * HTTP_CONNECTIONS_PER_INTEGRATION,
    close: () => pool.close(),
    async send(message) {
      const body = await providerRequest<{ sid: string }>(
        'twilio',
        `${config.baseUrl}/2010-04-01/Accounts/${encodeURIComponent(config.accountSid)}/Messages.json`,
        {
          pool,
          headers: {
            authorization: `Basic ${Buffer.from(`${config.accountSid}:${secrets.authToken}`).toString('base64')}`,
            'i-twilio-idempotency-token': message.idempotencyKey,
          },
          form: { To: message.to, ...(message.from ? { From: message.from } : {}), Body: message.text },
        },
      );
      return { providerMessageId: body.sid };
    },
  };
}

function whatsappCloud(config: Config<'whatsapp_cloud'>, secrets: Secrets<'whatsapp_cloud'>): PooledProvider {
  const pool = httpPool();
  return {
    concurrency: 2 * HTTP_CONNECTIONS_PER_INTEGRATION,
    close: () => pool.close(),
    async send(message) {
      const body = await providerRequest<{ messages: { id: string }[] }>(
        'whatsapp',
        `${config.baseUrl}/${config.apiVersion}/${encodeURIComponent(config.phoneNumberId)}/messages`,
        {
          pool,
          headers: { ...bearer(secrets.accessToken), 'idempotency-key': message.idempotencyKey },
          json: {
            messaging_product: 'whatsapp',
            recipient_type: 'individual',
            to: message.to,
            type: 'text',
            text: { body: message.text },
          },
        },
      );
      return { providerMessageId: body.messages[0].id };
    },
  };
}

function fcm(config: Config<'fcm'>, secrets: Secrets<'fcm'>): PooledProvider {
  const pool = httpPool();
  return {
    concurrency: 2 * HTTP_CONNECTIONS_PER_INTEGRATION,
    close: () => pool.close(),
    async send(message) {
      const body = await providerRequest<{ name: string }>(
        'fcm',
        `${config.baseUrl}/v1/projects/${encodeURIComponent(config.projectId)}/messages:send`,
        {
          pool,
          headers: { ...bearer(secrets.accessToken), 'idempotency-key': message.idempotencyKey },
          json: { message: { token: message.to, notification: { title: message.subject ?? '', body: message.text } } },
        },
      );
      return { providerMessageId: body.name };
    },
  };
}

/**
 * The adapter for a stored integration (config parsed, secrets already decrypted), holding its own
 * connections until closed. Send paths get it through `providerPools` (channels/pools.ts).
 */
export function createProvider(
  provider: ProviderName,
  config: unknown,
  secrets: unknown,
  context: { db: Db; teamId: string },
): PooledProvider {
  const definition = providerDefinitions[provider];
  const c = definition.config.parse(config ?? {});
  const s = definition.secrets.parse(secrets ?? {});
  switch (provider) {
    case 'sandbox':
      return sandbox(context.db, context.teamId);
    case 'smtp':
      return smtp(c as Config<'smtp'>, s as Secrets<'smtp'>);
    case 'resend':
      return resend(c as Config<'resend'>, s as Secrets<'resend'>);
    case 'twilio':
      return twilio(c as Config<'twilio'>, s as Secrets<'twilio'>);
    case 'whatsapp_cloud':
      return whatsappCloud(c as Config<'whatsapp_cloud'>, s as Secrets<'whatsapp_cloud'>);
    case 'fcm':
      return fcm(c as Config<'fcm'>, s as Secrets<'fcm'>);
  }
}

/** WhatsApp Cloud message templates: submit for approval, read the status, delete (best effort). */
export function whatsappTemplates(config: unknown, secrets: unknown) {
  const c = providerDefinitions.whatsapp_cloud.config.parse(config ?? {});
  const s = providerDefinitions.whatsapp_cloud.secrets.parse(secrets ?? {});
  const root = `${c.baseUrl}/${c.apiVersion}`;
  const account = () => {
    if (!c.businessAccountId)
      throw new ProviderError('whatsapp: the integration has no businessAccountId to own templates', false);
    return c.businessAccountId;
  };
  return {
    async submit(template: { name: string; language: string; category: string; body: string; examples: string[] }) {
      return providerRequest<{ id: string; status: string }>('whatsapp', `${root}/${account()}/message_templates`, {
        headers: bearer(s.accessToken),
        json: {
          name: template.name,
          language: template.language,
          category: template.category,
          components: [
            {
              type: 'BODY',
              text: template.body,
              ...(template.examples.length ? { example: { body_text: [template.examples] } } : {}),
            },
          ],
        },
      });
    },
    async status(templateId: string): Promise<{ status: string; rejectedReason?: string }> {
      const res = await fetch(`${root}/${encodeURIComponent(templateId)}?fields=status,rejected_reason`, {
        headers: bearer(s.accessToken),
        signal: AbortSignal.timeout(10_000),
      }).catch((err: Error) => {
        throw new ProviderError(`whatsapp: ${err.message}`, true);
      });
      if (!res.ok)
        throw new ProviderError(`whatsapp answered ${res.status}`, res.status >= 500 || res.status === 429, res.status);
      const body = (await res.json()) as { status: string; rejected_reason?: string };
      return { status: body.status, rejectedReason: body.rejected_reason };
    },
    async remove(name: string): Promise<void> {
      await fetch(`${root}/${account()}/message_templates?name=${encodeURIComponent(name)}`, {
        method: 'DELETE',
        headers: bearer(s.accessToken),
        signal: AbortSignal.timeout(10_000),
      });
    },
  };
}
