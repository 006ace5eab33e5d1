import { integrationForSend } from '../agents/integrations';
import type { TextGenerator } from '../campaigns/content';
import type { Knex } from 'knex';
import { pacerFor } from '../campaigns/dispatch';
import { claimInSeqOrder } from '../campaigns/seqClaim';
import { composeMessage, sendInChunks, type SendHooks, type SendResult } from '../campaigns/pooledSend';
import { RENDER_COLUMNS, renderCampaignMessageSoon } from '../campaigns/renderMessage';
import { addressColumn, skipReasonSql } from '../contacts/channelAddress';
import { unsubscribeUrl } from '../contacts/unsubscribe';
import { chunkRows, chunkValues, insertOutboundMessages } from '../deliveries/outboundMessages';
import type { Db } from '../../db/knex';
import { errorBody } from '../platform/errors';
import { runStatement, statement } from '../../db/statement';
import type { SecretBox } from '../platform/secretBox';
import type { CohortBatch } from '../../workflows/contracts/cohort';
import { batchAnswer, loadCohort, type LoadedCohort } from './cohortRows';
import type { Step } from './schemas';
import { sendStepContent } from './sendStep';

/**
 * A cohort's send step (docs/AUTOMATIONS.md › Cohorts): the campaign's bulk send path
 * (services/campaigns/pooledSend.ts) over the members still at the step, each keyed
 * `automation:<enrollmentId>:<step>`. A chunk's outcomes are one statement: the members move on
 * (or fail, on a provider's refusal), their outbound messages and step rows are written. A member
 * opted out, without consent or without an address on the channel is skipped and goes on.
 */

export interface CohortSendDeps {
  db: Db;
  secretBox: SecretBox;
  textGenerator: TextGenerator;
  baseUrl: string;
  defaultRates: Record<string, number>;
  batchSize: number;
}

type SendStep = Extract<Step, { type: 'send' }>;

type Member = { seq: string; id: string; contact_id: string; skip_now: string | null; address_now: string } & Record<
  (typeof RENDER_COLUMNS)[number],
  string | null
>;

type MemberOutcome = SendResult & { enrollmentId: string; contactId: string; address: string; key: string };

const stepKey = (enrollmentId: string, step: number) => `automation:${enrollmentId}:${step}`;

const memberBase = (m: Member, step: number) => ({
  enrollmentId: m.id,
  contactId: m.contact_id,
  address: m.address_now,
  key: stepKey(m.id, step),
});

/** The next members at the step after `afterSeq`, in seq order, on the plan `claimInSeqOrder` keeps. */
function claimMembers(db: Db, cohort: LoadedCohort, step: number, channel: SendStep['channel']) {
  return (afterSeq: number, limit: number) =>
    claimInSeqOrder(db, (trx) => membersAfter(trx, cohort, step, channel, afterSeq, limit));
}

function membersAfter(
  db: Knex.Transaction,
  cohort: LoadedCohort,
  step: number,
  channel: SendStep['channel'],
  afterSeq: number,
  limit: number,
) {
  return db('automation_enrollments as e')
    .join('contacts', 'contacts.id', 'e.contact_id')
    .where({ 'e.cohort_id': cohort.id, 'e.status': 'active' })
    .where('e.step', '<=', step)
    .where('e.seq', '>', afterSeq)
    .orderBy('e.seq')
    .limit(limit)
    .select(
      'e.seq',
      'e.id',
      'e.contact_id',
      'contacts.properties',
      ...RENDER_COLUMNS.map((c) => `contacts.${c}`),
      db.raw(`${skipReasonSql(channel)} AS skip_now`),
      db.raw(`${addressColumn(channel)} AS address_now`),
    ) as Promise<Member[]>;
}

/**
 * Records a chunk: members moved on (or failed), their messages and step rows, in one statement.
 * The outcomes go as one JSON value (services/deliveries/outboundMessages.ts › chunkRows).
 */
async function recordMembers(
  db: Db,
  cohort: LoadedCohort,
  step: number,
  s: SendStep,
  provider: string,
  outcomes: MemberOutcome[],
): Promise<void> {
  await runStatement(db, recordMembersStatement, [
    ...chunkValues(outcomes),
    step,
    cohort.id,
    cohort.team_id,
    cohort.agent_id,
    s.channel,
    provider,
  ]);
}

