import { z } from 'zod';
import type { Db } from '../../db/knex';
import { AppError } from './errors';
import type { TeamRef } from './context';

/** What an MCP tool call costs: reads 1 credit, writes 2 (the spec's Limits). */
export const CREDIT_COST = { read: 1, write: 2 } as const;

export const creditUsageSchema = z.object({
  plan: z.string(),
  /** Null: the plan is not metered. */
  allowance: z.number().int().nullable(),
  used: z.number().int(),
  remaining: z.number().int().nullable(),
  /** Tool calls charged this cycle, and calls refused for want of credits. */
  calls: z.number().int(),
  refused: z.number().int(),
  cycleStart: z.iso.datetime(),
  cycleEnd: z.iso.datetime(),
});
export type CreditUsage = z.infer<typeof creditUsageSchema>;

/** The billing cycle is the calendar month (UTC) that `now` falls in. */
export function billingCycle(now = new Date()): { start: Date; end: Date } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start, end };
}

const cycleDate = (d: Date) => d.toISOString().slice(0, 10);

export async function creditUsage(
  db: Db,
  team: TeamRef,
  allowances: Record<string, number>,
  now = new Date(),
): Promise<CreditUsage> {
  const { start, end } = billingCycle(now);
  const row = await db('credit_usage')
    .where({ team_id: team.id, cycle_start: cycleDate(start) })
    .first('used', 'calls', 'refused');
  const allowance = allowances[team.plan] ?? null;
  const used = row?.used ?? 0;
  return {
    plan: team.plan,
    allowance,
    used,
    remaining: allowance === null ? null : Math.max(0, allowance - used),
    calls: row?.calls ?? 0,
    refused: row?.refused ?? 0,
    cycleStart: start.toISOString(),
    cycleEnd: end.toISOString(),
  };
}

/**
 * Takes `cost` credits from the team's cycle, or refuses with 402 `credits_exhausted` and takes
 * nothing. One conditional upsert on the cycle's row: concurrent calls serialize on its row lock,
 * so the allowance is never overdrawn and never under-counted.
 */
export async function chargeCredits(
  db: Db,
  team: TeamRef,
  allowances: Record<string, number>,
  cost: number,
  now = new Date(),
): Promise<void> {
  const allowance = allowances[team.plan];
  const cycle = cycleDate(billingCycle(now).start);
  if (allowance === undefined) {
    await db.raw(
      `INSERT INTO credit_usage (team_id, cycle_start, used, calls) VALUES (?, ?, ?, 1)
       ON CONFLICT (team_id, cycle_start) DO UPDATE SET used = credit_usage.used + excluded.used, calls = credit_usage.calls + 1, updated_at = now()`,
      [team.id, cycle, cost],
    );
    return;
  }
  const charged = await db.raw(
    `INSERT INTO credit_usage (team_id, cycle_start, used, calls)
     SELECT ?::uuid, ?::date, ?::int, 1 WHERE ?::int <= ?::int
     ON CONFLICT (team_id, cycle_start) DO UPDATE SET used = credit_usage.used + excluded.used, calls = credit_usage.calls + 1, updated_at = now()
       WHERE credit_usage.used + excluded.used <= ?::int
     RETURNING used`,
    [team.id, cycle, cost, cost, allowance, allowance],
  );
  if (charged.rows.length === 1) return;
  const [{ used }] = (
    await db.raw(
      `INSERT INTO credit_usage (team_id, cycle_start, refused) VALUES (?, ?, 1)
     ON CONFLICT (team_id, cycle_start) DO UPDATE SET refused = credit_usage.refused + 1, updated_at = now() RETURNING used`,
      [team.id, cycle],
    )
  ).rows;
  const { end } = billingCycle(now);
  throw new AppError(
    402,
    'credits_exhausted',
    `The team's MCP credits for this billing cycle are used up (${used} of ${allowance}); they reset at ${end.toISOString()}`,
    {
      allowance,
      used,
      cost,
      resetsAt: end.toISOString(),
    },
  );
}

/**
 * Gives back credits charged this cycle for a call that then did not happen (an outside caller's
 * payment whose settlement definitely failed). Never below zero; the call still counts in `calls`.
 */
export async function refundCredits(db: Db, team: TeamRef, cost: number, now = new Date()): Promise<void> {
  await db('credit_usage')
    .where({ team_id: team.id, cycle_start: cycleDate(billingCycle(now).start) })
    .update({ used: db.raw('GREATEST(used - ?, 0)', [cost]), updated_at: db.fn.now() });
}
