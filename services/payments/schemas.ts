import { z } from 'zod';

/** An EVM address or a Solana (base58) one: what x402's `exact` scheme pays to and pays in. */
const address = z
  .string()
  .regex(/^(0x[0-9a-fA-F]{40}|[1-9A-HJ-NP-Za-km-z]{32,44})$/, 'an EVM (0x…, 40 hex digits) or Solana (base58) address');

/**
 * The x402 gate of an agent: what an outside caller pays per `prompt_agent` call. The facilitator
 * that verifies and settles is the server's (X402_FACILITATOR_URL), not the team's: the server
 * never POSTs to an address a team typed.
 */
export const x402GateSchema = z.strictObject({
  kind: z.literal('x402'),
  network: z
    .string()
    .regex(/^[a-z0-9-]{2,40}(:[A-Za-z0-9-]{1,60})?$/, 'an x402 network name (base, base-sepolia, …) or a CAIP-2 id')
    .describe('e.g. base-sepolia, base, avalanche-fuji, solana-devnet'),
  payTo: address.describe("The team's wallet that receives the payment"),
  asset: address.describe('The token contract (e.g. USDC on the network) the amount is counted in'),
  maxAmountRequired: z
    .string()
    .regex(/^[1-9][0-9]{0,38}$/, "a positive whole number of the asset's atomic units, as a string")
    .describe("Price per call in the asset's atomic units (USDC: 10000 = 0.01 USDC)"),
  description: z.string().trim().min(1).max(500).optional().describe('What the payment buys, shown to the payer'),
  maxTimeoutSeconds: z.number().int().min(10).max(3600).default(60),
  /** Scheme-specific parameters: for EVM `exact`, the token's EIP-712 domain `{ name, version }`. */
  extra: z
    .record(z.string().max(40), z.union([z.string().max(200), z.number(), z.boolean()]))
    .refine((r) => Object.keys(r).length <= 10, 'at most 10 keys')
    .optional(),
});
export type X402GateConfig = z.infer<typeof x402GateSchema>;

export const paymentGateSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('off') }),
  x402GateSchema,
]);
export type PaymentGateConfig = z.infer<typeof paymentGateSchema>;

/**
 * Who may prompt an agent besides its own team. Closed by default: `public: false` keeps
 * `/mcp/agents/{uuid}` to the team's own credentials, as before this setting existed.
 */
export const agentAccessSchema = z.object({
  /** Open `prompt_agent` (and only it) on `/mcp/agents/{uuid}` to authenticated callers of other teams. */
  public: z.boolean().default(false),
  /** What an outside caller must satisfy first; the team's own callers are never gated. */
  paymentGate: paymentGateSchema.default({ kind: 'off' }),
});
export type AgentAccess = z.infer<typeof agentAccessSchema>;

/** `PATCH /agents/{id}` `{ access: … }`: a field left out stays as it is. */
export const agentAccessUpdateSchema = z.strictObject({
  public: z.boolean().optional(),
  paymentGate: paymentGateSchema.optional(),
});
export type AgentAccessUpdate = z.infer<typeof agentAccessUpdateSchema>;

/** The stored value, read leniently: a row written before a field existed gets its default. */
export const readAgentAccess = (stored: unknown): AgentAccess => {
  const parsed = agentAccessSchema.safeParse(stored ?? {});
  return parsed.success ? parsed.data : agentAccessSchema.parse({});
};
