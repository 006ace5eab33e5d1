import { Context } from '@temporalio/activity';
import { ProviderError } from '../channels/types';
import type { Db } from '../db/knex';
import type { TextGenerator } from '../services/campaigns/content';
import { audienceQuery, resolveAudience } from '../services/campaigns/audience';
import { CampaignRow } from '../services/campaigns/campaignRow';
import { addressColumn, skipReasonSql } from '../services/contacts/channelAddress';
import { RENDER_COLUMNS, renderCampaignMessage } from '../services/campaigns/renderMessage';
import { errorBody, ErrorBody } from '../services/platform/errors';
import { integrationForSend } from '../services/agents/integrations';
import { OutboundMessageInput, recordOutboundMessage } from '../services/deliveries/outboundMessages';
import type { SendRate } from '../services/platform/rateLimits';
import type { SecretBox } from '../services/platform/secretBox';
import { unsubscribeUrl } from '../services/contacts/unsubscribe';
import { SUPERSEDED_RUN, type CampaignActivities, type DispatchedBatch } from '../workflows/contracts/campaign';

export interface CampaignActivityDeps {
  db: Db;
  secretBox: SecretBox;
  textGenerator: TextGenerator;
  sendConcurrency: number;
  /** {base_url}, for the unsubscribe links. */
  baseUrl: string;
  /** Per-provider send rates (CAMPAIGN_RATE_LIMITS), shared by every worker. */
  sendRate: SendRate;
}

const IN_ACTIVITY_RETRIES = [500, 1000, 2000];
const CANCEL_CHECK_MS = 250;

