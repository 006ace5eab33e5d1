import type { Db } from '../../db/knex';
import { SUPERSEDED_RUN } from '../../workflows/contracts/campaign';
import { addressColumn, skipReasonSql } from '../contacts/channelAddress';
import { recordEvent } from '../events/outbox';
import { errorBody } from '../platform/errors';
import { audienceQuery, resolveAudience } from './audience';
import type { CampaignRow } from './campaignRow';
import { recountCampaign } from './recordChunk';

/**
 * The writes of a campaign run (`campaign-<id>-run-<n>`, its activities in ./activities.ts): the
 * audience frozen into recipients, what is left to send, and the run's end.
 */

/** Snapshots this large are followed by ANALYZE (tens of ms on any table size: it samples). */
const ANALYZE_AFTER_RECIPIENTS = 10_000;
/**
 * The statistics target of that ANALYZE: a sample of 300 × this many rows, not the default 30 000.
 * The chunks' records need only the table's size and that a recipient's key is unique, which a
 * small sample tells as well, at a seventh of the time (docs/BENCHMARKS.md › Run 51).
 */
const SNAPSHOT_STATISTICS_TARGET = 10;

/**
 * The audience as it is now, frozen into recipients in one statement: pending, or skipped with the
 * reason. Re-running it adds nobody twice. Answers how many, or SUPERSEDED_RUN when the campaign
 * row names another run (or is no longer being sent).
 */
export async function snapshotAudience(db: Db, campaignId: string, run: number): Promise<number> {
  const recipients = await db.transaction(async (trx) => {
    // Only the run the campaign row names may send: a start that timed out can reach Temporal
    // after the request put the campaign back (and after a newer send); such a run stands down.
    const campaign: CampaignRow | undefined = await trx('campaigns').where({ id: campaignId }).forUpdate().first();
    if (!campaign || campaign.run !== run || !['sending', 'scheduled'].includes(campaign.status)) {
      return SUPERSEDED_RUN;
    }
    const audience = await resolveAudience(trx, campaign.team_id, {
      segmentId: campaign.segment_id,
      tags: campaign.tags,
      contactIds: campaign.contact_ids,
    });
    // An agent in manual mode sends nobody until a person approves their card, unless a person
    // approved the whole send already (an MCP send_campaign approved as a warp execution).
    const agent = await trx('agents').where({ id: campaign.agent_id }).first('mode');
    const card =
      agent?.mode === 'manual' && !campaign.send_approved_by
        ? `CASE WHEN (${skipReasonSql(campaign.channel)}) IS NULL THEN 'open' END`
        : 'NULL';
    const select = audienceQuery(trx, campaign.team_id, audience)
      .select(
        trx.raw('?', [campaignId]),
        'contacts.id',
        trx.raw(`CASE WHEN (${skipReasonSql(campaign.channel)}) IS NULL THEN 'pending' ELSE 'skipped' END`),
        trx.raw(skipReasonSql(campaign.channel)),
        trx.raw(addressColumn(campaign.channel)),
        trx.raw('?::int', [run]),
        trx.raw(card),
      )
      // Recipients in contact id order, so that seq order (the order they are sent and recorded
      // in) is also the order of their keys `<campaignId>:<contactId>:<attempt>`: the indexes a
      // chunk's record writes (the recipient's key, the outbound message's key and Message-ID)
      // then grow in order instead of taking a random page per recipient once they outgrow
      // Postgres's buffers.
      .orderBy('contacts.id');
    // A campaign's first snapshot has nobody to collide with (no other writer adds recipients, and
    // this one holds the campaign's row): a plain insert, as ON CONFLICT's check of every row
    // cost a third of it. A later run's snapshot adds only those not recipients yet.
    const firstSnapshot = !(await trx('campaign_recipients').where({ campaign_id: campaignId }).first('seq'));
    await trx.raw(
      `INSERT INTO campaign_recipients (campaign_id, contact_id, status, skip_reason, address, attempt, card) ${select.toQuery()}` +
        (firstSnapshot ? '' : ' ON CONFLICT DO NOTHING'),
    );
    const [{ n, skipped }] = await trx('campaign_recipients')
      .where({ campaign_id: campaignId })
      .select(trx.raw('count(*) AS n'), trx.raw("count(*) FILTER (WHERE status = 'skipped') AS skipped"));
    await trx('campaigns')
      .where({ id: campaignId })
      .update({
        status: 'sending',
        started_at: trx.raw('coalesce(started_at, now())'),
        recipient_count: Number(n),
        // Sent and failed move as chunks are recorded; those skipped at the snapshot count from now.
        skipped_count: Number(skipped),
        updated_at: trx.fn.now(),
      });
    return Number(n);
  });
  // After a bulk load Postgres plans with stale statistics: a large snapshot would otherwise have
  // each chunk's record scan every pending recipient instead of finding each by its key.
  if (recipients >= ANALYZE_AFTER_RECIPIENTS)
    await db.transaction(async (trx) => {
      await trx.raw(`SET LOCAL default_statistics_target = ${SNAPSHOT_STATISTICS_TARGET}`);
      await trx.raw('ANALYZE campaign_recipients');
    });
  return recipients;
}

