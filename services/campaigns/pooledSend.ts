import { ProviderError, type OutboundMessage } from '../../channels/types';
import type { SendingIntegration } from '../agents/integrations';
import { errorBody, type ErrorBody } from '../platform/errors';
import type { SendPacer } from './sendPacer';

/**
 * The bulk send path shared by campaigns and automation cohorts (docs/CAMPAIGNS.md › Sending):
 * rows are claimed a chunk ahead, `adapter.concurrency` sends stay in flight through the
 * integration's pooled adapter (and its send rate, when it has one), and outcomes are recorded a
 * chunk per statement behind them, so the pool never waits for Postgres. A row stays unrecorded
 * until its chunk is written: after a crash only the sends that were in flight go out again,
 * with the same key.
 */

/** How far a bulk send has recorded: every row up to `lastSeq` (in `seq` order) is written. */
export interface SendPosition {
  recorded: number;
  lastSeq: number;
}

export interface SendHooks {
  /** Called after each recorded chunk, and every few seconds while sends are slow. */
  progress(position: SendPosition): void;
  /** Stop taking rows (the activity's time is up); what is in flight is still recorded. */
  stopTaking(): boolean;
}

/** What became of one row's send. */
export type SendResult =
  | { status: 'sent'; providerMessageId: string }
  | { status: 'failed'; error: ErrorBody }
  | { status: 'skipped'; skipReason: string };

export interface PooledSend<Row extends { seq: string }, Outcome> {
  integration: SendingIntegration;
  pacer: SendPacer | null;
  /** The most rows this call takes, and the seq it starts after. */
  limit: number;
  afterSeq: number;
  /** The next rows after `afterSeq`, in seq order (at most `limit`). */
  claim(afterSeq: number, limit: number): Promise<Row[]>;
  /** One row's send: its outcome (never throws for a provider's answer; throws to fail the whole call). */
  send(row: Row): Promise<Outcome>;
  /** Writes a chunk of outcomes in one statement; writing the same chunk twice changes nothing. */
  record(outcomes: Outcome[]): Promise<void>;
  /** Checked a few times a second: stop taking rows (a campaign's cancel). */
  cancelled?(): Promise<boolean>;
}

const IN_SEND_RETRIES_MS = [500, 1000, 2000];
const CANCEL_CHECK_MS = 250;
const FLUSH_EVERY_MS = 500;
const PROGRESS_EVERY_MS = 2000;