/** `recordMembers`' one text, prepared once per connection. */
const recordMembersStatement = statement(`
    WITH v AS (
       ${chunkRows(
         `"enrollmentId" text, "contactId" text, status text, address text, "providerMessageId" text, error jsonb,
          "skipReason" text, key text`,
         'enrollment_id, contact_id, status, address, provider_message_id, error, skip_reason, idempotency_key',
       )}
     ), moved AS (
       UPDATE automation_enrollments e
       SET step = CASE WHEN v.status = 'failed' THEN $3::int ELSE $3::int + 1 END,
           status = CASE WHEN v.status = 'failed' THEN 'failed' ELSE e.status END,
           error = CASE WHEN v.status = 'failed' THEN v.error ELSE e.error END,
           ended_at = CASE WHEN v.status = 'failed' THEN now() ELSE e.ended_at END,
           waiting_event = NULL,
           updated_at = now()
       FROM v
       WHERE e.id = v.enrollment_id AND e.cohort_id = $4 AND e.status = 'active' AND e.step <= $3::int
       RETURNING e.id
     ), messages AS (
       ${insertOutboundMessages(`
         SELECT v.message_id, $5::uuid, $6::uuid, $7, v.contact_id, v.address, $8, v.provider_message_id, v.status, v.error,
                v.idempotency_key, 'automation', v.enrollment_id
         FROM v JOIN moved ON moved.id = v.enrollment_id WHERE v.status <> 'skipped'`)}
     )
     INSERT INTO automation_step_runs (enrollment_id, step, status, detail)
     SELECT v.enrollment_id, $3::int, v.status,
            CASE v.status
              WHEN 'sent' THEN jsonb_build_object('messageId', v.message_id, 'providerMessageId', v.provider_message_id, 'to', v.address)
              WHEN 'skipped' THEN jsonb_build_object('reason', v.skip_reason)
              ELSE v.error END
     FROM v JOIN moved ON moved.id = v.enrollment_id
     ON CONFLICT (enrollment_id, step) DO UPDATE SET status = EXCLUDED.status, detail = EXCLUDED.detail, updated_at = now()`);

/** The members at the step fail with `error` (no integration to send through), a batch at a time. */
async function failMembers(db: Db, cohort: LoadedCohort, step: number, limit: number, error: unknown) {
  const { rows } = await db.raw(
    `WITH failed AS (
       UPDATE automation_enrollments SET status = 'failed', step = ?, error = ?::jsonb, waiting_event = NULL,
              ended_at = now(), updated_at = now()
       WHERE id IN (SELECT id FROM automation_enrollments WHERE cohort_id = ? AND status = 'active' AND step <= ?
                    ORDER BY seq LIMIT ?)
       RETURNING id
     ), runs AS (
       INSERT INTO automation_step_runs (enrollment_id, step, status, detail)
       SELECT id, ?, 'failed', ?::jsonb FROM failed
       ON CONFLICT (enrollment_id, step) DO UPDATE SET status = EXCLUDED.status, detail = EXCLUDED.detail, updated_at = now()
     )
     SELECT count(*)::int AS n FROM failed`,
    [step, JSON.stringify(error), cohort.id, step, limit, step, JSON.stringify(error)],
  );
  return rows[0].n as number;
}

/** The activity `sendCohortStep`: up to a batch of the members at the step, resuming after `afterSeq`. */
export async function sendCohortStep(
  deps: CohortSendDeps,
  input: { cohortId: string; step: number; afterSeq: number; recorded: number; stopTaking: () => boolean },
  hooks: Pick<SendHooks, 'progress'>,
): Promise<CohortBatch> {
  const { db } = deps;
  const cohort = await loadCohort(db, input.cohortId);
  const s = cohort.steps[input.step] as SendStep;
  const integration = await integrationForSend(db, deps.secretBox, cohort.team_id, cohort.agent_id, s.channel);
  if (!integration) {
    const error = errorBody('integration_inactive', `The automation agent has no active ${s.channel} integration`);
    const failed = await failMembers(db, cohort, input.step, deps.batchSize, error);
    return batchAnswer(db, cohort.id, input.step, failed);
  }
  const pacer = pacerFor(db, integration, deps.defaultRates);
  const { processed, drained, lastSeq } = await sendInChunks<Member, MemberOutcome>(
    {
      integration,
      pacer,
      limit: deps.batchSize - input.recorded,
      afterSeq: input.afterSeq,
      claim: claimMembers(db, cohort, input.step, s.channel),
      compose: (m) => {
        const base = memberBase(m, input.step);
        if (m.skip_now) return { outcome: { ...base, status: 'skipped', skipReason: m.skip_now } };
        return composeMessage<MemberOutcome>(
          { channel: s.channel, to: m.address_now, from: integration.from, idempotencyKey: base.key },
          () =>
            renderCampaignMessageSoon(
              sendStepContent(s),
              m,
              deps.textGenerator,
              unsubscribeUrl(deps.baseUrl, deps.secretBox, m.contact_id),
            ),
          (error) => ({ ...base, status: 'failed', error }),
        );
      },
      settle: (m, result) => ({ ...memberBase(m, input.step), ...result }),
      record: (chunk) => recordMembers(db, cohort, input.step, s, integration.provider, chunk),
    },
    {
      progress: (position) => hooks.progress({ ...position, recorded: position.recorded + input.recorded }),
      stopTaking: input.stopTaking,
    },
  );
  // Claims that ran dry send the next batch back to the step's first member, as a campaign's do.
  return { ...(await batchAnswer(db, cohort.id, input.step, processed)), continueAfterSeq: drained ? 0 : lastSeq };
}
