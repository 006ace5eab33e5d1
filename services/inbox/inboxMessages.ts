import type { AddressObject, ParsedMail } from 'mailparser';
import { z } from 'zod';
import type { Db } from '../../db/knex';
import { findAgent } from '../agents/agents';
import { recordEvent } from '../events/outbox';
import type { Principal } from '../identity/principal';
import { notFound } from '../platform/errors';
import { newId } from '../../db/ids';
import { keysetPage, Page, PageQuery } from '../platform/pagination';

/**
 * The agents' receive-only mailboxes (docs/INBOX.md): an agent's address is its uuid at
 * INBOX_DOMAIN. Messages the SMTP listener (services/inbox/smtpListener.ts) accepted are stored
 * here with their `email.received` event, and read through the API and MCP.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An agent's inbox address: its uuid (unique across teams, unlike its slug) at the inbox domain. */
export const inboxAddressOf = (agentId: string, inboxDomain: string) => `${agentId}@${inboxDomain}`.toLowerCase();

/** The agent an address names, if it is at the inbox domain and names an agent; null otherwise. */
export async function agentOfInboxAddress(
  db: Db,
  address: string,
  inboxDomain: string,
): Promise<{ id: string; team_id: string } | null | 'other_domain'> {
  const at = address.lastIndexOf('@');
  if (at < 1 || address.slice(at + 1).toLowerCase() !== inboxDomain.toLowerCase()) return 'other_domain';
  const local = address.slice(0, at);
  if (!UUID.test(local)) return null;
  const agent = await db('agents').where({ id: local.toLowerCase() }).first('id', 'team_id');
  return agent ?? null;
}

const addressSchema = z.object({ address: z.string(), name: z.string() });
type Address = z.infer<typeof addressSchema>;

export const inboxMessageSummarySchema = z.object({
  id: z.string(),
  agentId: z.uuid(),
  messageId: z.string().nullable().describe('The Message-ID header'),
  from: addressSchema.nullable(),
  to: z.array(addressSchema),
  subject: z.string().nullable(),
  snippet: z.string().describe('The start of the text body'),
  size: z.number().int().describe('Bytes as received'),
  hasAttachments: z.boolean(),
  contactId: z.string().nullable().describe("The team's contact whose email is the sender's, if any"),
  receivedAt: z.iso.datetime(),
});

export const inboxMessageSchema = inboxMessageSummarySchema.omit({ snippet: true, hasAttachments: true }).extend({
  cc: z.array(addressSchema),
  envelope: z.object({ from: z.string().nullable(), to: z.string() }).describe('SMTP MAIL FROM and RCPT TO'),
  text: z.string().nullable(),
  html: z.string().nullable(),
  headers: z
    .record(z.string(), z.union([z.string(), z.array(z.string())]))
    .describe('Date, Reply-To, In-Reply-To, References'),
  attachments: z
    .array(z.object({ filename: z.string().nullable(), contentType: z.string(), size: z.number().int() }))
    .describe('Names, types and sizes only: attachment contents are not kept'),
  sentAt: z.iso.datetime().nullable().describe('The Date header'),
});
export type InboxMessageJson = z.infer<typeof inboxMessageSchema>;
export type InboxMessageSummary = z.infer<typeof inboxMessageSummarySchema>;

interface InboxRow {
  seq: number;
  id: string;
  team_id: string;
  agent_id: string;
  message_id: string | null;
  envelope_from: string | null;
  envelope_to: string;
  from: Address[];
  to: Address[];
  cc: Address[];
  subject: string | null;
  text: string | null;
  html: string | null;
  headers: Record<string, string | string[]>;
  attachments: { filename: string | null; contentType: string; size: number }[];
  size: number;
  contact_id: string | null;
  sent_at: Date | null;
  received_at: Date;
}

const SNIPPET_CHARS = 200;

function presentSummary(row: InboxRow): InboxMessageSummary {
  return {
    id: row.id,
    agentId: row.agent_id,
    messageId: row.message_id,
    from: row.from[0] ?? null,
    to: row.to,
    subject: row.subject,
    snippet: (row.text ?? '').replace(/\s+/g, ' ').trim().slice(0, SNIPPET_CHARS),
    size: row.size,
    hasAttachments: row.attachments.length > 0,
    contactId: row.contact_id,
    receivedAt: row.received_at.toISOString(),
  };
}

function presentMessage(row: InboxRow): InboxMessageJson {
  const { snippet: _s, hasAttachments: _a, ...summary } = presentSummary(row);
  return {
    ...summary,
    cc: row.cc,
    envelope: { from: row.envelope_from, to: row.envelope_to },
    text: row.text,
    html: row.html,
    headers: row.headers,
    attachments: row.attachments,
    sentAt: row.sent_at?.toISOString() ?? null,
  };
}