export async function sendInChunks<Row extends { seq: string }, Outcome>(
  job: PooledSend<Row, Outcome>,
  hooks: SendHooks,
): Promise<{ processed: number }> {
  const concurrency = job.integration.adapter.concurrency;
  const chunkSize = Math.min(job.limit, Math.max(250, concurrency * 10));
  if (job.pacer) await job.integration.adapter.ready?.();

  // The watermark: chunks in claim order, each open until all of its rows are recorded.
  type Chunk = { lastSeq: number; open: number };
  const chunks: Chunk[] = [];
  const queue: { row: Row; chunk: Chunk }[] = [];
  let claimedUpTo = job.afterSeq;
  let exhausted = false;
  let claiming: Promise<void> | undefined;
  let taken = 0;
  const claimMore = () =>
    (claiming ??= job
      .claim(claimedUpTo, Math.min(chunkSize, job.limit - taken - queue.length))
      .then((rows) => {
        if (rows.length) claimedUpTo = Number(rows[rows.length - 1].seq);
        if (rows.length < chunkSize) exhausted = true;
        const chunk = { lastSeq: claimedUpTo, open: rows.length };
        chunks.push(chunk);
        queue.push(...rows.map((row) => ({ row, chunk })));
      })
      .catch(fail)
      .finally(() => (claiming = undefined)));

  const position: SendPosition = { recorded: 0, lastSeq: job.afterSeq };
  let outcomes: { outcome: Outcome; chunk: Chunk }[] = [];
  /** Outcomes sent but not yet written: what a crash now would send again. */
  let unrecorded = 0;
  /** The first error: every sender stops taking rows, and the call fails with it once those out are recorded. */
  let failure: unknown;
  let broken = false;
  function fail(err: unknown) {
    failure ??= err;
    broken = true;
  }
  let recording: Promise<void> = Promise.resolve();
  const flush = () => {
    if (!outcomes.length) return recording;
    const batch = outcomes;
    outcomes = [];
    recording = recording.then(async () => {
      await job.record(batch.map((o) => o.outcome));
      unrecorded -= batch.length;
      position.recorded += batch.length;
      for (const o of batch) o.chunk.open--;
      while (chunks.length && chunks[0].open === 0) position.lastSeq = chunks.shift()!.lastSeq;
      hooks.progress({ ...position });
    });
    // Sends whose outcomes cannot be written would only be sent again by the retry: stop taking more.
    recording.catch(fail);
    return recording;
  };

  let cancelled = false;
  const timers = [
    setInterval(() => void flush().catch(() => undefined), FLUSH_EVERY_MS),
    setInterval(() => hooks.progress({ ...position }), PROGRESS_EVERY_MS),
  ];
  if (job.cancelled) {
    cancelled = await job.cancelled();
    timers.push(
      setInterval(() => {
        job.cancelled!()
          .then((yes) => (cancelled ||= yes))
          .catch(() => undefined);
      }, CANCEL_CHECK_MS),
    );
  }

  const sender = async () => {
    for (;;) {
      if (cancelled || broken || taken >= job.limit || hooks.stopTaking()) return;
      // Postgres behind the provider: wait for it rather than widen what a crash would repeat.
      if (unrecorded >= 2 * chunkSize) {
        await flush().catch(() => undefined);
        continue;
      }
      if (queue.length < chunkSize && !exhausted && taken + queue.length < job.limit) void claimMore();
      if (!queue.length) {
        if (exhausted && !claiming) return;
        await claiming;
        continue;
      }
      if (job.pacer) {
        // The slot first, then the row: a cancel (or the time budget) met while waiting takes nobody.
        await job.pacer.next();
        if (cancelled || broken || hooks.stopTaking() || !queue.length) continue;
      }
      const { row, chunk } = queue.shift()!;
      taken++;
      // Awaited first: a flush while this send was out has swapped `outcomes` for a fresh array.
      const outcome = await job.send(row).catch(fail);
      if (outcome === undefined) return;
      outcomes.push({ outcome, chunk });
      unrecorded++;
      if (outcomes.length >= chunkSize) void flush();
    }
  };
  try {
    await claimMore();
    await Promise.all(Array.from({ length: concurrency }, sender));
    await flush();
    if (failure) throw failure;
  } finally {
    timers.forEach(clearInterval);
    // A failed write is the call's failure (it is retried); the rows it held stay unrecorded.
    await recording;
  }
  return { processed: position.recorded };
}

/**
 * One message through the pooled adapter, retried in place a few times when the provider is
 * away (each retry takes a rate slot of its own); a refusal or retries used up is the outcome.
 */
export async function sendThroughPool(
  via: SendingIntegration,
  pacer: SendPacer | null,
  message: OutboundMessage,
): Promise<SendResult> {
  for (let attempt = 0; ; attempt++) {
    // Outside the try: a pacer that cannot reach Postgres fails the call, not the row.
    if (attempt > 0 && pacer) await pacer.next();
    try {
      const result = await via.adapter.send(message);
      return { status: 'sent', providerMessageId: result.providerMessageId };
    } catch (err) {
      const retryable = err instanceof ProviderError ? err.retryable : true;
      if (retryable && attempt < IN_SEND_RETRIES_MS.length) {
        await new Promise((resolve) => setTimeout(resolve, IN_SEND_RETRIES_MS[attempt]));
        continue;
      }
      return {
        status: 'failed',
        error: errorBody(
          retryable ? 'provider_unavailable' : 'provider_rejected',
          (err as Error).message,
          err instanceof ProviderError ? { providerStatus: err.status ?? null } : undefined,
        ),
      };
    }
  }
}