/**
 * What a dispatch leaves: the recipients still pending, and those of them whose approval cards are
 * open. Only a dispatch that `drained` what it could claim counts them; one that stopped at its
 * batch size or its time has more to send, and the campaign's counters tell about how many (at
 * least one), as counting after every batch would read every pending recipient each time: a
 * cost that grows with the square of the audience.
 */
export async function remainingAfterDispatch(
  db: Db,
  campaignId: string,
  drained: boolean,
): Promise<{ remaining: number; open: number }> {
  const row: { left: number } | undefined = await db('campaigns')
    .where({ id: campaignId })
    .first(db.raw('recipient_count - sent_count - failed_count - skipped_count AS left'));
  // A campaign deleted meanwhile has nothing left to send.
  if (!row) return { remaining: 0, open: 0 };
  if (!drained) return { remaining: Math.max(1, Number(row.left)), open: 0 };
  // The counters never count a recipient that is still pending (a chunk's record counts only those
  // it moves on; a skipped card counts nowhere until the end's recount), so none left by them is
  // none left, without reading every recipient of the campaign.
  if (Number(row.left) <= 0) return { remaining: 0, open: 0 };
  const [{ n, open }] = await db('campaign_recipients')
    .where({ campaign_id: campaignId, status: 'pending' })
    .select(db.raw('count(*) AS n'), db.raw("count(*) FILTER (WHERE card = 'open') AS open"));
  return { remaining: Number(n), open: Number(open) };
}

/** Cancel schedule: back to Draft, the schedule cleared. */
export async function returnToDraft(db: Db, campaignId: string): Promise<void> {
  await db('campaigns')
    .where({ id: campaignId, status: 'scheduled' })
    .update({ status: 'draft', scheduled_at: null, updated_at: db.fn.now() });
}

/** Cancel send: every recipient not yet reached fails with `cancelled`; open approval cards are closed. */
export async function failRemaining(db: Db, campaignId: string): Promise<void> {
  await db('campaign_recipients')
    .where({ campaign_id: campaignId, status: 'pending' })
    .update({
      status: 'failed',
      error: JSON.stringify(errorBody('cancelled', 'The send was cancelled before this recipient was reached')),
      card: db.raw("CASE WHEN card = 'open' THEN 'closed' ELSE card END"),
    });
}

/** Counters from the recipients; Completed when nothing failed (and the send was not cancelled), else Failed. */
export async function finishCampaign(
  db: Db,
  campaignId: string,
  cancelled: boolean,
): Promise<{ status: 'completed' | 'failed' }> {
  // The end and its campaign.completed event commit together (docs/EVENTS.md); only a change to
  // Completed records one, so a repeated activity records nothing twice.
  return db.transaction(async (trx) => {
    const before = await trx('campaigns').where({ id: campaignId }).forUpdate().first('status', 'team_id', 'name');
    const counts = await recountCampaign(trx, campaignId);
    const status = cancelled || counts.failed > 0 ? 'failed' : 'completed';
    await trx('campaigns')
      .where({ id: campaignId })
      .update({ status, finished_at: trx.fn.now(), updated_at: trx.fn.now() });
    if (before && status === 'completed' && before.status !== 'completed')
      await recordEvent(trx, {
        teamId: before.team_id,
        type: 'campaign.completed',
        subject: campaignId,
        data: { campaign: { id: campaignId, name: before.name, status, counts } },
      });
    return { status };
  });
}
