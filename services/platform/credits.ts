import { randomInt } from 'node:crypto';
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
 * The rows an unmetered team's cycle is counted on. A process has at most one count of a team in
 * flight (below), but every API process counts: each count takes one of these rows at random, so
 * that the processes do not queue on one row's lock until each commit is flushed.
 */
const UNMETERED_COUNTER_ROWS = 16;

/** Credits of the cycle counted on rows other than 0 (charged while the team was unmetered). */
const usedOffRowZero = `(SELECT coalesce(sum(other.used), 0) FROM credit_usage other
   WHERE other.team_id = ?::uuid AND other.cycle_start = ?::date AND other.shard <> 0)`;

/** Unmetered calls of one team's cycle counted by one statement, and who waits for it. */
interface Tally {
  used: number;
  calls: number;
  settle: { resolve: () => void; reject: (err: unknown) => void }[];
}

/** A team cycle's count in flight in this process: the calls that arrived meanwhile wait in `next`. */
interface Counting {
  next?: Tally;
}

const counting = new WeakMap<Db, Map<string, Counting>>();

/**
 * Counts an unmetered team's call on one of its cycle's counter rows, settled once that count has
 * committed. The calls that arrive while a count of the team is in flight are counted together by
 * the next statement: a busy team costs Postgres a write and a commit a batch, not a call, and no
 * call is answered before its count is durable. A count that fails fails the calls waiting for the
 * next one too: a database that does not answer one would keep them waiting past their deadline.
 */
function countUnmetered(db: Db, teamId: string, cycle: string, cost: number): Promise<void> {
  let byCycle = counting.get(db);
  if (!byCycle) counting.set(db, (byCycle = new Map()));
  const key = `${teamId} ${cycle}`;
  const inFlight = byCycle.get(key);
  const count = inFlight ?? {};
  const tally = (count.next ??= { used: 0, calls: 0, settle: [] });
  tally.used += cost;
  tally.calls += 1;
  const counted = new Promise<void>((resolve, reject) => tally.settle.push({ resolve, reject }));
  if (!inFlight) {
    byCycle.set(key, count);
    void countUntilDone(db, teamId, cycle, count, () => byCycle.delete(key));
  }
  return counted;
}

/** The tally waiting for the next count, now taken out of the queue. */
function take(count: Counting): Tally | undefined {
  const tally = count.next;
  count.next = undefined;
  return tally;
}

/** Runs the counts of `count` until none waits; `done` is called in the same tick as the last check. */
async function countUntilDone(db: Db, teamId: string, cycle: string, count: Counting, done: () => void): Promise<void> {
  for (let tally = take(count); tally; tally = take(count)) {
    try {
      await db.raw(
        `INSERT INTO credit_usage (team_id, cycle_start, shard, used, calls) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (team_id, cycle_start, shard) DO UPDATE SET used = credit_usage.used + excluded.used, calls = credit_usage.calls + excluded.calls, updated_at = now()`,
        [teamId, cycle, randomInt(UNMETERED_COUNTER_ROWS), tally.used, tally.calls],
      );
      for (const { resolve } of tally.settle) resolve();
    } catch (err) {
      for (const { reject } of [...tally.settle, ...(take(count)?.settle ?? [])]) reject(err);
    }
  }
  done();
}

/** Whether the team's plan has an allowance (MCP_CREDITS), which a charge may refuse. */
export const isMetered = (team: TeamRef, allowances: Record<string, number>): boolean =>
  allowances[team.plan] !== undefined;

/**
 * Takes `cost` credits from the team's cycle, or refuses with 402 `credits_exhausted` and takes
 * nothing. A metered charge is one conditional upsert on the cycle's row 0, against the sum of
 * all its rows: concurrent calls serialize on that row's lock, so the allowance is never
 * overdrawn and never under-counted. An unmetered charge refuses nothing, so it only counts
 * (`countUnmetered`).
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
  if (allowance === undefined) return countUnmetered(db, team.id, cycle, cost);
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
