/**
 * The baseline of bench (d), as its own process (like the worker): the strongest simple program
 * that sends a campaign, without Temporal. It reads the campaign's pending recipients in chunks
 * (keyset on `seq`), renders the one placeholder with a string replace, sends every message
 * through one pooled transport with IN_FLIGHT sends outstanding (across chunk boundaries: the next
 * chunk is read and sent while the previous one's statuses are written), and marks each chunk
 * sent with one bulk UPDATE.
 *
 * Env: DATABASE_URL, CAMPAIGN_ID, TEAM_ID (whose contacts tagged `bench` are the audience), PROVIDER (`smtp` or `http`), SMTP_PORT (smtp), PROVIDER_URL
 * (http: the fake provider's base URL), CONNECTIONS, IN_FLIGHT, CHUNK (1000).
 * Prints the seconds from the start of its main function to its last status write, when it started
 * (ms since the epoch), and the CPU seconds it used meanwhile.
 */
import { createHmac } from 'node:crypto';
import nodemailer from 'nodemailer';
import { Agent } from 'undici';
import { createDb } from '../db/knex';

const SUBJECT = 'Hi {{first}}';
const TEXT = 'Hello {{first}}';
const FROM = 'news@bench.example';
const UNSUBSCRIBE_KEY = 'bench-unsubscribe-key';

/**
 * The same email the product sends, so both sides do the same work: a marketing email carries its
 * recipient's signed unsubscribe link in a footer and in List-Unsubscribe headers (RFC 8058).
 */
function withUnsubscribe(contactId: string, text: string) {
  const sig = createHmac('sha256', UNSUBSCRIBE_KEY).update(`unsubscribe:${contactId}`).digest('base64url');
  const url = `http://127.0.0.1:3000/v1/unsubscribe/${contactId}?sig=${sig}`;
  return {
    text: `${text}\n\n--\nYou receive this because you are a contact of ours. Unsubscribe: ${url}`,
    headers: { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  };
}

interface Recipient {
  seq: string;
  contact_id: string;
  address: string;
  first_name: string | null;
}

/** Sends one message; resolves with the id the provider gave it. */
type Send = (r: Recipient, subject: string, text: string) => Promise<string>;

function smtpSender(port: number, connections: number): { send: Send; close: () => Promise<void> } {
  // TCP_NODELAY: nodemailer 10.x calls socket.setNoDelay(true) on every socket it connects, pooled
  // ones included (node_modules/nodemailer/dist/cjs/smtp-connection/index.js, `_onConnect`), and
  // pipelines the envelope and DATA when the server offers PIPELINING (smtp-server does). No
  // getSocket override is needed.
  const transport = nodemailer.createTransport({
    pool: true,
    maxConnections: connections,
    maxMessages: Infinity,
    host: '127.0.0.1',
    port,
    secure: false,
  });
  return {
    async send(r, subject, text) {
      const info = await transport.sendMail({
        from: FROM,
        to: r.address,
        subject,
        ...withUnsubscribe(r.contact_id, text),
        // A stable Message-ID, as the product sends: the sink counts a repeated one.
        messageId: `<${process.env.CAMPAIGN_ID}.${r.contact_id}@bench.example>`,
      });
      return info.messageId;
    },
    close: async () => transport.close(),
  };
}

function httpSender(baseUrl: string, connections: number): { send: Send; close: () => Promise<void> } {
  const agent = new Agent({ connections, keepAliveTimeout: 30_000, keepAliveMaxTimeout: 60_000 });
  const origin = new URL(baseUrl).origin;
  return {
    async send(r, subject, text) {
      const res = await agent.request({
        origin,
        path: '/emails',
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: 'Bearer k',
          'idempotency-key': `${process.env.CAMPAIGN_ID}:${r.contact_id}:1`,
        },
        body: JSON.stringify({ from: FROM, to: [r.address], subject, ...withUnsubscribe(r.contact_id, text) }),
      });
      const body = (await res.body.json()) as { id: string };
      if (res.statusCode !== 200) throw new Error(`provider answered ${res.statusCode}: ${JSON.stringify(body)}`);
      return body.id;
    },
    close: () => agent.close(),
  };
}

