import { ProviderError, type OutboundMessage } from '../../channels/types';
import type { SendingIntegration } from '../agents/integrations';
import { errorBody, type ErrorBody } from '../platform/errors';
import type { RenderedMessage } from './renderMessage';
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

export type Composed<Outcome> = { message: OutboundMessage } | { outcome: Outcome };

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
  /**
   * One row's message, or its outcome without a send (skipped, or a message that cannot be
   * written). A promise only when composing waits for something (a model writing a placeholder);
   * throws to fail the whole call.
   */
  compose(row: Row): Composed<Outcome> | Promise<Composed<Outcome>>;
  /** The row's outcome from its send. */
  settle(row: Row, result: SendResult): Outcome;
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
): Promise<{ processed: number; drained: boolean; lastSeq: number }> {
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
  const claimMore = () => {
    const asked = Math.min(chunkSize, job.limit - taken - queue.length);
    return (claiming ??= job
      .claim(claimedUpTo, asked)
      .then((rows) => {
        if (rows.length) claimedUpTo = Number(rows[rows.length - 1].seq);
        if (rows.length < asked) exhausted = true;
        const chunk = { lastSeq: claimedUpTo, open: rows.length };
        chunks.push(chunk);
        queue.push(...rows.map((row) => ({ row, chunk })));
      })
      .catch(fail)
      .finally(() => (claiming = undefined)));
  };

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

  // An adapter that takes many messages in one call (SMTP: one hop to its thread) gets half of
  // `concurrency` rows per call from each of two senders: while one batch's last answers come
  // in, the other keeps the connections busy, and no more are in flight than one row per sender
  // would put there. Any other adapter, and every paced send, one row per sender.
  const batched = !job.pacer && Boolean(job.integration.adapter.sendMany);
  const senders = batched ? 2 : concurrency;
  const batchSize = batched ? Math.ceil(concurrency / 2) : 1;

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
      const batch = queue.splice(0, Math.min(batchSize, job.limit - taken));
      taken += batch.length;
      // Awaited first: a flush while these sends were out has swapped `outcomes` for a fresh array.
      const settled = await sendBatch(
        job,
        batch.map((b) => b.row),
      ).catch(fail);
      if (settled === undefined) return;
      for (let i = 0; i < batch.length; i++) outcomes.push({ outcome: settled[i], chunk: batch[i].chunk });
      unrecorded += batch.length;
      if (outcomes.length >= chunkSize) void flush();
    }
  };
  try {
    await claimMore();
    await Promise.all(Array.from({ length: senders }, sender));
    await flush();
    if (failure) throw failure;
  } finally {
    timers.forEach(clearInterval);
    // A failed write is the call's failure (it is retried); the rows it held stay unrecorded.
    await recording;
  }
  // Every row there was to claim was claimed and sent (a failure has thrown above): what is left
  // now was not claimable. Every row claimed is recorded, up to `lastSeq`.
  return { processed: position.recorded, drained: exhausted && !queue.length, lastSeq: position.lastSeq };
}

/**
 * A row's message from what `render` writes (a promise only when it waits), or the outcome
 * `failed` gives when it cannot be written: one contact whose message fails (an AI placeholder's
 * model failing) fails alone, retryable with its send, instead of failing the call over and over.
 */
export function composeMessage<Outcome>(
  envelope: Omit<OutboundMessage, keyof RenderedMessage>,
  render: () => RenderedMessage | Promise<RenderedMessage>,
  failed: (error: ErrorBody) => Outcome,
): Composed<Outcome> | Promise<Composed<Outcome>> {
  const asMessage = (content: RenderedMessage): Composed<Outcome> => ({ message: { ...envelope, ...content } });
  const asFailure = (err: unknown): Composed<Outcome> => ({
    outcome: failed(errorBody('render_failed', (err as Error).message)),
  });
  try {
    const content = render();
    return content instanceof Promise ? content.then(asMessage, asFailure) : asMessage(content);
  } catch (err) {
    return asFailure(err);
  }
}

/** Rows composed, their messages sent (in one call when the adapter takes many), each settled. */
async function sendBatch<Row extends { seq: string }, Outcome>(job: PooledSend<Row, Outcome>, rows: Row[]) {
  const pending = rows.map((row) => job.compose(row));
  // Only a composition that waits (a model writing a placeholder) costs a promise; those wait together.
  const composed = pending.some((c) => c instanceof Promise)
    ? await Promise.all(pending)
    : (pending as Composed<Outcome>[]);
  const toSend: number[] = [];
  for (let i = 0; i < rows.length; i++) if ('message' in composed[i]) toSend.push(i);
  const messages = toSend.map((i) => (composed[i] as { message: OutboundMessage }).message);
  const results =
    messages.length > 1
      ? await sendManyThroughPool(job.integration, messages)
      : await Promise.all(messages.map((m) => sendThroughPool(job.integration, job.pacer, m)));
  const outcomes = composed.map((c) => ('outcome' in c ? c.outcome : (undefined as Outcome)));
  toSend.forEach((row, k) => (outcomes[row] = job.settle(rows[row], results[k])));
  return outcomes;
}

/**
 * One message through the pooled adapter, retried in place a few times when the provider is
 * away (each retry takes a rate slot of its own); a refusal or retries used up is the outcome.
 * `tried` is an answer already had (the first attempt, made in a batch).
 */
async function sendThroughPool(
  via: SendingIntegration,
  pacer: SendPacer | null,
  message: OutboundMessage,
  tried?: ProviderError,
): Promise<SendResult> {
  let err: unknown = tried;
  for (let attempt = tried ? 1 : 0; ; attempt++) {
    if (attempt > 0) {
      const retryable = err instanceof ProviderError ? err.retryable : true;
      if (!retryable || attempt > IN_SEND_RETRIES_MS.length) return refused(err, retryable);
      await new Promise((resolve) => setTimeout(resolve, IN_SEND_RETRIES_MS[attempt - 1]));
      // Outside the try: a pacer that cannot reach Postgres fails the call, not the row.
      if (pacer) await pacer.next();
    }
    try {
      const result = await via.adapter.send(message);
      return { status: 'sent', providerMessageId: result.providerMessageId };
    } catch (e) {
      err = e;
    }
  }
}

/**
 * Many messages in one call to the adapter; those it could not send for now are retried one by
 * one, as above, and so are all of them when the call itself fails (its pool closing under it).
 */
async function sendManyThroughPool(via: SendingIntegration, messages: OutboundMessage[]): Promise<SendResult[]> {
  const attempts = await via.adapter.sendMany!(messages).catch((err: Error) => {
    const error = err instanceof ProviderError ? err : new ProviderError(err.message, true);
    return messages.map(() => ({ error }));
  });
  const results: SendResult[] = new Array(attempts.length);
  const retries: Promise<void>[] = [];
  // A promise only for a message that is tried again: most batches have none.
  attempts.forEach((a, i) => {
    if ('error' in a)
      retries.push(sendThroughPool(via, null, messages[i], a.error).then((result) => void (results[i] = result)));
    else results[i] = { status: 'sent', providerMessageId: a.providerMessageId };
  });
  if (retries.length) await Promise.all(retries);
  return results;
}

const refused = (err: unknown, retryable: boolean): SendResult => ({
  status: 'failed',
  error: errorBody(
    retryable ? 'provider_unavailable' : 'provider_rejected',
    (err as Error).message,
    err instanceof ProviderError ? { providerStatus: err.status ?? null } : undefined,
  ),
});
