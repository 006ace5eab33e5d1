import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { Agent, request } from 'undici';
import type { Db } from '../../db/knex';
import type { SecretBox } from '../platform/secretBox';
import type { WebhookAttemptInput, WebhookAttemptResult } from '../../workflows/contracts/webhookDelivery';
import { isPrivateAddress } from './urlGuard';

/** One attempt of a webhook delivery: sign, POST, record (docs/EVENTS.md). */

const ATTEMPT_TIMEOUT_MS = 10_000;
const MAX_ERROR_LENGTH = 500;

/** Connections that refuse a host resolving to a private address at connect time (DNS may change after the save). */
const guardedAgent = new Agent({
  connect: {
    lookup: (hostname, options, callback) => {
      dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
        if (err) return callback(err, '', 0);
        const bad = addresses.find((a) => isPrivateAddress(a.address));
        if (bad) return callback(new Error(`${hostname} resolves to a private address (${bad.address})`), '', 0);
        if ((options as { all?: boolean }).all)
          return (callback as (e: null, a: LookupAddress[]) => void)(null, addresses);
        callback(null, addresses[0].address, addresses[0].family);
      });
    },
  },
});
const plainAgent = new Agent();

export interface AttemptDeps {
  db: Db;
  secretBox: SecretBox;
  allowPrivate: boolean;
}

/** A delivery's event and its endpoint, as one read joins them (here and in batches). */
export interface EventAtEndpoint {
  url: string;
  headers: Record<string, string>;
  secret_encrypted: string;
  enabled: boolean;
  type: string;
  data: unknown;
  event_created_at: Date;
}

interface Target extends EventAtEndpoint {
  id: string;
  team_id: string;
  status: string;
}

/** The body every receiver gets: `{ type, timestamp, data }` (timestamp: when the event happened). */
export function webhookBody(event: { type: string; createdAt: Date; data: unknown }): string {
  return JSON.stringify({ type: event.type, timestamp: event.createdAt.toISOString(), data: event.data });
}

