import { createHash } from 'node:crypto';
import { z } from 'zod';
import { decodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayloadV1 } from '@x402/core/types';
import type { GateRequest } from './gate';

/**
 * What an x402 caller presents (services/payments/x402.ts is the gate that takes it): where the
 * payment is read from, the strict shape it must have, and the key that lets it be used once.
 */

/** The x402 version the gate speaks: `X-PAYMENT` in, `X-PAYMENT-RESPONSE` out, `maxAmountRequired`. */
export const X402_VERSION = 1;
/** x402 over MCP: the payment payload in the request's `_meta` (the settlement comes back in the result's). */
export const MCP_PAYMENT_META = 'x402/payment';

/**
 * The payment a request carries: MCP's `_meta["x402/payment"]` (the object), else `X-PAYMENT`
 * (base64 JSON). `_meta` wins: it belongs to this call, while a header may be a transport's
 * leftover from an earlier one.
 */
export function presentedPayment(request: GateRequest): unknown {
  const meta = request.meta?.[MCP_PAYMENT_META];
  if (meta !== undefined) return meta;
  const header = request.headers['x-payment'];
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === '') return undefined;
  try {
    return decodePaymentSignatureHeader(value.trim());
  } catch {
    return { malformed: true };
  }
}

const hex = (digits: number) => z.string().regex(new RegExp(`^0x[0-9a-fA-F]{${digits}}$`));
const uint = z.string().regex(/^[0-9]{1,78}$/);

/** EVM `exact`: an EIP-3009 authorization and its signature, nothing else. */
const evmExactPayload = z.strictObject({
  signature: z.string().regex(/^0x[0-9a-fA-F]{2,1024}$/),
  authorization: z.strictObject({
    from: hex(40),
    to: hex(40),
    value: uint,
    validAfter: uint,
    validBefore: uint,
    nonce: hex(64),
  }),
});

/** SVM `exact`: a partially signed Solana transaction (base64), nothing else. */
const svmExactPayload = z.strictObject({
  transaction: z
    .string()
    .max(4096)
    .regex(/^[A-Za-z0-9+/]+={0,2}$/),
});

/** An x402 v1 PaymentPayload, strictly: an unknown key anywhere is a malformed payment. */
export const paymentPayloadSchema = (svm: boolean) =>
  z.strictObject({
    x402Version: z.literal(X402_VERSION),
    scheme: z.string().min(1).max(40),
    network: z.string().min(1).max(100),
    payload: svm ? svmExactPayload : evmExactPayload,
  });

/** Solana networks (x402 names `solana`, `solana-devnet`, or CAIP-2 `solana:<genesis>`); any other is EVM. */
export const isSvmNetwork = (network: string) => /^solana([-:]|$)/.test(network);

/**
 * The message of a Solana transaction (its bytes after the signatures): what its signers signed.
 * Keying by it, not by the bytes as sent, makes one transaction one key however its base64 is
 * written or whatever sits in the fee payer's empty signature slot. Undefined: not a transaction.
 */
function svmMessageDigest(transaction: string): string | undefined {
  const bytes = Buffer.from(transaction, 'base64');
  // The signature count: a compact-u16 (1 to 3 bytes, 7 bits each).
  let count = 0;
  let i = 0;
  for (let shift = 0; ; shift += 7) {
    if (i >= bytes.length || i >= 3) return undefined;
    const byte = bytes[i++];
    count |= (byte & 0x7f) << shift;
    if (!(byte & 0x80)) break;
  }
  const messageStart = i + 64 * count;
  if (count < 1 || messageStart >= bytes.length) return undefined;
  return createHash('sha256').update(bytes.subarray(messageStart)).digest('hex');
}

/**
 * One use per payment: the EVM `exact` scheme signs an EIP-3009 authorization whose nonce the
 * payer picks once (`<network>:<from>:<nonce>`, lower-cased); the SVM one a Solana transaction,
 * keyed by the digest of its message (`<network>:svm:<sha256>`). Undefined: no such transaction.
 */
export function paymentKey(payment: PaymentPayloadV1): string | undefined {
  if (isSvmNetwork(payment.network)) {
    const digest = svmMessageDigest((payment.payload as { transaction: string }).transaction);
    return digest && `${payment.network}:svm:${digest}`;
  }
  const { authorization: auth } = payment.payload as z.infer<typeof evmExactPayload>;
  return `${payment.network}:${auth.from.toLowerCase()}:${auth.nonce.toLowerCase()}`;
}
