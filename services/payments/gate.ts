import type { PaymentRequiredV1 } from '@x402/core/types';
import type { Knex } from 'knex';
import type { Principal } from '../identity/principal';
import { AppError } from '../platform/errors';
import type { PaymentGateConfig } from './schemas';

/** One call an outside caller makes to a gated tool: what a gate may look at. */
export interface GateRequest {
  agent: { id: string; teamId: string; name: string };
  /**
   * `key` names the caller exactly (its own room's name: its team and its user or OAuth client):
   * a payment presented again is answered only for the caller it was taken from.
   */
  caller: { teamId: string; principal: Principal; key: string };
  tool: string;
  /** The URL the caller called (x402's `resource`). */
  resource: string;
  /** The request's headers, lower-cased (x402: `x-payment`). */
  headers: Record<string, string | string[] | undefined>;
  /** The JSON-RPC request's `params._meta` (x402 over MCP: `x402/payment`). */
  meta?: Record<string, unknown>;
}

/** What a payment that went through leaves behind: the ledger row and what to tell the payer. */
export interface PaymentReceipt {
  paymentId: string;
  transaction: string;
  network: string;
  payer: string | null;
  /** Response headers (x402: `X-PAYMENT-RESPONSE`). */
  headers: Record<string, string>;
  /** The settlement as the protocol states it, for clients that read no headers (MCP `_meta`). */
  settlement: Record<string, unknown>;
}

/**
 * A payment checked but not taken yet (take it at most once, or give up the claim on it), or one
 * its caller presents again after an earlier request took (or began to take) it: then `charged`
 * is true (its credits were charged then) and `turnId` is the turn it bought, if one was posted.
 */
export interface HeldPayment {
  /** The credits for this payment were charged by an earlier request (how many: `credits`): not again. */
  readonly charged: boolean;
  readonly credits: number;
  /** The turn this payment bought (a payment presented again), or null: none was posted yet. */
  readonly turnId: string | null;
  /** Records the credits charged for this payment (refunded if its settlement definitely fails). */
  recordCredits(credits: number): Promise<void>;
  /** Takes the payment; a payment settled before answers its stored receipt and asks nobody. */
  settle(): Promise<PaymentReceipt | null>;
  release(): Promise<void>;
  /**
   * In the transaction that posts the message: binds its turn to the payment (replacing
   * `replacing`, a turn that never started). False: another request bound one first.
   */
  bindTurn(trx: Knex.Transaction, turnId: string, replacing: string | null): Promise<boolean>;
  /** The turn bound to the payment now. */
  boundTurn(): Promise<string | null>;
}

export type GateVerdict = { allowed: true; payment: HeldPayment } | { allowed: false; refusal: PaymentRefused };

/**
 * A pluggable check in front of a tool for callers outside the agent's team. `check` moves no
 * money: it says whether the request carries what the gate asks for. The caller of a gate settles
 * only after its own last refusal (credits) is behind it, so nothing is paid for a call that is
 * then refused.
 */
export interface PaymentGate {
  readonly kind: PaymentGateConfig['kind'];
  check(request: GateRequest): Promise<GateVerdict>;
}

/**
 * HTTP 402: pay (again). `paymentRequired` is x402's PaymentRequired (v1: `x402Version`,
 * `error`, `accepts`); `reason` says why this request did not do: `payment_missing`,
 * `payment_malformed`, `payment_mismatch`, `payment_replayed`, `payment_invalid` (the
 * facilitator's reason in `paymentRequired.error`) or `payment_settlement_failed` (with
 * `phase: 'settle'`, `outcome: 'failed'` and the `paymentId` in `extra`).
 */
export class PaymentRefused extends AppError {
  constructor(
    readonly reason: string,
    message: string,
    readonly paymentRequired: PaymentRequiredV1,
    extra: Record<string, unknown> = {},
  ) {
    super('payment_required', message, { reason, ...extra, ...paymentRequired });
  }
}

const nothingHeld: HeldPayment = {
  charged: false,
  credits: 0,
  turnId: null,
  recordCredits: async () => undefined,
  settle: async () => null,
  release: async () => undefined,
  bindTurn: async () => true,
  boundTurn: async () => null,
};

/** The default: nothing to pay. */
export const openGate: PaymentGate = { kind: 'off', check: async () => ({ allowed: true, payment: nothingHeld }) };

/**
 * Check, then `charge` the caller's own credits (refused there: the payment is released, not
 * taken; a payment presented again was charged before and is not charged twice), then settle; the
 * caller runs the work after. Settled before the work runs: the work (a turn, its model tokens)
 * cannot be taken back once started. A settlement that definitely failed refunds the credits
 * (`refund`); one whose outcome is unknown keeps them for the retry that settles it.
 */
export async function takePayment(
  gate: PaymentGate,
  request: GateRequest,
  credits: { cost: number; charge: () => Promise<void>; refund: (credits: number) => Promise<void> },
): Promise<{ receipt: PaymentReceipt | null; payment: HeldPayment }> {
  const verdict = await gate.check(request);
  if (!verdict.allowed) throw verdict.refusal;
  const { payment } = verdict;
  let charged = payment.charged ? payment.credits : 0;
  if (!payment.charged) {
    try {
      await credits.charge();
      charged = credits.cost;
      await payment.recordCredits(charged);
    } catch (err) {
      if (charged) await credits.refund(charged);
      await payment.release();
      throw err;
    }
  }
  try {
    return { receipt: await payment.settle(), payment };
  } catch (err) {
    // Only a definite failure is a refusal: nothing was paid, so nothing is charged either.
    if (err instanceof PaymentRefused && charged) await credits.refund(charged);
    throw err;
  }
}