const addressesOf = (value: AddressObject | AddressObject[] | undefined): Address[] =>
  (Array.isArray(value) ? value : value ? [value] : [])
    .flatMap((object) => object.value)
    .flatMap((entry) =>
      (entry.group ?? [entry]).map((e) => ({ address: (e.address ?? '').toLowerCase(), name: e.name })),
    )
    .filter((a) => a.address);

/** The headers kept besides the parsed fields: what threading a reply needs. */
function keptHeaders(parsed: ParsedMail): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  if (parsed.date) headers.date = parsed.date.toISOString();
  if (parsed.replyTo?.text) headers['reply-to'] = parsed.replyTo.text;
  if (parsed.inReplyTo) headers['in-reply-to'] = parsed.inReplyTo;
  if (parsed.references) headers.references = parsed.references;
  return headers;
}

export interface InboundMessage {
  agent: { id: string; team_id: string };
  envelopeFrom: string | null;
  envelopeTo: string;
  parsed: ParsedMail;
  size: number;
}

/**
 * Stores a message for one agent and records its `email.received` event in the same commit. A
 * Message-ID already stored for the agent stores and announces nothing (answers null).
 */
export async function storeInboundMessage(db: Db, inbound: InboundMessage): Promise<string | null> {
  const { agent, parsed } = inbound;
  const from = addressesOf(parsed.from);
  return db.transaction(async (trx) => {
    const contact = from[0]
      ? await trx('contacts')
          .where({ team_id: agent.team_id })
          .whereRaw('lower(email) = ?', [from[0].address])
          .first('id')
      : undefined;
    const [row]: InboxRow[] = await trx('inbox_messages')
      .insert({
        id: newId('inm'),
        team_id: agent.team_id,
        agent_id: agent.id,
        message_id: parsed.messageId ?? null,
        envelope_from: inbound.envelopeFrom,
        envelope_to: inbound.envelopeTo,
        from: JSON.stringify(from),
        to: JSON.stringify(addressesOf(parsed.to)),
        cc: JSON.stringify(addressesOf(parsed.cc)),
        subject: parsed.subject ?? null,
        text: parsed.text ?? null,
        html: parsed.html || null,
        headers: JSON.stringify(keptHeaders(parsed)),
        attachments: JSON.stringify(
          parsed.attachments.map((a) => ({ filename: a.filename ?? null, contentType: a.contentType, size: a.size })),
        ),
        size: inbound.size,
        contact_id: contact?.id ?? null,
        sent_at: parsed.date ?? null,
      })
      .onConflict(trx.raw('(agent_id, message_id) WHERE message_id IS NOT NULL'))
      .ignore()
      .returning('*');
    if (!row) return null;
    const message = presentSummary(row);
    await recordEvent(trx, {
      teamId: agent.team_id,
      type: 'email.received',
      subject: row.id,
      // Names the agent and the message; the body is read through the API or MCP.
      data: {
        agentId: agent.id,
        contactId: row.contact_id,
        message: {
          id: message.id,
          messageId: message.messageId,
          from: message.from,
          to: message.to,
          subject: message.subject,
          size: message.size,
          receivedAt: message.receivedAt,
        },
      },
    });
    return row.id;
  });
}

/** The agent a credential is bound to (an agent's own token or turn): it reads only its own inbox. */
function boundAgentOf(principal: Principal): string | null {
  if (principal.kind === 'agent') return principal.agentId;
  if (principal.kind === 'oauth') return principal.agentId;
  return null;
}

async function inboxAgent(db: Db, teamId: string, agentId: string, principal: Principal): Promise<string> {
  const bound = boundAgentOf(principal);
  if ((bound && bound !== agentId) || !(await findAgent(db, teamId, agentId))) throw notFound('Agent');
  return agentId;
}

/** An agent's messages, newest first, a page at a time (no bodies: `getInboxMessage` has them). */
export async function listInboxMessages(
  db: Db,
  teamId: string,
  agentId: string,
  principal: Principal,
  page: PageQuery,
): Promise<Page<InboxMessageSummary>> {
  await inboxAgent(db, teamId, agentId, principal);
  const query = db('inbox_messages').where({ team_id: teamId, agent_id: agentId }).select('*');
  return keysetPage(query, page, presentSummary, { newestFirst: true });
}

export async function getInboxMessage(
  db: Db,
  teamId: string,
  agentId: string,
  principal: Principal,
  messageId: string,
): Promise<InboxMessageJson> {
  await inboxAgent(db, teamId, agentId, principal);
  const row: InboxRow | undefined = await db('inbox_messages')
    .where({ team_id: teamId, agent_id: agentId, id: messageId })
    .first();
  if (!row) throw notFound('Message');
  return presentMessage(row);
}