export function createCampaignActivities({
  db,
  secretBox,
  textGenerator,
  sendConcurrency,
  baseUrl,
  sendRate,
}: CampaignActivityDeps) {
  const campaignRow = async (campaignId: string): Promise<CampaignRow> =>
    db('campaigns').where({ id: campaignId }).first();

  return {
    /**
     * The audience as it is now, frozen into recipients in one statement: pending, or skipped
     * with the reason. Re-running it adds nobody twice.
     */
    async snapshotAudience(campaignId: string, run: number): Promise<number> {
      return db.transaction(async (trx) => {
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
          .orderBy('contacts.seq');
        await trx.raw(
          `INSERT INTO campaign_recipients (campaign_id, contact_id, status, skip_reason, address, attempt, card) ${select.toQuery()} ON CONFLICT DO NOTHING`,
        );
        const [{ n }] = await trx('campaign_recipients').where({ campaign_id: campaignId }).count({ n: '*' });
        await trx('campaigns')
          .where({ id: campaignId })
          .update({
            status: 'sending',
            started_at: trx.raw('coalesce(started_at, now())'),
            recipient_count: Number(n),
            updated_at: trx.fn.now(),
          });
        return Number(n);
      });
    },

    /**
     * Sends up to `batchSize` pending recipients. Each is marked once its provider answered, so a
     * retried batch skips them; one in flight at a crash is sent again with the same key
     * `<campaignId>:<contactId>:<attempt>`, which the provider drops.
     */
    async dispatchBatch(input: { campaignId: string; attempt: number; batchSize: number }): Promise<DispatchedBatch> {
      const campaign = await campaignRow(input.campaignId);
      const integration = await integrationForSend(
        db,
        secretBox,
        campaign.team_id,
        campaign.agent_id!,
        campaign.channel,
      );
      const recipients = await db('campaign_recipients')
        .join('contacts', 'contacts.id', 'campaign_recipients.contact_id')
        .where({ 'campaign_recipients.campaign_id': input.campaignId, 'campaign_recipients.status': 'pending' })
        .where((q) => {
          q.whereNull('campaign_recipients.card').orWhere('campaign_recipients.card', 'approved');
        })
        .orderBy('campaign_recipients.seq')
        .limit(input.batchSize)
        .select(
          'campaign_recipients.contact_id',
          'campaign_recipients.attempt',
          ...RENDER_COLUMNS.map((c) => `contacts.${c}`),
          db.raw(`${skipReasonSql(campaign.channel)} AS skip_now`),
          db.raw(`${addressColumn(campaign.channel)} AS address_now`),
        );
      const settle = (contactId: string, values: Record<string, unknown>) =>
        db('campaign_recipients')
          .where({ campaign_id: input.campaignId, contact_id: contactId, status: 'pending' })
          .update(values);

      let next = 0;
      let processed = 0;
      // Cancel send marks the campaign; checked every CANCEL_CHECK_MS, not per recipient.
      let cancelRequested = campaign.cancel_requested_at !== null;
      const cancelCheck = setInterval(() => {
        db('campaigns')
          .where({ id: input.campaignId })
          .first('cancel_requested_at')
          .then(
            (row) => {
              cancelRequested ||= Boolean(row?.cancel_requested_at);
            },
            () => undefined,
          );
      }, CANCEL_CHECK_MS);
      const worker = async (via: NonNullable<typeof integration>) => {
        while (next < recipients.length && !cancelRequested) {
          const r = recipients[next++];
          if (r.skip_now) {
            // Opted out (or lost the address) since the snapshot: never sent.
            await settle(r.contact_id, { status: 'skipped', skip_reason: r.skip_now });
          } else {
            const message = await renderCampaignMessage(
              campaign,
              r,
              textGenerator,
              unsubscribeUrl(baseUrl, secretBox, r.contact_id),
            );
            const idempotencyKey = `${input.campaignId}:${r.contact_id}:${r.attempt}`;
            let result: OutboundMessageInput['result'] | undefined;
            for (let attempt = 0; !result; attempt++) {
              try {
                await sendRate.take(via.provider);
                const sent = await via.adapter.send({
                  channel: campaign.channel,
                  to: r.address_now,
                  from: via.from,
                  ...message,
                  idempotencyKey,
                });
                result = { status: 'sent', providerMessageId: sent.providerMessageId };
              } catch (err) {
                const retryable = err instanceof ProviderError ? err.retryable : true;
                if (retryable && attempt < IN_ACTIVITY_RETRIES.length) {
                  await new Promise((resolve) => setTimeout(resolve, IN_ACTIVITY_RETRIES[attempt]));
                  continue;
                }
                result = {
                  status: 'failed',
                  error: errorBody(
                    retryable ? 'provider_unavailable' : 'provider_rejected',
                    (err as Error).message,
                    err instanceof ProviderError ? { providerStatus: err.status ?? null } : undefined,
                  ),
                };
              }
            }
            const outcome =
              result.status === 'sent'
                ? {
                    status: 'sent',
                    provider_message_id: result.providerMessageId,
                    sent_at: db.fn.now(),
                    address: r.address_now,
                    error: null,
                  }
                : { status: 'failed', address: r.address_now, error: JSON.stringify(result.error satisfies ErrorBody) };
            // The recipient's status and its outbound message in one statement: no extra round trip per recipient.
            await recordOutboundMessage(
              db,
              {
                teamId: campaign.team_id,
                agentId: campaign.agent_id,
                channel: campaign.channel,
                contactId: r.contact_id,
                address: r.address_now,
                provider: via.provider,
                idempotencyKey,
                sourceKind: 'campaign',
                sourceId: input.campaignId,
                result,
              },
              settle(r.contact_id, outcome).returning('contact_id'),
            );
          }
          processed++;
          Context.current().heartbeat(processed);
        }
      };
      try {
        if (integration) {
          await Promise.all(
            Array.from({ length: Math.min(sendConcurrency, recipients.length) }, () => worker(integration)),
          );
        } else {
          // Nobody can be sent to without the channel's integration: the batch fails in one statement.
          processed = await db('campaign_recipients')
            .where({ campaign_id: input.campaignId, status: 'pending' })
            .whereIn(
              'contact_id',
              recipients.map((r) => r.contact_id),
            )
            .update({
              status: 'failed',
              error: JSON.stringify(
                errorBody('integration_inactive', `The agent has no active ${campaign.channel} integration`),
              ),
            });
        }
      } finally {
        clearInterval(cancelCheck);
      }
      const [{ n, open }] = await db('campaign_recipients')
        .where({ campaign_id: input.campaignId, status: 'pending' })
        .select(db.raw('count(*) AS n'), db.raw("count(*) FILTER (WHERE card = 'open') AS open"));
      return { processed, remaining: Number(n), awaitingApproval: Number(open) };
    },

    /** Cancel schedule: back to Draft, the schedule cleared. */
    async returnToDraft(campaignId: string): Promise<void> {
      await db('campaigns')
        .where({ id: campaignId, status: 'scheduled' })
        .update({ status: 'draft', scheduled_at: null, updated_at: db.fn.now() });
    },

    /** Cancel send: every recipient not yet reached fails with `cancelled`; open approval cards are closed. */
    async failRemaining(campaignId: string): Promise<void> {
      await db('campaign_recipients')
        .where({ campaign_id: campaignId, status: 'pending' })
        .update({
          status: 'failed',
          error: JSON.stringify(errorBody('cancelled', 'The send was cancelled before this recipient was reached')),
          card: db.raw("CASE WHEN card = 'open' THEN 'closed' ELSE card END"),
        });
    },

    /** Counters from the recipients; Completed when nothing failed (and the send was not cancelled), else Failed. */
    async finishCampaign(campaignId: string, cancelled: boolean): Promise<{ status: 'completed' | 'failed' }> {
      const rows: { status: string; n: string }[] = await db('campaign_recipients')
        .where({ campaign_id: campaignId })
        .groupBy('status')
        .select('status', db.raw('count(*) AS n'));
      const count = (status: string) => Number(rows.find((r) => r.status === status)?.n ?? 0);
      const status = cancelled || count('failed') > 0 ? 'failed' : 'completed';
      await db('campaigns')
        .where({ id: campaignId })
        .update({
          status,
          sent_count: count('sent'),
          failed_count: count('failed'),
          skipped_count: count('skipped'),
          recipient_count: rows.reduce((s, r) => s + Number(r.n), 0),
          finished_at: db.fn.now(),
          updated_at: db.fn.now(),
        });
      return { status };
    },
  } satisfies CampaignActivities;
}
