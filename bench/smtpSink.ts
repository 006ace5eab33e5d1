/**
 * The receiving end of bench (d), as its own process (spawned by bench/sink.ts with an IPC
 * channel), so neither sender shares an event loop with it.
 *
 * - An SMTP sink (`smtp-server`) on 127.0.0.1, any port: it counts each message once per RCPT TO
 *   address, and counts repeats by Message-ID (a Message-ID seen before is a repeat). It reads a
 *   message's header block only (for the Message-ID) and drains the rest; no body is kept.
 * - The fake HTTP provider of the test suite (test/fakes/providerServer.ts, Resend-style
 *   `POST /emails`), which keeps one message per idempotency key and counts repeats of a key.
 *
 * IPC: it sends `{ type: 'ready', smtpPort, httpBaseUrl }` once listening, then answers each
 * `{ id, cmd: 'counts' | 'reset', target: 'smtp' | 'http' }` with `{ id, counts? }`.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { FakeProviderServer } from '../test/fakes/providerServer';

/** What one side of the bench delivered, as the receiving end saw it. */
export interface SinkCounts {
  /** Messages received: SMTP transactions, or HTTP requests (one repeating an idempotency key counts too). */
  messages: number;
  /** Distinct recipient addresses. */
  recipients: number;
  /**
   * Recipients that received more than one message (SMTP), or more than one idempotency key (HTTP:
   * delivered twice even by a provider that drops a repeated key).
   */
  recipientsMoreThanOnce: number;
  /** Messages whose Message-ID (SMTP) or idempotency key (HTTP) had been seen before. */
  repeats: number;
  /** When the first and the last message arrived (ms since the epoch; 0: none). */
  firstAt: number;
  lastAt: number;
  /** CPU seconds the sink process used since the last reset (user + system), to see whether it was the bottleneck. */
  cpuSeconds: number;
}
export type SinkRequest = { id: number; cmd: 'counts' | 'reset'; target: 'smtp' | 'http' };
export type SinkReply = { id: number; counts?: SinkCounts } | { type: 'ready'; smtpPort: number; httpBaseUrl: string };

const perRecipient = new Map<string, number>();
const messageIds = new Set<string>();
let messages = 0;
let repeats = 0;
let firstAt = 0;
let lastAt = 0;
let cpuAtReset = process.cpuUsage();
const cpuSeconds = () => {
  const { user, system } = process.cpuUsage(cpuAtReset);
  return (user + system) / 1e6;
};

/** The Message-ID of an (unfolded) header block, or null. */
const messageIdOf = (head: string) => /^message-id:\s*(\S+)/im.exec(head.replace(/\r?\n[ \t]+/g, ' '))?.[1] ?? null;

const smtp = new SMTPServer({
  authOptional: true,
  allowInsecureAuth: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  // Senders keep pooled connections open; a stopping sink hangs up on them instead of waiting 30 s.
  closeTimeout: 100,
  onData(stream, session, callback) {
    let head = '';
    let headDone = false;
    stream.on('data', (chunk: Buffer) => {
      if (headDone) return;
      head += chunk.toString('latin1');
      const end = head.search(/\r?\n\r?\n/);
      if (end >= 0) {
        head = head.slice(0, end);
        headDone = true;
      } else if (head.length > 65_536) headDone = true;
    });
    stream.on('end', () => {
      messages++;
      lastAt = Date.now();
      firstAt ||= lastAt;
      for (const { address } of session.envelope.rcptTo) {
        const key = address.toLowerCase();
        perRecipient.set(key, (perRecipient.get(key) ?? 0) + 1);
      }
      const id = messageIdOf(head);
      if (id !== null) {
        if (messageIds.has(id)) repeats++;
        else messageIds.add(id);
      }
      callback(null, 'queued');
    });
  },
});

const http = new FakeProviderServer();

function smtpCounts(): SinkCounts {
  let more = 0;
  for (const n of perRecipient.values()) if (n > 1) more++;
  return {
    messages,
    recipients: perRecipient.size,
    recipientsMoreThanOnce: more,
    repeats,
    firstAt,
    lastAt,
    cpuSeconds: cpuSeconds(),
  };
}

function httpCounts(): SinkCounts {
  // The fake keeps one entry per idempotency key; a request repeating a key only raises its
  // `duplicates` (and is answered with the first id, as a real provider drops it).
  const keysPerRecipient = new Map<string, number>();
  let requests = 0;
  let first = 0;
  let last = 0;
  for (const m of http.messages.values()) {
    keysPerRecipient.set(m.to, (keysPerRecipient.get(m.to) ?? 0) + 1);
    requests += 1 + m.duplicates;
    first = first ? Math.min(first, m.receivedAt) : m.receivedAt;
    last = Math.max(last, m.receivedAt);
  }
  let more = 0;
  for (const n of keysPerRecipient.values()) if (n > 1) more++;
  return {
    messages: requests,
    recipients: keysPerRecipient.size,
    recipientsMoreThanOnce: more,
    repeats: http.totalDuplicates(),
    // The fake stamps a key's first request only.
    firstAt: first,
    lastAt: last,
    cpuSeconds: cpuSeconds(),
  };
}

function reset(target: SinkRequest['target']): void {
  if (target === 'smtp') {
    perRecipient.clear();
    messageIds.clear();
    messages = 0;
    repeats = 0;
    firstAt = 0;
    lastAt = 0;
  } else http.reset();
  cpuAtReset = process.cpuUsage();
}

async function main(): Promise<void> {
  if (!process.send) throw new Error('bench/smtpSink.ts runs as a child process with an IPC channel (bench/sink.ts)');
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  await http.start();
  const smtpPort = ((smtp as unknown as { server: { address(): AddressInfo } }).server.address() as AddressInfo).port;
  const reply = (message: SinkReply) => process.send!(message);
  process.on('message', (request: SinkRequest) => {
    if (request.cmd === 'reset') {
      reset(request.target);
      reply({ id: request.id });
    } else reply({ id: request.id, counts: request.target === 'smtp' ? smtpCounts() : httpCounts() });
  });
  // The parent going away (even killed) closes the channel: stop with it, never linger.
  process.on('disconnect', () => {
    void http.stop().finally(() => smtp.close(() => process.exit(0)));
    setTimeout(() => process.exit(0), 2_000).unref();
  });
  reply({ type: 'ready', smtpPort, httpBaseUrl: http.baseUrl });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
