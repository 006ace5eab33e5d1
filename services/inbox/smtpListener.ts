import { simpleParser } from 'mailparser';
import type { Logger } from 'pino';
import { SMTPServer, SMTPServerDataStream, SMTPServerSession } from 'smtp-server';
import type { Config } from '../../config';
import type { Db } from '../../db/knex';
import { agentOfInboxAddress, storeInboundMessage } from './inboxMessages';

/**
 * The inbound SMTP listener of the agents' receive-only mailboxes (docs/INBOX.md). It only
 * receives: no AUTH (nothing is relayed, and nothing is ever sent from these addresses), and each
 * recipient is checked at RCPT, so mail for another domain or an unknown agent is refused before
 * its data is sent.
 */

/** Recipients of one message: more are refused (452) so that a single message cannot fan out far. */
const MAX_RECIPIENTS = 50;

type InboxSettings = Pick<Config, 'INBOX_DOMAIN' | 'INBOX_SMTP_PORT' | 'INBOX_SMTP_HOST' | 'INBOX_MAX_BYTES'>;

export interface RunningInbox {
  port: number;
  close(): Promise<void>;
}

const smtpError = (responseCode: number, message: string) => Object.assign(new Error(message), { responseCode });

/** The agents each accepted RCPT named, kept on the session until its DATA. */
const recipientsOf = new WeakMap<
  SMTPServerSession,
  Map<string, { agent: { id: string; team_id: string }; to: string }>
>();

export async function startInboxListener(config: InboxSettings, db: Db, logger: Logger): Promise<RunningInbox> {
  const server = new SMTPServer({
    name: config.INBOX_DOMAIN,
    banner: 'receive-only agent mailboxes',
    // STARTTLS would need a certificate of the inbox domain; until one is configured, none is offered.
    disabledCommands: ['AUTH', 'STARTTLS'],
    authOptional: true,
    size: config.INBOX_MAX_BYTES,
    rejectOversized: true,
    maxClients: 200,
    // On stop, a connection still open gets 421 after this (npm start kills at 15 s).
    closeTimeout: 5000,
    logger: false,
    onMailFrom(_address, session, callback) {
      // A new transaction on the same connection starts with no recipients.
      recipientsOf.set(session, new Map());
      callback();
    },
    onRcptTo(address, session, callback) {
      const recipients = recipientsOf.get(session) ?? new Map();
      recipientsOf.set(session, recipients);
      if (recipients.size >= MAX_RECIPIENTS) return callback(smtpError(452, 'Too many recipients'));
      agentOfInboxAddress(db, address.address, config.INBOX_DOMAIN).then(
        (agent) => {
          if (agent === 'other_domain')
            return callback(smtpError(550, `Relay denied: only mail for @${config.INBOX_DOMAIN} is accepted`));
          if (!agent) return callback(smtpError(550, `No such mailbox: ${address.address}`));
          recipients.set(agent.id, { agent, to: address.address.toLowerCase() });
          callback();
        },
        (err: unknown) => {
          logger.error({ err }, 'inbox: recipient lookup failed');
          callback(smtpError(451, 'Temporary failure, try again later'));
        },
      );
    },
    onData(stream: SMTPServerDataStream, session, callback) {
      const chunks: Buffer[] = [];
      let bytes = 0;
      stream.on('data', (chunk: Buffer) => {
        // Past the limit the rest is read and dropped: the server answers 552 itself (rejectOversized).
        bytes += chunk.length;
        if (bytes <= config.INBOX_MAX_BYTES) chunks.push(chunk);
      });
      stream.on('end', () => {
        if (stream.sizeExceeded) return callback(smtpError(552, 'Message exceeds fixed maximum message size'));
        const recipients = [...(recipientsOf.get(session)?.values() ?? [])];
        const envelopeFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address || null : null;
        deliver(db, Buffer.concat(chunks), bytes, envelopeFrom, recipients).then(
          (stored) => {
            logger.info({ recipients: recipients.length, stored, size: bytes }, 'inbox: message received');
            callback(null, 'Message accepted');
          },
          (err: unknown) => {
            logger.error({ err }, 'inbox: storing a message failed');
            callback(smtpError(451, 'Temporary failure, try again later'));
          },
        );
      });
    },
  });
  server.on('error', (err) => logger.warn({ err }, 'inbox: connection error'));
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(config.INBOX_SMTP_PORT, config.INBOX_SMTP_HOST, () => {
      server.server.off('error', reject);
      resolve();
    });
  });
  const port = (server.server.address() as { port: number }).port;
  return {
    port,
    // Connections in a transaction are given a 421 and closed; the server stops accepting at once.
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** One parse, then one row and one event per agent named (a duplicate Message-ID stores nothing). */
async function deliver(
  db: Db,
  raw: Buffer,
  size: number,
  envelopeFrom: string | null,
  recipients: { agent: { id: string; team_id: string }; to: string }[],
): Promise<number> {
  const parsed = await simpleParser(raw, { skipImageLinks: true, skipTextToHtml: true, skipTextLinks: true });
  let stored = 0;
  for (const { agent, to } of recipients) {
    if (await storeInboundMessage(db, { agent, envelopeFrom, envelopeTo: to, parsed, size })) stored++;
  }
  return stored;
}
