import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayloadV1, PaymentRequirementsV1 } from '@x402/core/types';

/** What the facilitator was asked, in arrival order. */
export interface FacilitatorCall {
  path: '/verify' | '/settle';
  body: { x402Version: number; paymentPayload: PaymentPayloadV1; paymentRequirements: PaymentRequirementsV1 };
}

/** An EIP-3009 authorization, as x402's EVM `exact` scheme signs it. */
export interface Authorization {
  from: string;
  to: string;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: string;
}

/**
 * An x402 facilitator over real HTTP (`POST /verify`, `POST /settle`, x402 version 1), standing in
 * for a chain: a payment is valid when its "signature" is this fake's HMAC of the authorization
 * (what a wallet's EIP-712 signature is to a real one), it pays the requirements' `payTo` at least
 * `maxAmountRequired` on their network, is within its validity window and the payer's balance
 * covers it; a settled nonce cannot settle again (the token contract's rule). Knobs: force an
 * invalid reason, fail settlements, answer 503.
 */
export class FakeFacilitator {
  private server?: http.Server;
  readonly calls: FacilitatorCall[] = [];
  private readonly key = randomBytes(16);
  private readonly balances = new Map<string, bigint>();
  private readonly usedNonces = new Set<string>();
  /** Settled transfers (the "chain"). */
  readonly transfers: { from: string; to: string; value: string; transaction: string }[] = [];
  forceInvalid: string | null = null;
  failSettlement: string | null = null;
  unavailable = false;
  /** `/settle` answers 503 without settling (verify still answers): an outcome the server cannot know. */
  settleUnavailable = false;
  /** `/settle` waits this long before answering (to hold two requests in flight at once). */
  settleDelayMs = 0;
  url = '';

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  reset(): void {
    this.calls.length = 0;
    this.forceInvalid = null;
    this.failSettlement = null;
    this.unavailable = false;
    this.settleUnavailable = false;
    this.settleDelayMs = 0;
  }

  fund(wallet: string, amount: bigint): void {
    this.balances.set(wallet.toLowerCase(), (this.balances.get(wallet.toLowerCase()) ?? 0n) + amount);
  }

  balance(wallet: string): bigint {
    return this.balances.get(wallet.toLowerCase()) ?? 0n;
  }

  /** A payer's signed payment for these requirements, as an x402 client builds it. */
  pay(
    from: string,
    requirements: PaymentRequirementsV1,
    overrides: Partial<Authorization> = {},
    signature?: string,
  ): PaymentPayloadV1 {
    const now = Math.floor(Date.now() / 1000);
    const authorization: Authorization = {
      from,
      to: requirements.payTo,
      value: requirements.maxAmountRequired,
      validAfter: String(now - 60),
      validBefore: String(now + requirements.maxTimeoutSeconds),
      nonce: `0x${randomBytes(32).toString('hex')}`,
      ...overrides,
    };
    return {
      x402Version: 1,
      scheme: requirements.scheme,
      network: requirements.network,
      payload: { signature: signature ?? this.sign(authorization), authorization },
    };
  }

  /**
   * A payer's Solana payment (SVM `exact`): a transaction in wire format, its fee payer's signature
   * slot empty (the facilitator fills it) and the payer's signature over the message. The message
   * is random bytes here (this fake reads only its length); `feePayerSlot` fills the empty slot.
   */
  paySvm(
    requirements: PaymentRequirementsV1,
    message = randomBytes(121),
    feePayerSlot = Buffer.alloc(64),
  ): PaymentPayloadV1 {
    // The payer's 64-byte slot: this fake's HMAC of the message, twice.
    const mac = createHmac('sha256', this.key).update(message).digest();
    const transaction = Buffer.concat([Buffer.from([2]), feePayerSlot, mac, mac, message]);
    return {
      x402Version: 1,
      scheme: requirements.scheme,
      network: requirements.network,
      payload: { transaction: transaction.toString('base64') },
    };
  }