/** At most `n` holders at a time, served in order. */
function semaphore(n: number) {
  const queue: (() => void)[] = [];
  let free = n;
  return {
    acquire: () => (free > 0 ? (free--, Promise.resolve()) : new Promise<void>((resolve) => queue.push(resolve))),
    release: () => {
      const next = queue.shift();
      if (next) next();
      else free++;
    },
  };
}

async function main(): Promise<void> {
  const started = performance.now();
  const startedAt = Date.now();
  const cpuAtStart = process.cpuUsage();
  const campaignId = process.env.CAMPAIGN_ID!;
  const connections = Number(process.env.CONNECTIONS);
  const inFlight = Number(process.env.IN_FLIGHT ?? 2 * connections);
  const chunk = Number(process.env.CHUNK ?? 1000);
  const db = createDb(process.env.DATABASE_URL!, { max: 4 });
  const sender =
    process.env.PROVIDER === 'http'
      ? httpSender(process.env.PROVIDER_URL!, connections)
      : smtpSender(Number(process.env.SMTP_PORT), connections);

  const read = async (afterSeq: string): Promise<Recipient[]> =>
    (
      await db.raw(
        `SELECT r.seq, r.contact_id, r.address, c.first_name
        FROM campaign_recipients r JOIN contacts c ON c.id = r.contact_id
        WHERE r.campaign_id = ? AND r.status = 'pending' AND r.seq > ?
        ORDER BY r.seq LIMIT ?`,
        [campaignId, afterSeq, chunk],
      )
    ).rows;
  const write = (rows: Recipient[], ids: string[]) =>
    db.raw(
      `UPDATE campaign_recipients r SET status = 'sent', provider_message_id = v.id, sent_at = now()
      FROM unnest(?::text[], ?::text[]) AS v(contact_id, id)
      WHERE r.campaign_id = ? AND r.contact_id = v.contact_id AND r.status = 'pending'`,
      [rows.map((r) => r.contact_id), ids, campaignId],
    );

  // The audience into recipients, in one statement and in the same (contact id) order as the product's
  // snapshot: the same work on both clocks, and the same in-order index writes.
  await db.raw(
    `INSERT INTO campaign_recipients (campaign_id, contact_id, status, address)
    SELECT ?, id, 'pending', email FROM contacts
    WHERE team_id = ? AND tags && ARRAY['bench'] AND email IS NOT NULL AND marketing_consent = 'granted' AND opted_out_at IS NULL
    ORDER BY id`,
    [campaignId, process.env.TEAM_ID!],
  );
  // As any bulk load should be: the statistics the chunk reads and writes are planned with.
  await db.raw('ANALYZE campaign_recipients');
  const slots = semaphore(inFlight);
  const sending: Promise<void>[] = [];
  const writes: Promise<unknown>[] = [];
  let next = read('0');
  for (;;) {
    const rows = await next;
    if (rows.length === 0) break;
    // The next chunk is read while this one sends.
    next = read(rows[rows.length - 1].seq);
    const ids: string[] = new Array(rows.length);
    const sent = Promise.all(
      rows.map(async (r, i) => {
        await slots.acquire();
        try {
          const first = r.first_name ?? '';
          ids[i] = await sender.send(r, SUBJECT.replace('{{first}}', first), TEXT.replace('{{first}}', first));
        } finally {
          slots.release();
        }
      }),
    );
    writes.push(sent.then(() => write(rows, ids)));
    sending.push(sent.then(() => undefined));
    // Two chunks queued at most: the sends never run dry, and memory stays flat at any audience size.
    if (sending.length >= 2) await sending.shift();
  }
  await Promise.all(writes);
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuAtStart);
  await sender.close();
  await db.destroy();
  process.stdout.write(`${seconds.toFixed(3)} ${startedAt} ${((cpu.user + cpu.system) / 1e6).toFixed(3)}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
