import { createHash, randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../../db/knex';
import { AppError, databaseUnavailable } from './errors';

export const idempotencyKeySchema = z.string().min(1).max(255);

/** A response as it is stored for replay. */
export interface StoredResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** A claim's lease; the holder renews it while it works, so only a dead holder's claim expires. */
const LEASE_SECONDS = 30;
const RENEW_EVERY_MS = 10_000;
const RETENTION_HOURS = 24;
const WAIT_FOR_PEER_MS = 35_000;

function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export function requestFingerprint(body: unknown): string {
  return createHash('sha256').update(stableStringify(body)).digest('hex');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `execute` at most once per (team, operation, key). A repeat with the same body replays the
 * stored response (also to a request that arrives while the first is still running: it waits);
 * a repeat with another body is a 409 `conflict`. Failures of the server (5xx, crashes) release
 * the key so that the client's retry runs again. The holder renews its claim while it works; a
 * claim whose holder died expires after the lease, and every write is conditional on the claim
 * token, so a holder that lost its claim can neither overwrite nor release the new holder's.
 */
export async function runIdempotent(
  db: Db,
  scope: { teamId: string; operation: string; key: string },
  body: unknown,
  execute: () => Promise<StoredResponse>,
): Promise<StoredResponse & { replayed: boolean }> {
  const where = { team_id: scope.teamId, operation: scope.operation, key: scope.key };
  const fingerprint = requestFingerprint(body);
  const deadline = Date.now() + WAIT_FOR_PEER_MS;

  for (let attempt = 0; ; attempt++) {
    const claimToken = randomUUID();
    const claimed = await db.raw(
      `INSERT INTO idempotency_keys (team_id, operation, key, request_hash, state, locked_until, claim_token)
       VALUES (?, ?, ?, ?, 'in_progress', now() + make_interval(secs => ?), ?)
       ON CONFLICT (team_id, operation, key) DO UPDATE
         SET request_hash = EXCLUDED.request_hash, state = 'in_progress', locked_until = EXCLUDED.locked_until,
             claim_token = EXCLUDED.claim_token,
             created_at = now(), response_status = NULL, response_body = NULL, response_headers = NULL
         WHERE idempotency_keys.created_at < now() - make_interval(hours => ?)
            OR (idempotency_keys.state = 'in_progress' AND idempotency_keys.locked_until < now()
                AND idempotency_keys.request_hash = EXCLUDED.request_hash)
       RETURNING 1`,
      [scope.teamId, scope.operation, scope.key, fingerprint, LEASE_SECONDS, claimToken, RETENTION_HOURS],
    );
    if (claimed.rows.length > 0) {
      return { ...(await executeAndStore(db, { ...where, claim_token: claimToken }, execute)), replayed: false };
    }

    const existing = await db('idempotency_keys').where(where).first();
    if (!existing) continue; // released by a failed peer in between: claim again
    if (existing.request_hash !== fingerprint) {
      throw new AppError('conflict', 'This Idempotency-Key was already used with a different request body', {
        idempotencyKey: scope.key,
      });
    }
    if (existing.state === 'completed') {
      return {
        status: existing.response_status,
        body: existing.response_body,
        headers: existing.response_headers ?? undefined,
        replayed: true,
      };
    }
    if (Date.now() > deadline) {
      throw new AppError(
        'conflict',
        'A request with this Idempotency-Key is still being processed; retry later',
        {
          idempotencyKey: scope.key,
        },
        { 'Retry-After': '1' },
      );
    }
    await sleep(Math.min(25 * 2 ** Math.min(attempt, 5), 500));
  }
}

async function executeAndStore(
  db: Db,
  claim: Record<string, string>,
  execute: () => Promise<StoredResponse>,
): Promise<StoredResponse> {
  const renew = setInterval(() => {
    db('idempotency_keys')
      .where(claim)
      .update({ locked_until: db.raw('now() + make_interval(secs => ?)', [LEASE_SECONDS]) })
      .catch(() => undefined);
  }, RENEW_EVERY_MS);
  let response: StoredResponse;
  try {
    response = await execute();
  } catch (err) {
    if (err instanceof AppError && err.status < 500) {
      await complete(db, claim, { status: err.status, body: err.toBody(), headers: err.headers });
    } else if (databaseUnavailable(err)) {
      // Awaiting the release would hold the 503 as long again; if it fails too, the claim's lease
      // expires and the retry claims the key then.
      void db('idempotency_keys')
        .where(claim)
        .delete()
        .catch(() => undefined);
    } else {
      await db('idempotency_keys').where(claim).delete();
    }
    throw err;
  } finally {
    clearInterval(renew);
  }
  if (response.status >= 500) await db('idempotency_keys').where(claim).delete();
  else await complete(db, claim, response);
  return response;
}

async function complete(db: Db, claim: Record<string, string>, response: StoredResponse): Promise<void> {
  await db('idempotency_keys')
    .where(claim)
    .update({
      state: 'completed',
      claim_token: null,
      response_status: response.status,
      response_body: JSON.stringify(response.body),
      response_headers: response.headers ? JSON.stringify(response.headers) : null,
    });
}