  /** The X-PAYMENT header's value for a payment. */
  header(payment: PaymentPayloadV1): string {
    return encodePaymentSignatureHeader(payment as never);
  }

  private sign(authorization: Authorization): string {
    return `0x${createHmac('sha256', this.key).update(JSON.stringify(authorization)).digest('hex')}`;
  }

  private check(body: FacilitatorCall['body']): { reason: string | null; auth: Authorization } {
    const { paymentPayload: payment, paymentRequirements: req } = body;
    const svm = (payment.payload as { transaction?: string }).transaction;
    if (svm !== undefined) {
      // Solana: signed by this fake's key over the message (the last bytes after the three 64-byte slots).
      const bytes = Buffer.from(svm, 'base64');
      const message = bytes.subarray(1 + 64 * 2);
      const mac = createHmac('sha256', this.key).update(message).digest();
      const valid = bytes.subarray(65, 129).equals(Buffer.concat([mac, mac]));
      const reason =
        this.forceInvalid ??
        (payment.network !== req.network ? 'invalid_network' : valid ? null : 'invalid_svm_signature');
      return {
        reason,
        auth: {
          from: SVM_PAYER,
          to: req.payTo,
          value: req.maxAmountRequired,
          validAfter: '0',
          validBefore: '0',
          nonce: message.toString('hex'),
        },
      };
    }
    const { signature, authorization: auth } = payment.payload as { signature: string; authorization: Authorization };
    const now = Math.floor(Date.now() / 1000);
    const reason = this.forceInvalid
      ? this.forceInvalid
      : payment.scheme !== 'exact' || req.scheme !== 'exact'
        ? 'unsupported_scheme'
        : payment.network !== req.network
          ? 'invalid_network'
          : signature !== this.sign(auth)
            ? 'invalid_exact_evm_payload_signature'
            : auth.to.toLowerCase() !== req.payTo.toLowerCase()
              ? 'invalid_exact_evm_payload_recipient_mismatch'
              : BigInt(auth.value) < BigInt(req.maxAmountRequired)
                ? 'invalid_exact_evm_payload_authorization_value'
                : Number(auth.validBefore) < now || Number(auth.validAfter) > now
                  ? 'invalid_exact_evm_payload_authorization_valid_before'
                  : this.usedNonces.has(auth.nonce)
                    ? 'invalid_exact_evm_payload_authorization_nonce_used'
                    : this.balance(auth.from) < BigInt(auth.value)
                      ? 'insufficient_funds'
                      : null;
    return { reason, auth };
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const send = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (this.unavailable) return void send(503, { error: 'unavailable' });
    const path = req.url as FacilitatorCall['path'];
    if (req.method !== 'POST' || (path !== '/verify' && path !== '/settle')) return void send(404, {});
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as FacilitatorCall['body'];
    this.calls.push({ path, body });
    const { reason, auth } = this.check(body);
    const network = body.paymentRequirements.network;
    if (path === '/verify') {
      return void send(
        200,
        reason ? { isValid: false, invalidReason: reason, payer: auth.from } : { isValid: true, payer: auth.from },
      );
    }
    if (this.settleDelayMs) await new Promise((resolve) => setTimeout(resolve, this.settleDelayMs));
    if (this.settleUnavailable) return void send(503, { error: 'unavailable' });
    const failure = reason ?? this.failSettlement;
    if (failure)
      return void send(200, { success: false, errorReason: failure, transaction: '', network, payer: auth.from });
    this.usedNonces.add(auth.nonce);
    this.balances.set(auth.from.toLowerCase(), this.balance(auth.from) - BigInt(auth.value));
    const transaction = `0x${randomBytes(32).toString('hex')}`;
    this.transfers.push({ from: auth.from, to: auth.to, value: auth.value, transaction });
    send(200, { success: true, transaction, network, payer: auth.from });
  }
}

/** The payer of every Solana payment this fake makes. */
export const SVM_PAYER = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';

export const startFacilitator = () => new FakeFacilitator().start();
