import { ProviderError } from '../../channels/types';
import type { Db } from '../../db/knex';
import { integrationForSend, SendingIntegration } from '../agents/integrations';
import { addressColumn, skipReasonSql } from '../contacts/channelAddress';
import { unsubscribeUrl } from '../contacts/unsubscribe';
import { errorBody } from '../platform/errors';
import type { SecretBox } from '../platform/secretBox';
import { CampaignRow } from './campaignRow';
import type { TextGenerator } from './content';
import { recordChunk, RecipientOutcome } from './recordChunk';
import { RENDER_COLUMNS, renderCampaignMessage } from './renderMessage';
import { SendPacer } from './sendPacer';

export interface DispatchDeps {
  db: Db;
  secretBox: SecretBox;
  textGenerator: TextGenerator;
  /** {base_url}, for the unsubscribe links. */
  baseUrl: string;
  /** The operator's send rate per provider (CAMPAIGN_RATE_LIMITS), for integrations that name none. */
  defaultRates: Record<string, number>;
}

/** How far a dispatch has recorded: every recipient up to `lastSeq` (in `seq` order) is written. */
export interface DispatchPosition {
  recorded: number;
  lastSeq: number;
}

export interface DispatchHooks {
  /** Called after each recorded chunk, and every few seconds while sends are slow. */
  progress(position: DispatchPosition): void;
  /** Stop taking recipients (the activity's time is up); what is in flight is still recorded. */
  stopTaking(): boolean;
}

const IN_DISPATCH_RETRIES_MS = [500, 1000, 2000];
const CANCEL_CHECK_MS = 250;
const FLUSH_EVERY_MS = 500;
const PROGRESS_EVERY_MS = 2000;

type Claimed = Awaited<ReturnType<typeof claimChunk>>[number];

/** The next pending recipients after `afterSeq`, in seq order, with what a send needs of the contact. */
function claimChunk(db: Db, campaign: CampaignRow, afterSeq: number, limit: number) {
  return db('campaign_recipients')
    .join('contacts', 'contacts.id', 'campaign_recipients.contact_id')
    .where({ 'campaign_recipients.campaign_id': campaign.id, 'campaign_recipients.status': 'pending' })
    .where('campaign_recipients.seq', '>', afterSeq)
    .where((q) => {
      q.whereNull('campaign_recipients.card').orWhere('campaign_recipients.card', 'approved');
    })
    .orderBy('campaign_recipients.seq')
    .limit(limit)
    .select(
      'campaign_recipients.contact_id',
      'campaign_recipients.attempt',
      'campaign_recipients.seq',
      ...RENDER_COLUMNS.map((c) => `contacts.${c}`),
      db.raw(`${skipReasonSql(campaign.channel)} AS skip_now`),
      db.raw(`${addressColumn(campaign.channel)} AS address_now`),
    ) as Promise<
    ({ contact_id: string; attempt: number; seq: string; skip_now: string | null; address_now: string } & Record<
      (typeof RENDER_COLUMNS)[number],
      string | null
    >)[]
  >;
}

/**
 * Sends up to `limit` pending recipients of a campaign through the integration's pooled adapter,
 * keeping `adapter.concurrency` sends in flight (and the integration's send rate, when it has
 * one), and records the outcomes a chunk per statement. Chunks are claimed ahead and recorded
 * behind, so the pool never waits for Postgres. A recipient is pending until its chunk is
 * recorded: after a crash only those in flight are sent again, with the same key
 * `<campaignId>:<contactId>:<attempt>`.
 */
