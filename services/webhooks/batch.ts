import { Webhook } from 'standardwebhooks';
import type { WebhookBatchSent } from '../../workflows/contracts/webhookBatch';
import {
  defaultWebhookRetryPolicy,
  retryDelaySeconds,
  type WebhookRetryPolicy,
} from '../../workflows/contracts/webhookDelivery';
import {
  type AttemptDeps,
  type AttemptRecord,
  bodyOf,
  ENDPOINT_DISABLED,
  type EventAtEndpoint,
  type PostResult,
  postWebhook,
  recordAttempts,
  webhookBody,
} from './send';
import { retryPoliciesOf } from './settings';

/**
 * The first attempts of a batch of deliveries (docs/EVENTS.md › Delivery in batches), POSTed with
 * at most BATCH_IN_FLIGHT in flight per batch, and per endpoint across every batch of this process
 * at most ENDPOINT_IN_FLIGHT in flight (so one slow receiver takes half a batch's slots at most,
 * and a burst to one receiver is not multiplied by the batches running) and at most
 * ENDPOINT_UNWRITTEN sent but not yet recorded. Answers are recorded in bulk, one write at a time
 * per batch: what arrives during a write goes in the next, which starts as soon as that one ends
 * (so writes grow with the rate and never wait for a timer). A first attempt counts once its row
 * is written: a worker killed mid-batch makes each endpoint receive again at most
 * ENDPOINT_UNWRITTEN webhooks it may already have had (the same webhook-id); the retried activity
 * sends only the unrecorded ones.
 */

export const BATCH_IN_FLIGHT = 100;
export const ENDPOINT_IN_FLIGHT = 50;
export const ENDPOINT_UNWRITTEN = 100;
const ENABLED_CHECK_MS = 500;
const PROGRESS_EVERY_MS = 2000;

/** A counting semaphore. */
class Slots {
  private waiting: (() => void)[] = [];
  constructor(private free: number) {}
  async take(): Promise<void> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
  }
  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

/** An endpoint's limits, shared by the batches of this process that send to it (dropped when none does). */
class EndpointGate {
  readonly inFlight = new Slots(ENDPOINT_IN_FLIGHT);
  /** Taken before the POST, given back once its answer is written. */
  readonly unwritten = new Slots(ENDPOINT_UNWRITTEN);
  users = 0;
}
const gates = new Map<string, EndpointGate>();
function enter(endpointId: string): EndpointGate {
  let gate = gates.get(endpointId);
  if (!gate) gates.set(endpointId, (gate = new EndpointGate()));
  gate.users++;
  return gate;
}
function leave(endpointId: string): void {
  if (--gates.get(endpointId)!.users === 0) gates.delete(endpointId);
}

interface Row extends EventAtEndpoint {
  id: string;
  endpoint_id: string;
  team_id: string;
}

export interface BatchHooks {
  /** Called after each recorded chunk, and every few seconds while POSTs are slow. */
  progress(recorded: number): void;
  /** Stop taking deliveries (the time is up, or the attempt was given up); those in flight are still recorded. */
  stopTaking(): boolean;
}

