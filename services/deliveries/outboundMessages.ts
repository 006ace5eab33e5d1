import type { Knex } from 'knex';
import { z } from 'zod';
import { channelSchema, OutboundMessage, ProviderError } from '../../channels/types';
import type { Db } from '../../db/knex';
import type { SendingIntegration } from '../agents/integrations';
import { ErrorBody, errorBody, errorBodySchema } from '../platform/errors';
import { newTimeOrderedIds } from '../../db/ids';

/** What a message was sent for: a campaign recipient, a campaign's test send, an artifact delivery, a journey's send step, a form's confirmation link. */
export const outboundSourceKindSchema = z.enum(['campaign', 'campaign_test', 'delivery', 'automation', 'form']);

/** One provider call's outcome, as every send path records it. */
export const outboundMessageInputSchema = z.object({
  teamId: z.string(),
  agentId: z.string().nullable(),
  channel: channelSchema,
  contactId: z.string().nullable(),
  address: z.string(),
  provider: z.string(),
  /** The key the provider call carried; unique per team. */
  idempotencyKey: z.string(),
  sourceKind: outboundSourceKindSchema,
  /** Campaign id (campaign, campaign_test), warp execution id (delivery) or enrollment id (automation). */
  sourceId: z.string(),
  result: z.discriminatedUnion('status', [
    z.object({ status: z.literal('sent'), providerMessageId: z.string() }),
    z.object({ status: z.literal('failed'), error: errorBodySchema }),
  ]),
});
export type OutboundMessageInput = z.infer<typeof outboundMessageInputSchema>;

const COLUMNS = [
  'id',
  'team_id',
  'agent_id',
  'channel',
  'contact_id',
  'address',
  'provider',
  'provider_message_id',
  'status',
  'error',
  'idempotency_key',
  'source_kind',
  'source_id',
] as const;
const PLACEHOLDERS = '?, ?::uuid, ?::uuid, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?';

/**
 * Records one outbound message, the single writer of `outbound_messages`. A repeat with the same
 * idempotency key (a retried activity) finds the row instead of adding one, and never overwrites
 * a `sent` row.
 *
 * `gate` is the send's own status write (an UPDATE or INSERT with RETURNING): it runs in the same
 * statement, as a CTE, and the message is recorded only when it wrote a row. This keeps the hot
 * campaign path at one round trip per recipient.
 *
 * Returns the message id, or null when the gate wrote nothing or a `sent` row already holds the key.
 */
export async function recordOutboundMessage(
  db: Db | Knex.Transaction,
  message: OutboundMessageInput,
  gate?: Knex.QueryBuilder,
): Promise<string | null> {
  const values = [
    newTimeOrderedIds('msg', 1)[0],
    message.teamId,
    message.agentId,
    message.channel,
    message.contactId,
    message.address,
    message.provider,
    message.result.status === 'sent' ? message.result.providerMessageId : null,
    message.result.status,
    message.result.status === 'failed' ? JSON.stringify(message.result.error satisfies ErrorBody) : null,
    message.idempotencyKey,
    message.sourceKind,
    message.sourceId,
  ];
  const gated = gate?.toSQL();
  const sql =
    `${gated ? `WITH gate AS (${gated.sql}) ` : ''}` +
    insertOutboundMessages(`SELECT ${PLACEHOLDERS}${gated ? ' FROM gate LIMIT 1' : ''}`) +
    ' RETURNING id';
  const { rows } = await db.raw(sql, [...(gated?.bindings ?? []), ...values]);
  return rows[0]?.id ?? null;
}

/**
 * The INSERT of many outbound messages, for a statement that records a whole chunk of a bulk send:
 * `select` yields the columns in `OUTBOUND_COLUMNS` order. The same repeat rule as one message.
 */
export const insertOutboundMessages = (select: string) =>
  `INSERT INTO outbound_messages (${COLUMNS.join(', ')}) ${select} ` +
  'ON CONFLICT (team_id, idempotency_key) DO UPDATE SET status = EXCLUDED.status, provider_message_id = EXCLUDED.provider_message_id, ' +
  "error = EXCLUDED.error, address = EXCLUDED.address WHERE outbound_messages.status <> 'sent'";

/**
 * A bulk send's chunk as the rows `v` of the statement that records it: `$1` its outcomes as one
 * JSON value, read by `json_to_recordset` with `columns` (named as the outcomes' own fields), each
 * zipped with its new outbound message's id, `message_id` (`$2`). `chunkValues` gives both. One
 * JSON value, not a Postgres array a column, whose literal pg escapes element by element in
 * JavaScript: a bulk send's largest allocation after its messages (docs/BENCHMARKS.md › Run 49).
 */
export const chunkRows = (columns: string, names: string) =>
  `SELECT * FROM ROWS FROM (json_to_recordset($1::json) AS (${columns}), unnest(string_to_array($2::text, ',')))
     AS v(${names}, message_id)`;

/** `$1` and `$2` of a statement that reads its chunk with `chunkRows`. */
export const chunkValues = (outcomes: readonly object[]): [string, string] => [
  JSON.stringify(outcomes),
  newTimeOrderedIds('msg', outcomes.length).join(','),
];

export const OUTBOUND_COLUMNS = COLUMNS;

/** One email to one contact through an agent's integration, with what the message log records of it. */
export interface OneEmail {
  teamId: string;
  agentId: string;
  contactId: string;
  address: string;
  integration: Pick<SendingIntegration, 'provider' | 'from' | 'adapter'>;
  idempotencyKey: string;
  sourceKind: OutboundMessageInput['sourceKind'];
  sourceId: string;
  content: Pick<OutboundMessage, 'subject' | 'text' | 'html' | 'headers'>;
}

/**
 * Sends one email and logs it: `sent` with the provider's id, or, when the provider refuses it,
 * `failed` (then the ProviderError is rethrown). A retryable failure that the caller retries
 * itself (`retriedLater`) is not logged: the retry logs the outcome, once.
 */
export async function sendOneEmail(db: Db, email: OneEmail, opts: { retriedLater?: boolean } = {}): Promise<string> {
  const record = (result: OutboundMessageInput['result']) =>
    recordOutboundMessage(db, {
      teamId: email.teamId,
      agentId: email.agentId,
      channel: 'email',
      contactId: email.contactId,
      address: email.address,
      provider: email.integration.provider,
      idempotencyKey: email.idempotencyKey,
      sourceKind: email.sourceKind,
      sourceId: email.sourceId,
      result,
    });
  try {
    const sent = await email.integration.adapter.send({
      channel: 'email',
      to: email.address,
      from: email.integration.from,
      ...email.content,
      idempotencyKey: email.idempotencyKey,
    });
    await record({ status: 'sent', providerMessageId: sent.providerMessageId });
    return sent.providerMessageId;
  } catch (err) {
    if (err instanceof ProviderError && !(err.retryable && opts.retriedLater))
      await record({ status: 'failed', error: providerErrorBody(err) });
    throw err;
  }
}

/** A provider's refusal in the message log's (and the API's) envelope. */
export const providerErrorBody = (err: ProviderError): ErrorBody =>
  errorBody(err.retryable ? 'provider_unavailable' : 'provider_rejected', err.message, {
    providerStatus: err.status ?? null,
  });
