import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { Agent, fetch } from 'undici';
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

interface Target {
  id: string;
  team_id: string;
  status: string;
  url: string;
  headers: Record<string, string>;
  secret_encrypted: string;
  enabled: boolean;
  type: string;
  data: unknown;
  event_created_at: Date;
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
    await record(db, target, input, { statusCode: null, error: 'the endpoint is disabled', durationMs: 0 }, 'failed');
    return { outcome: 'gone', statusCode: null };
  }

  const body = webhookBody({ type: target.type, createdAt: target.event_created_at, data: target.data });
  const secret = deps.secretBox.decrypt<string>(target.secret_encrypted);
  const now = new Date();
  const signature = new Webhook(secret).sign(target.id, now, body);
  const started = Date.now();
  let statusCode: number | null = null;
  let error: string | null = null;
  try {
    const host = new URL(target.url).hostname.replace(/^\[|\]$/g, '');
    if (!deps.allowPrivate && isIP(host) && isPrivateAddress(host)) throw new Error(`${host} is a private address`);
    const res = await fetch(target.url, {
      method: 'POST',
      headers: {
        ...target.headers,
        'content-type': 'application/json',
        'webhook-id': target.id,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': signature,
        'user-agent': 'team-agent-platform-webhooks/1',
      },
      body,
      redirect: 'manual',
      dispatcher: deps.allowPrivate ? plainAgent : guardedAgent,
      signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
    });
    statusCode = res.status;
    // The answer's body is not kept; it is read so the connection can be reused.
    await res.arrayBuffer().catch(() => undefined);
    if (res.status < 200 || res.status >= 300) error = `HTTP ${res.status}`;
  } catch (err) {
    const cause = (err as { cause?: { message?: string; code?: string } }).cause;
    error = [(err as Error).message, cause?.code ?? cause?.message].filter(Boolean).join(': ');
  }
  const delivered = error === null;
  const status = delivered ? 'delivered' : input.nextDelaySeconds === null ? 'failed' : 'pending';
  await record(db, target, input, { statusCode, error, durationMs: Date.now() - started }, status);
  return { outcome: delivered ? 'delivered' : 'retry', statusCode };
}

/** The attempt row (keyed by its number: a repeated activity overwrites it) and the delivery's summary, together. */
async function record(
  db: Db,
  target: Pick<Target, 'id' | 'team_id'>,
  input: WebhookAttemptInput,
  attempt: { statusCode: number | null; error: string | null; durationMs: number },
  status: 'pending' | 'delivered' | 'failed',
): Promise<void> {
  const error = attempt.error?.slice(0, MAX_ERROR_LENGTH) ?? null;
  await db.transaction(async (trx) => {
    await trx('webhook_attempts')
      .insert({
        delivery_id: target.id,
        attempt: input.attempt,
        team_id: target.team_id,
        status_code: attempt.statusCode,
        error,
        duration_ms: attempt.durationMs,
      })
      .onConflict(['delivery_id', 'attempt'])
      .merge();
    await trx('webhook_deliveries')
      .where({ id: target.id })
      .whereNot({ status: 'delivered' })
      .update({
        status,
        attempts: trx.raw('greatest(attempts, ?)', [input.attempt]),
        last_status_code: attempt.statusCode,
        last_error: error,
        delivered_at: status === 'delivered' ? trx.fn.now() : null,
        next_attempt_at:
          status === 'pending' && input.nextDelaySeconds !== null
            ? trx.raw(`now() + make_interval(secs => ?)`, [input.nextDelaySeconds])
            : null,
      });
  });
}
