import type { Knex } from 'knex';
import { encodePaymentResponseHeader, HTTPFacilitatorClient } from '@x402/core/http';
import { isPaymentPayloadV1 } from '@x402/core/schemas';
import {
  SettleError,
  VerifyError,
  type PaymentPayloadV1,
  type PaymentRequiredV1,
  type PaymentRequirementsV1,
  type SettleResponse,
  type VerifyResponse,
} from '@x402/core/types';
import type { AppContext } from '../platform/context';
import { AppError } from '../platform/errors';
import { newId } from '../../db/ids';
import { PaymentRefused, type GateRequest, type GateVerdict, type PaymentGate, type PaymentReceipt } from './gate';
import type { X402GateConfig } from './schemas';
import {
  isSvmNetwork,
  MCP_PAYMENT_META,
  paymentKey,
  paymentPayloadSchema,
  presentedPayment,
  X402_VERSION,
} from './x402Payment';

/** x402 over MCP: the settlement in the result's `_meta` (the payment comes in the request's, MCP_PAYMENT_META). */
export const MCP_PAYMENT_RESPONSE_META = 'x402/payment-response';

/** The facilitator did not answer the verification: nothing was taken, and the same payment may come again. */
const verifyUnavailable = (err: unknown) =>
  new AppError(
    'payment_facilitator_unavailable',
    'The payment facilitator did not answer the verification: nothing was charged and the call did not run; retry the same payment',
    { phase: 'verify', outcome: 'not_charged', cause: err instanceof Error ? err.message : String(err) },
  );

/**
 * The facilitator did not answer the settlement: whether money moved is unknown. The message was
 * not posted; the same payment presented again by the same caller asks the facilitator to settle
 * it again, and posts the message once it is settled.
 */
const settleUnknown = (paymentId: string, err: unknown) =>
  new AppError(
    'payment_facilitator_unavailable',
    'The payment facilitator did not answer the settlement: whether the payment was taken is unknown, and the ' +
      'message was not posted. Present the same payment again: it is settled then (at most once) and the message posted',
    { phase: 'settle', outcome: 'unknown', paymentId, cause: err instanceof Error ? err.message : String(err) },
  );

/** What the agent asks for, in x402's words (v1 `exact`). */
export function x402Requirements(config: X402GateConfig, request: GateRequest): PaymentRequirementsV1 {
  return {
    scheme: 'exact',
    network: config.network as PaymentRequirementsV1['network'],
    maxAmountRequired: config.maxAmountRequired,
    resource: request.resource,
    description: config.description ?? `${request.tool} on the agent ${request.agent.name}`,
    mimeType: 'application/json',
    outputSchema: {},
    payTo: config.payTo,
    maxTimeoutSeconds: config.maxTimeoutSeconds,
    asset: config.asset,
    extra: config.extra ?? {},
  };
}

interface PaymentRow {
  id: string;
  agent_id: string;
  caller_key: string | null;
  status: 'verifying' | 'settling' | 'settled' | 'settle_unknown' | 'settle_failed' | 'invalid';
  credits: number;
  payer: string | null;
  transaction: string | null;
  network: string;
  turn_id: string | null;
  payload: { paymentPayload: PaymentPayloadV1; paymentRequirements: PaymentRequirementsV1 } | null;
}

/**
 * x402 (v1): the first call is refused with the requirements; the caller retries with a signed
 * payment, which the server's facilitator verifies (`POST /verify`) and, once the call is
 * otherwise cleared, settles (`POST /settle`). Each payment is claimed in `agent_payments` before
 * it is verified, by its unique key, so none is settled twice and another caller's replay is
 * refused. Its own caller presenting it again gets what it paid for: the turn it bought (or the
 * message posted now, if none was), or, after a settlement of unknown outcome, a new settlement.
 */
