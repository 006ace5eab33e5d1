import type { Db } from '../../db/knex';
import { runStatement, statementOf } from '../../db/statement';
import { integrationForSend, SendingIntegration } from '../agents/integrations';
import { addressColumn, skipReasonSql } from '../contacts/channelAddress';
import { unsubscribeUrl } from '../contacts/unsubscribe';
import { errorBody, type ErrorBody } from '../platform/errors';
import type { SecretBox } from '../platform/secretBox';
import { CampaignRow } from './campaignRow';
import type { TextGenerator } from './content';
import { recordChunk, RecipientOutcome } from './recordChunk';
import { RENDER_COLUMNS, renderCampaignMessageSoon } from './renderMessage';
import { SendPacer } from './sendPacer';
import { composeMessage, sendInChunks, type SendHooks as DispatchHooks } from './pooledSend';
import { claimInSeqOrder } from './seqClaim';

export interface DispatchDeps {
  db: Db;
  secretBox: SecretBox;
  textGenerator: TextGenerator;
  /** {base_url}, for the unsubscribe links. */
  baseUrl: string;
  /** The operator's send rate per provider (CAMPAIGN_RATE_LIMITS), for integrations that name none. */
  defaultRates: Record<string, number>;
}

export type { SendPosition as DispatchPosition, SendHooks as DispatchHooks } from './pooledSend';

type Claimed = {
  contact_id: string;
  attempt: number;
  seq: string;
  skip_now: string | null;
  address_now: string;
} & Record<(typeof RENDER_COLUMNS)[number], string | null>;

/**
 * The next pending recipients after `afterSeq`, in seq order, with what a send needs of the
 * contact: a walk of `(campaign_id, seq)` from the watermark that stops at `limit` rows, each
 * joined to its contact, on the plan `claimInSeqOrder` keeps. A prepared statement, one text a
 * channel: a send runs it every few hundred recipients.
 */
function claimChunk(db: Db, campaign: CampaignRow, afterSeq: number, limit: number) {
  return claimInSeqOrder(db, (trx) =>
    runStatement(trx, claimStatement(campaign.channel), [campaign.id, afterSeq, limit]),
  );
}

const claimStatement = (channel: CampaignRow['channel']) =>
  statementOf<Claimed>(`
    SELECT r.contact_id, r.attempt, r.seq, ${RENDER_COLUMNS.map((c) => `contacts.${c}`).join(', ')},
           ${skipReasonSql(channel)} AS skip_now, ${addressColumn(channel)} AS address_now
    FROM campaign_recipients r JOIN contacts ON contacts.id = r.contact_id
    WHERE r.campaign_id = ? AND r.status = 'pending' AND r.seq > ? AND (r.card IS NULL OR r.card = 'approved')
    ORDER BY r.seq LIMIT ?`);

/** The send rate an integration keeps: its own, else the operator's default for the provider. */
export function pacerFor(db: Db, integration: SendingIntegration, defaultRates: Record<string, number>) {
  const rate = integration.maxPerSecond ?? defaultRates[integration.provider];
  return rate ? new SendPacer(db, integration.key, rate) : null;
}

/**
 * Sends up to `limit` pending recipients of a campaign through the shared bulk send path
 * (pooledSend.ts) and records them a chunk per statement. A recipient is pending until its chunk
 * is recorded: after a crash only those in flight are sent again, with the same key
 * `<campaignId>:<contactId>:<attempt>`.
 */
export async function dispatchRecipients(
  deps: DispatchDeps,
  input: { campaignId: string; limit: number; afterSeq: number },
  hooks: DispatchHooks,
): Promise<{ processed: number; drained: boolean; lastSeq: number }> {
  const { db } = deps;
  const campaign: CampaignRow = await db('campaigns').where({ id: input.campaignId }).first();
  const integration = await integrationForSend(
    db,
    deps.secretBox,
    campaign.team_id,
    campaign.agent_id!,
    campaign.channel,
  );
  if (!integration) {
    const failed = await failWithoutIntegration(db, campaign, input.limit);
    return { processed: failed, drained: failed < input.limit, lastSeq: 0 };
  }
  const pacer = pacerFor(db, integration, deps.defaultRates);
  return sendInChunks<Claimed, RecipientOutcome>(
    {
      integration,
      pacer,
      limit: input.limit,
      afterSeq: input.afterSeq,
      claim: (afterSeq, limit) => claimChunk(db, campaign, afterSeq, limit),
      compose: (r) => composeOne(deps, campaign, integration, r),
      settle: (r, result) => {
        const recipient = { contactId: r.contact_id, address: r.address_now, idempotencyKey: keyOf(campaign, r) };
        return result.status === 'sent'
          ? { ...recipient, status: 'sent', providerMessageId: result.providerMessageId }
          : { ...recipient, status: 'failed', error: (result as { error: ErrorBody }).error };
      },
      record: (outcomes) => recordChunk(db, campaign, integration.provider, outcomes),
      cancelled: async () =>
        Boolean((await db('campaigns').where({ id: campaign.id }).first('cancel_requested_at'))?.cancel_requested_at),
    },
    hooks,
  );
}

const keyOf = (campaign: CampaignRow, r: Claimed) => `${campaign.id}:${r.contact_id}:${r.attempt}`;

function composeOne(deps: DispatchDeps, campaign: CampaignRow, via: SendingIntegration, r: Claimed) {
  // Opted out (or lost the address) since the snapshot: never sent.
  if (r.skip_now)
    return { outcome: { contactId: r.contact_id, status: 'skipped', skipReason: r.skip_now } as RecipientOutcome };
  const idempotencyKey = keyOf(campaign, r);
  return composeMessage<RecipientOutcome>(
    { channel: campaign.channel, to: r.address_now, from: via.from, idempotencyKey },
    () =>
      renderCampaignMessageSoon(
        campaign,
        r,
        deps.textGenerator,
        unsubscribeUrl(deps.baseUrl, deps.secretBox, r.contact_id),
      ),
    (error) => ({ contactId: r.contact_id, address: r.address_now, idempotencyKey, status: 'failed', error }),
  );
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
