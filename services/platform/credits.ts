import { randomInt } from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../../db/knex';
import { AppError } from './errors';
import type { TeamRef } from './context';
import type { Rider } from './pagination';

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
    .first(db.raw('sum(used)::int AS used, sum(calls)::int AS calls, sum(refused)::int AS refused'));
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
 * The rows an unmetered team's cycle is counted on. One row would be one lock for every call of
 * the team, held until the commit is flushed; a charge takes one of these at random instead.
 */
const UNMETERED_COUNTER_ROWS = 16;

/** Credits of the cycle counted on rows other than 0 (charged while the team was unmetered). */
const usedOffRowZero = `(SELECT coalesce(sum(other.used), 0) FROM credit_usage other
   WHERE other.team_id = ?::uuid AND other.cycle_start = ?::date AND other.shard <> 0)`;

/** Counts an unmetered team's call on one of its cycle's counter rows: a statement, to run alone or inside another. */
const unmeteredCharge = (db: Db, team: TeamRef, cost: number, now: Date) =>
  db.raw(
    `INSERT INTO credit_usage (team_id, cycle_start, shard, used, calls) VALUES (?, ?, ?, ?, 1)
     ON CONFLICT (team_id, cycle_start, shard) DO UPDATE SET used = credit_usage.used + excluded.used, calls = credit_usage.calls + 1, updated_at = now()`,
    [team.id, cycleDate(billingCycle(now).start), randomInt(UNMETERED_COUNTER_ROWS), cost],
  );

/**
 * Takes `cost` credits from the team's cycle, or refuses with 402 `credits_exhausted` and takes
 * nothing. A metered charge is one conditional upsert on the cycle's row 0, against the sum of
 * all its rows: concurrent calls serialize on that row's lock, so the allowance is never
 * overdrawn and never under-counted. An unmetered charge refuses nothing, so it only counts, on
 * one of `UNMETERED_COUNTER_ROWS` rows.
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
    await unmeteredCharge(db, team, cost, now);
    return;
  }
  const charged = await db.raw(
    `INSERT INTO credit_usage (team_id, cycle_start, shard, used, calls)
     SELECT ?::uuid, ?::date, 0, ?::int, 1 WHERE ?::int + ${usedOffRowZero} <= ?::int
     ON CONFLICT (team_id, cycle_start, shard) DO UPDATE SET used = credit_usage.used + excluded.used, calls = credit_usage.calls + 1, updated_at = now()
       WHERE credit_usage.used + excluded.used + ${usedOffRowZero} <= ?::int
     RETURNING used`,
    [team.id, cycle, cost, cost, team.id, cycle, allowance, team.id, cycle, allowance],
  );
  if (charged.rows.length === 1) return;
  const [{ used }] = (
    await db.raw(
      `INSERT INTO credit_usage (team_id, cycle_start, refused) VALUES (?, ?, 1)
     ON CONFLICT (team_id, cycle_start, shard) DO UPDATE SET refused = credit_usage.refused + 1, updated_at = now()
     RETURNING used + ${usedOffRowZero} AS used`,
      [team.id, cycle, team.id, cycle],
    )
  ).rows;
  const { end } = billingCycle(now);
  throw new AppError(
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
 * payment whose settlement definitely failed). Taken from a row of the cycle that holds them (row
 * 0 first; the allowance counts the sum); never below zero; the call still counts in `calls`.
 */
export async function refundCredits(db: Db, team: TeamRef, cost: number, now = new Date()): Promise<void> {
  const cycle = cycleDate(billingCycle(now).start);
  await db.raw(
    `UPDATE credit_usage SET used = GREATEST(used - ?, 0), updated_at = now()
      WHERE (team_id, cycle_start, shard) = (
        SELECT team_id, cycle_start, shard FROM credit_usage WHERE team_id = ? AND cycle_start = ?
         ORDER BY used >= ? DESC, shard LIMIT 1)`,
    [cost, team.id, cycle, cost],
  );
}

/**
 * A charge that rides in a read's own statement, as a data-modifying CTE (Postgres runs it once,
 * whether or not the read uses its output): the read and its charge commit together, in one
 * round trip instead of two. `ride` adds it to the query; `charged` says whether a statement that
 * carried it succeeded. A statement whose answer is lost after its commit reads as not charged, so
 * the caller charges again: one call then counts twice, never zero times.
 */
export interface RidingCharge {
  /**
   * Rides in the first query it is given only (one call, one charge), and never in one of a
   * transaction, whose rollback would take the charge back after it read as made.
   */
  ride: Rider;
  readonly charged: boolean;
}

/**
 * The charge of one call as a `RidingCharge`, for an unmetered team only: a metered charge may
 * refuse, and a refused call must not read, so it stays a statement of its own, before the read.
 */
export function ridingCharge(
  db: Db,
  team: TeamRef,
  allowances: Record<string, number>,
  cost: number,
  now = new Date(),
): RidingCharge | undefined {
  if (allowances[team.plan] !== undefined) return undefined;
  let rode = false;
  let charged = false;
  return {
    ride(query) {
      if (rode || (query as { client?: { transacting?: boolean } }).client?.transacting) return;
      rode = true;
      query.with('credit_charge', unmeteredCharge(db, team, cost, now)).on('query-response', () => {
        charged = true;
      });
    },
    get charged() {
      return charged;
    },
  };
}