export function x402Gate(ctx: AppContext, config: X402GateConfig): PaymentGate {
  const facilitator = new HTTPFacilitatorClient({
    url: ctx.config.X402_FACILITATOR_URL,
    timeoutMs: ctx.config.X402_FACILITATOR_TIMEOUT_MS,
  });
  const svm = isSvmNetwork(config.network);
  const payments = () => ctx.db('agent_payments');

  /** The receipt of a settled payment: what the payer is told, now or when it asks again. */
  const receiptOf = (paymentId: string, settlement: Omit<SettleResponse, 'success'>): PaymentReceipt => {
    const stated = {
      success: true,
      transaction: settlement.transaction,
      network: settlement.network,
      payer: settlement.payer ?? '',
    };
    return {
      paymentId,
      transaction: stated.transaction,
      network: stated.network,
      payer: stated.payer || null,
      headers: { 'X-PAYMENT-RESPONSE': encodePaymentResponseHeader(stated as SettleResponse) },
      settlement: stated,
    };
  };

  /** Settles a payment whose row this request moved to `settling` (from `verifying`, or `settle_unknown` on a retry). */
  async function settleMoved(
    row: Pick<PaymentRow, 'id' | 'payer'>,
    payment: PaymentPayloadV1,
    requirements: PaymentRequirementsV1,
    retry: boolean,
  ): Promise<PaymentReceipt> {
    let settled: SettleResponse;
    try {
      settled = await facilitator.settle(payment as never, requirements as never);
    } catch (err) {
      if (!(err instanceof SettleError)) {
        // No answer: unknown whether money moved. The claim stays (no one else may use the
        // payment); its caller presenting it again settles it again (settle_unknown → settling).
        await payments()
          .where({ id: row.id })
          .update({
            status: 'settle_unknown',
            error: JSON.stringify({ reason: 'facilitator_unavailable', phase: 'settle', outcome: 'unknown' }),
          });
        throw settleUnknown(row.id, err);
      }
      settled = { success: false, errorReason: err.errorReason, transaction: err.transaction, network: err.network };
    }
    if (!settled.success) {
      const reason = settled.errorReason ?? 'settlement_failed';
      await payments()
        .where({ id: row.id })
        .update({
          status: 'settle_failed',
          // After an unknown outcome, a refusal may mean the first settlement landed (a used nonce):
          // `afterUnknown` marks the rows to reconcile against the chain.
          error: JSON.stringify({ reason, phase: 'settle', outcome: 'failed', ...(retry && { afterUnknown: true }) }),
        });
      const paymentRequired: PaymentRequiredV1 = { x402Version: X402_VERSION, error: reason, accepts: [requirements] };
      throw new PaymentRefused(
        'payment_settlement_failed',
        `The facilitator refused to settle the payment (${reason}): nothing was taken, the message was not posted and no credits were charged; sign a new payment`,
        paymentRequired,
        { phase: 'settle', outcome: 'failed', paymentId: row.id },
      );
    }
    const payer = settled.payer ?? row.payer ?? null;
    await payments().where({ id: row.id }).update({
      status: 'settled',
      transaction: settled.transaction,
      payer,
      settled_at: ctx.db.fn.now(),
      error: null,
    });
    return receiptOf(row.id, { ...settled, payer: payer ?? undefined });
  }

  /** What binds a posted turn to the payment, once settled. */
  const turnBinding = (paymentId: string) => ({
    async bindTurn(trx: Knex.Transaction, turnId: string, replacing: string | null): Promise<boolean> {
      const bound = await trx('agent_payments')
        .where({ id: paymentId, status: 'settled' })
        .where((q) => void (replacing ? q.where('turn_id', replacing) : q.whereNull('turn_id')))
        .update({ turn_id: turnId });
      return bound === 1;
    },
    async boundTurn(): Promise<string | null> {
      return (await payments().where({ id: paymentId }).first('turn_id'))?.turn_id ?? null;
    },
    async recordCredits(credits: number): Promise<void> {
      await payments().where({ id: paymentId }).update({ credits });
    },
  });

  return {
    kind: 'x402',
    async check(request: GateRequest): Promise<GateVerdict> {
      const requirements = x402Requirements(config, request);
      const refuse = (reason: string, message: string, error = message): GateVerdict => {
        const paymentRequired: PaymentRequiredV1 = { x402Version: X402_VERSION, error, accepts: [requirements] };
        return { allowed: false, refusal: new PaymentRefused(reason, message, paymentRequired) };
      };

      const presented = presentedPayment(request);
      if (presented === undefined)
        return refuse(
          'payment_missing',
          `This agent asks callers outside its team to pay per call: send an x402 payment (header X-PAYMENT) for ${requirements.maxAmountRequired} of ${requirements.asset} on ${requirements.network}`,
          'X-PAYMENT header is required',
        );
      const parsed = paymentPayloadSchema(svm).safeParse(presented);
      const key = parsed.success ? paymentKey(parsed.data as PaymentPayloadV1) : undefined;
      if (!parsed.success || !isPaymentPayloadV1(presented) || !key)
        return refuse(
          'payment_malformed',
          `The payment is not an x402 (version 1) payment payload of the ${svm ? 'SVM' : 'EVM'} exact scheme (base64 JSON in X-PAYMENT, or the object in _meta["${MCP_PAYMENT_META}"]), with no other fields`,
        );
      const payment = parsed.data as PaymentPayloadV1;
      if (payment.scheme !== requirements.scheme || payment.network !== requirements.network)
        return refuse(
          'payment_mismatch',
          `The payment is for scheme ${payment.scheme} on ${payment.network}; this agent accepts ${requirements.scheme} on ${requirements.network}`,
        );

      const [claimed] = await payments()
        .insert({
          id: newId('pay'),
          team_id: request.agent.teamId,
          agent_id: request.agent.id,
          caller_team_id: request.caller.teamId,
          caller_key: request.caller.key,
          tool: request.tool,
          payment_key: key,
          scheme: requirements.scheme,
          network: requirements.network,
          amount: requirements.maxAmountRequired,
          asset: requirements.asset,
          pay_to: requirements.payTo,
          status: 'verifying',
          payload: JSON.stringify({ paymentPayload: payment, paymentRequirements: requirements }),
        })
        .onConflict('payment_key')
        .ignore()
        .returning('id');
      if (!claimed) return presentedAgain(key, request, refuse);
      const paymentId: string = claimed.id;
      const release = async () => {
        await payments().where({ id: paymentId, status: 'verifying' }).delete();
      };

      let verified: VerifyResponse;
      try {
        verified = await facilitator.verify(payment as never, requirements as never);
      } catch (err) {
        if (!(err instanceof VerifyError)) {
          // Not an answer about the payment: it was not used, so it may be presented again.
          await release();
          throw verifyUnavailable(err);
        }
        verified = { isValid: false, invalidReason: err.invalidReason, payer: err.payer };
      }
      if (!verified.isValid) {
        const reason = verified.invalidReason ?? 'invalid_payment';
        await payments()
          .where({ id: paymentId })
          .update({ status: 'invalid', payer: verified.payer ?? null, error: JSON.stringify({ reason }) });
        return refuse('payment_invalid', `The facilitator refused the payment: ${reason}`, reason);
      }
      const payer = verified.payer ?? null;
      await payments().where({ id: paymentId }).update({ payer });

      return {
        allowed: true,
        payment: {
          charged: false,
          credits: 0,
          turnId: null,
          release,
          ...turnBinding(paymentId),
          async settle(): Promise<PaymentReceipt> {
            // The row moves out of `verifying` once: a second settle of this verdict finds nothing to move.
            const moved = await payments().where({ id: paymentId, status: 'verifying' }).update({ status: 'settling' });
            if (moved !== 1) throw new Error(`Payment ${paymentId} was already settled or released`);
            return settleMoved({ id: paymentId, payer }, payment, requirements, false);
          },
        },
      };
    },
  };

  /**
   * A payment whose key is claimed already. Another caller's (or another agent's): replayed. Its
   * own caller's: settled, the turn it bought (or none yet: post it); settled with an unknown
   * outcome, settled again; still being taken by another request, or refused: replayed.
   */
  async function presentedAgain(
    key: string,
    request: GateRequest,
    refuse: (reason: string, message: string) => GateVerdict,
  ): Promise<GateVerdict> {
    const row: PaymentRow | undefined = await payments()
      .where({ payment_key: key })
      .first(
        'id',
        'agent_id',
        'caller_key',
        'status',
        'credits',
        'payer',
        'transaction',
        'network',
        'turn_id',
        'payload',
      );
    if (!row || row.agent_id !== request.agent.id || row.caller_key !== request.caller.key)
      return refuse('payment_replayed', 'This payment was already presented; sign a new one');
    const again = { charged: true, credits: row.credits, release: async () => undefined, ...turnBinding(row.id) };
    if (row.status === 'settled')
      return {
        allowed: true,
        payment: {
          ...again,
          turnId: row.turn_id,
          settle: async () =>
            receiptOf(row.id, {
              transaction: row.transaction ?? '',
              network: row.network as never,
              payer: row.payer ?? undefined,
            }),
        },
      };
    if (row.status === 'settle_unknown' && row.payload) {
      const moved = await payments().where({ id: row.id, status: 'settle_unknown' }).update({ status: 'settling' });
      if (moved === 1) {
        const { paymentPayload, paymentRequirements } = row.payload;
        return {
          allowed: true,
          payment: {
            ...again,
            turnId: null,
            settle: () => settleMoved(row, paymentPayload, paymentRequirements, true),
          },
        };
      }
    }
    if (row.status === 'verifying' || row.status === 'settling' || row.status === 'settle_unknown')
      return refuse(
        'payment_replayed',
        'This payment is being taken for another request of yours right now; present it again once that one is answered',
      );
    return refuse('payment_replayed', 'This payment was refused before; sign a new one');
  }
}