export async function attemptDelivery(deps: AttemptDeps, input: WebhookAttemptInput): Promise<WebhookAttemptResult> {
  const { db } = deps;
  const target: Target | undefined = await db('webhook_deliveries as d')
    .join('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .join('platform_events as ev', 'ev.id', 'd.event_id')
    .where('d.id', input.deliveryId)
    .first(
      'd.id',
      'd.team_id',
      'd.status',
      'e.url',
      'e.headers',
      'e.secret_encrypted',
      'e.enabled',
      'ev.type',
      'ev.data',
      'ev.created_at as event_created_at',
    );
  if (!target) return { outcome: 'gone', statusCode: null };
  if (target.status === 'delivered') return { outcome: 'delivered', statusCode: null };
  if (!target.enabled) {
    await recordAttempts(db, [{ id: target.id, attempt: input.attempt, nextDelaySeconds: null, ...ENDPOINT_DISABLED }]);
    return { outcome: 'gone', statusCode: null };
  }
  const signer = new Webhook(deps.secretBox.decrypt<string>(target.secret_encrypted));
  const result = await postWebhook(deps.allowPrivate, target, signer, target.id, webhookBody(bodyOf(target)));
  await recordAttempts(db, [
    { id: target.id, attempt: input.attempt, nextDelaySeconds: input.nextDelaySeconds, ...result },
  ]);
  return { outcome: result.error === null ? 'delivered' : 'retry', statusCode: result.statusCode };
}

export const bodyOf = (row: Pick<Target, 'type' | 'data' | 'event_created_at'>) => ({
  type: row.type,
  createdAt: row.event_created_at,
  data: row.data,
});

/** What one POST came to: a 2xx (error null), another status, or no answer (statusCode null). */
export interface PostResult {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/** An attempt not made: the endpoint was disabled since the event. */
export const ENDPOINT_DISABLED: PostResult = { statusCode: null, error: 'the endpoint is disabled', durationMs: 0 };

/**
 * One signed POST over the pooled connections (the guarded ones unless private URLs are allowed):
 * `webhook-id` is the delivery id, the signature is made now. Never throws.
 */
export async function postWebhook(
  allowPrivate: boolean,
  endpoint: Pick<Target, 'url' | 'headers'>,
  signer: Webhook,
  webhookId: string,
  body: string,
): Promise<PostResult> {
  const now = new Date();
  const started = Date.now();
  let statusCode: number | null = null;
  let error: string | null = null;
  try {
    const host = new URL(endpoint.url).hostname.replace(/^\[|\]$/g, '');
    if (!allowPrivate && isIP(host) && isPrivateAddress(host)) throw new Error(`${host} is a private address`);
    // undici's request, not fetch: the same pooled connections for a fraction of the work per POST.
    const res = await request(endpoint.url, {
      method: 'POST',
      headers: {
        ...endpoint.headers,
        'content-type': 'application/json',
        'webhook-id': webhookId,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': signer.sign(webhookId, now, body),
        'user-agent': 'team-agent-platform-webhooks/1',
      },
      body,
      // A redirect is not followed (request never does): it is a failed attempt like any non-2xx.
      dispatcher: allowPrivate ? plainAgent : guardedAgent,
      signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
    });
    statusCode = res.statusCode;
    // The answer's body is not kept; it is read so the connection can be reused.
    await res.body.dump().catch(() => undefined);
    if (statusCode < 200 || statusCode >= 300) error = `HTTP ${statusCode}`;
  } catch (err) {
    const cause = (err as { cause?: { message?: string; code?: string } }).cause;
    error = [(err as Error).message, cause?.code ?? cause?.message].filter(Boolean).join(': ');
  }
  return { statusCode, error, durationMs: Date.now() - started };
}

/** One attempt's outcome, to record; nextDelaySeconds null: no attempt follows (the last one, or the endpoint disabled). */
export interface AttemptRecord extends PostResult {
  id: string;
  attempt: number;
  nextDelaySeconds: number | null;
}

/**
 * Attempts and their deliveries' summaries in one statement: each attempt row (keyed by its
 * number: a repeated activity overwrites it) and its delivery's status, attempt count, last answer
 * and next attempt. Delivered on a 2xx; else failed when no attempt follows, pending otherwise.
 * A delivery already delivered is left as it is.
 */
export async function recordAttempts(db: Db, attempts: AttemptRecord[]): Promise<void> {
  if (!attempts.length) return;
  const column = <T>(pick: (a: AttemptRecord) => T) => attempts.map(pick) as unknown as string[];
  await db.raw(
    `WITH v AS (
       SELECT * FROM unnest(?::text[], ?::int[], ?::int[], ?::text[], ?::int[], ?::text[], ?::int[])
         AS v(id, attempt, status_code, error, duration_ms, status, next_delay)
     ), attempt_rows AS (
       INSERT INTO webhook_attempts (delivery_id, attempt, team_id, status_code, error, duration_ms)
       SELECT d.id, v.attempt, d.team_id, v.status_code, v.error, v.duration_ms
       FROM v JOIN webhook_deliveries d USING (id)
       ON CONFLICT (delivery_id, attempt) DO UPDATE
         SET status_code = excluded.status_code, error = excluded.error, duration_ms = excluded.duration_ms
     )
     UPDATE webhook_deliveries d SET
       status = v.status,
       attempts = greatest(d.attempts, v.attempt),
       last_status_code = v.status_code,
       last_error = v.error,
       delivered_at = CASE WHEN v.status = 'delivered' THEN now() END,
       next_attempt_at = CASE WHEN v.status = 'pending' THEN now() + make_interval(secs => v.next_delay) END
     FROM v
     WHERE d.id = v.id AND d.status <> 'delivered'`,
    [
      column((a) => a.id),
      column((a) => a.attempt),
      column((a) => a.statusCode),
      column((a) => a.error?.slice(0, MAX_ERROR_LENGTH) ?? null),
      column((a) => a.durationMs),
      column((a) => (a.error === null ? 'delivered' : a.nextDelaySeconds === null ? 'failed' : 'pending')),
      column((a) => a.nextDelaySeconds),
    ],
  );
}