export async function dispatchRecipients(
  deps: DispatchDeps,
  input: { campaignId: string; limit: number; afterSeq: number },
  hooks: DispatchHooks,
): Promise<{ processed: number }> {
  const { db } = deps;
  const campaign: CampaignRow = await db('campaigns').where({ id: input.campaignId }).first();
  const integration = await integrationForSend(
    db,
    deps.secretBox,
    campaign.team_id,
    campaign.agent_id!,
    campaign.channel,
  );
  if (!integration) return { processed: await failWithoutIntegration(db, campaign, input.limit) };

  const concurrency = integration.adapter.concurrency;
  const chunkSize = Math.min(input.limit, Math.max(250, concurrency * 10));
  const rate = integration.maxPerSecond ?? deps.defaultRates[integration.provider];
  const pacer = rate ? new SendPacer(db, integration.key, rate) : null;
  if (pacer) await integration.adapter.ready?.();

  // The watermark: chunks in claim order, each open until all of its recipients are recorded.
  const chunks: { lastSeq: number; open: number }[] = [];
  const chunkOf = new Map<string, (typeof chunks)[number]>();
  const queue: Claimed[] = [];
  let claimedUpTo = input.afterSeq;
  let exhausted = false;
  let claiming: Promise<void> | undefined;
  let taken = 0;
  const claimMore = () =>
    (claiming ??= claimChunk(db, campaign, claimedUpTo, Math.min(chunkSize, input.limit - taken - queue.length))
      .then((rows) => {
        if (rows.length) claimedUpTo = Number(rows[rows.length - 1].seq);
        if (rows.length < chunkSize) exhausted = true;
        queue.push(...rows);
        chunks.push({ lastSeq: claimedUpTo, open: rows.length });
      })
      .catch(fail)
      .finally(() => (claiming = undefined)));

  const position: DispatchPosition = { recorded: 0, lastSeq: input.afterSeq };
  let outcomes: RecipientOutcome[] = [];
  /** Outcomes sent but not yet written: what a crash now would send again. */
  let unrecorded = 0;
  /** The first error: every sender stops taking recipients, and the activity fails with it once those out are recorded. */
  let failure: unknown;
  let broken = false;
  const fail = (err: unknown) => {
    failure ??= err;
    broken = true;
  };
  let recording: Promise<void> = Promise.resolve();
  const flush = () => {
    if (!outcomes.length) return recording;
    const batch = outcomes;
    outcomes = [];
    recording = recording.then(async () => {
      await recordChunk(db, campaign, integration.provider, batch);
      unrecorded -= batch.length;
      position.recorded += batch.length;
      for (const o of batch) {
        chunkOf.get(o.contactId)!.open--;
        chunkOf.delete(o.contactId);
      }
      while (chunks.length && chunks[0].open === 0) position.lastSeq = chunks.shift()!.lastSeq;
      hooks.progress({ ...position });
    });
    // Sends whose outcomes cannot be written would only be sent again by the retry: stop taking more.
    recording.catch(fail);
    return recording;
  };

  let cancelled = campaign.cancel_requested_at !== null;
  const timers = [
    setInterval(() => {
      db('campaigns')
        .where({ id: campaign.id })
        .first('cancel_requested_at')
        .then((row) => (cancelled ||= Boolean(row?.cancel_requested_at)))
        .catch(() => undefined);
    }, CANCEL_CHECK_MS),
    setInterval(() => void flush().catch(() => undefined), FLUSH_EVERY_MS),
    setInterval(() => hooks.progress({ ...position }), PROGRESS_EVERY_MS),
  ];

  const sender = async () => {
    for (;;) {
      if (cancelled || broken || taken >= input.limit || hooks.stopTaking()) return;
      // Postgres behind the provider: wait for it rather than widen what a crash would repeat.
      if (unrecorded >= 2 * chunkSize) {
        await flush().catch(() => undefined);
        continue;
      }
      if (queue.length < chunkSize && !exhausted && taken + queue.length < input.limit) void claimMore();
      if (!queue.length) {
        if (exhausted && !claiming) return;
        await claiming;
        continue;
      }
      if (pacer) {
        // The slot first, then the recipient: a cancel (or the time budget) met while waiting takes nobody.
        await pacer.next();
        if (cancelled || broken || hooks.stopTaking() || !queue.length) continue;
      }
      const recipient = queue.shift()!;
      taken++;
      chunkOf.set(
        recipient.contact_id,
        chunks.find((c) => Number(recipient.seq) <= c.lastSeq)!,
      );
      // Awaited first: a flush while this send was out has swapped `outcomes` for a fresh array.
      const outcome = await sendOne(deps, campaign, integration, pacer, recipient).catch(fail);
      if (!outcome) return;
      outcomes.push(outcome);
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
    // A failed write is the activity's failure (it is retried); the recipients it held stay pending.
    await recording;
  }
  return { processed: position.recorded };
}

async function sendOne(
  deps: DispatchDeps,
  campaign: CampaignRow,
  via: SendingIntegration,
  pacer: SendPacer | null,
  r: Claimed,
): Promise<RecipientOutcome> {
  // Opted out (or lost the address) since the snapshot: never sent.
  if (r.skip_now) return { contactId: r.contact_id, status: 'skipped', skipReason: r.skip_now };
  const idempotencyKey = `${campaign.id}:${r.contact_id}:${r.attempt}`;
  const recipient = { contactId: r.contact_id, address: r.address_now, idempotencyKey };
  let message: Awaited<ReturnType<typeof renderCampaignMessage>>;
  try {
    message = await renderCampaignMessage(
      campaign,
      r,
      deps.textGenerator,
      unsubscribeUrl(deps.baseUrl, deps.secretBox, r.contact_id),
    );
  } catch (err) {
    // One contact whose message cannot be written (an AI placeholder's model failing) fails alone,
    // retryable with the campaign, instead of failing the activity over and over.
    return { ...recipient, status: 'failed', error: errorBody('render_failed', (err as Error).message) };
  }
  for (let attempt = 0; ; attempt++) {
    // A provider retry takes a slot of its own (the first attempt's was taken before the recipient).
    // Outside the try: a pacer that cannot reach Postgres fails the activity, not the recipient.
    if (attempt > 0 && pacer) await pacer.next();
    try {
      const result = await via.adapter.send({
        channel: campaign.channel,
        to: r.address_now,
        from: via.from,
        ...message,
        idempotencyKey,
      });
      return { ...recipient, status: 'sent', providerMessageId: result.providerMessageId };
    } catch (err) {
      const retryable = err instanceof ProviderError ? err.retryable : true;
      if (retryable && attempt < IN_DISPATCH_RETRIES_MS.length) {
        await new Promise((resolve) => setTimeout(resolve, IN_DISPATCH_RETRIES_MS[attempt]));
        continue;
      }
      return {
        ...recipient,
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

/** Nobody can be sent to without the channel's integration: the recipients fail in one statement. */
async function failWithoutIntegration(db: Db, campaign: CampaignRow, limit: number): Promise<number> {
  return db('campaign_recipients')
    .where({ campaign_id: campaign.id, status: 'pending' })
    .whereIn(
      'seq',
      db('campaign_recipients')
        .where({ campaign_id: campaign.id, status: 'pending' })
        .where((q) => {
          q.whereNull('card').orWhere('card', 'approved');
        })
        .orderBy('seq')
        .limit(limit)
        .select('seq'),
    )
    .update({
      status: 'failed',
      error: JSON.stringify(
        errorBody('integration_inactive', `The agent has no active ${campaign.channel} integration`),
      ),
    });
}