/** Makes the first attempt of each delivery of the batch not yet recorded; answers what is left. */
export async function sendBatch(deps: AttemptDeps, batchId: string, hooks: BatchHooks): Promise<WebhookBatchSent> {
  const { db } = deps;
  const rows: Row[] = await db('webhook_deliveries as d')
    .join('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .join('platform_events as ev', 'ev.id', 'd.event_id')
    .where({ 'd.batch_id': batchId, 'd.status': 'pending', 'd.attempts': 0 })
    .orderBy('d.seq')
    .select(
      'd.id',
      'd.endpoint_id',
      'd.team_id',
      'e.url',
      'e.headers',
      'e.secret_encrypted',
      'e.enabled',
      'ev.type',
      'ev.data',
      'ev.created_at as event_created_at',
    );
  // The teams' retry settings, read once: the first attempt's record says whether another follows.
  const policies = await retryPoliciesOf(
    db,
    rows.map((r) => r.team_id),
  );
  const policyOf = (teamId: string) => policies.get(teamId) ?? defaultWebhookRetryPolicy();
  const lanes = new Map<string, Row[]>();
  for (const row of rows) {
    if (!lanes.has(row.endpoint_id)) lanes.set(row.endpoint_id, []);
    lanes.get(row.endpoint_id)!.push(row);
  }
  /** Endpoints disabled (or deleted): their deliveries are recorded failed, not POSTed. */
  const off = new Set(rows.filter((r) => !r.enabled).map((r) => r.endpoint_id));
  const signers = new Map<string, Webhook>();
  const signerFor = (row: Row) => {
    let signer = signers.get(row.endpoint_id);
    if (!signer)
      signers.set(row.endpoint_id, (signer = new Webhook(deps.secretBox.decrypt<string>(row.secret_encrypted))));
    return signer;
  };

  /** Answers not yet written, each with the unwritten slot it gives back once it is. */
  let outcomes: { record: AttemptRecord; written: () => void }[] = [];
  let recorded = 0;
  let failure: unknown;
  let recording: Promise<void> | undefined;
  /** Writes what is waiting, then what came meanwhile, until nothing is; answers when all is written. */
  const flush = (): Promise<void> =>
    (recording ??= (async () => {
      while (outcomes.length) {
        const chunk = outcomes;
        outcomes = [];
        try {
          // After a failed write nothing more is written: the activity fails and its retry sends them.
          if (!failure) {
            await recordAttempts(
              db,
              chunk.map((o) => o.record),
            );
            recorded += chunk.length;
            hooks.progress(recorded);
          }
        } catch (err) {
          // Answers that cannot be written would only be POSTed again by the retry: stop taking more.
          failure ??= err;
        } finally {
          chunk.forEach((o) => o.written());
        }
      }
    })().finally(() => {
      recording = undefined;
      // Answers that came after the loop's last look.
      if (outcomes.length) void flush();
    }));
  const done = (row: Row, gate: EndpointGate, result: PostResult) => {
    const disabled = result === ENDPOINT_DISABLED;
    const policy = policyOf(row.team_id);
    const nextDelaySeconds = disabled || policy.maxAttempts < 2 ? null : retryDelaySeconds(policy, 2);
    outcomes.push({
      record: { id: row.id, attempt: 1, nextDelaySeconds, ...result },
      written: () => gate.unwritten.give(),
    });
    void flush();
  };

  const timers = [
    setInterval(() => hooks.progress(recorded), PROGRESS_EVERY_MS),
    setInterval(() => {
      db('webhook_endpoints')
        .whereIn('id', [...lanes.keys()])
        .where({ enabled: true })
        .pluck('id')
        .then((on: string[]) => lanes.forEach((_, id) => on.includes(id) || off.add(id)))
        .catch(() => undefined);
    }, ENABLED_CHECK_MS),
  ];

  const batchSlots = new Slots(BATCH_IN_FLIGHT);
  const sender = async (queue: Row[], gate: EndpointGate) => {
    while (!failure && !hooks.stopTaking() && queue.length) {
      await gate.unwritten.take();
      // The checks again: the slot may have taken a while.
      const row = failure || hooks.stopTaking() ? undefined : queue.shift();
      if (!row) {
        gate.unwritten.give();
        return;
      }
      if (off.has(row.endpoint_id)) {
        done(row, gate, ENDPOINT_DISABLED);
        continue;
      }
      await gate.inFlight.take();
      await batchSlots.take();
      try {
        done(row, gate, await postWebhook(deps.allowPrivate, row, signerFor(row), row.id, webhookBody(bodyOf(row))));
      } finally {
        batchSlots.give();
        gate.inFlight.give();
      }
    }
  };
  const endpoints = [...lanes.keys()];
  try {
    await Promise.all(
      endpoints.flatMap((endpointId) => {
        const queue = lanes.get(endpointId)!;
        const gate = enter(endpointId);
        return Array.from({ length: Math.min(ENDPOINT_IN_FLIGHT, queue.length) }, () => sender(queue, gate));
      }),
    );
    await flush();
    if (failure) throw failure;
  } finally {
    timers.forEach(clearInterval);
    await recording;
    endpoints.forEach(leave);
  }

  const left: { id: string; team_id: string; attempts: number }[] = await db('webhook_deliveries')
    .where({ batch_id: batchId, status: 'pending' })
    .whereIn('attempts', [0, 1])
    .orderBy('seq')
    .select('id', 'team_id', 'attempts');
  const retrying = left.filter((d) => d.attempts === 1);
  // Read again: a retried activity may not have read the teams of deliveries recorded before it.
  const retryPolicies = await retryPoliciesOf(
    db,
    retrying.map((d) => d.team_id),
  );
  return {
    remaining: left.filter((d) => d.attempts === 0).length,
    retrying: retrying.map((d) => d.id),
    ...customPolicies(retrying, retryPolicies),
  };
}

/** The settings of the teams that have some, each with its deliveries (the rest: the defaults). */
function customPolicies(
  retrying: { id: string; team_id: string }[],
  policies: Map<string, WebhookRetryPolicy>,
): Pick<WebhookBatchSent, 'retryPolicies'> {
  if (!policies.size) return {};
  return {
    retryPolicies: [...policies].map(([teamId, policy]) => ({
      policy,
      deliveryIds: retrying.filter((d) => d.team_id === teamId).map((d) => d.id),
    })),
  };
}
