import type { Db } from '../../db/knex';

/** A quarter second of slots per round trip to Postgres: few trips, and little lost when a worker dies. */
const RESERVE_SECONDS = 0.25;

/**
 * Evenly spaced send slots for one integration at `perSecond`, shared by every worker: Postgres
 * hands out disjoint blocks of slots (row `send_rate_slots.<key>`), so two workers together keep
 * the same rate as one. Slots are 1/rate apart, so no second holds more than the rate; a block a
 * dead worker reserved is only a short pause, never a burst.
 */
export class SendPacer {
  private readonly slots: number[] = [];
  private turn: Promise<void> = Promise.resolve();
  /** When this process last let a message go: a late slot never leaves less than an interval after it. */
  private lastAt = 0;
  private readonly intervalMs: number;

  constructor(
    private readonly db: Db,
    private readonly key: string,
    private readonly perSecond: number,
  ) {
    this.intervalMs = 1000 / perSecond;
  }

  /**
   * Resolves when the next message may leave. Callers are served one at a time, in order, so
   * slots are booked a block at a time as they are used, never far ahead of the clock.
   */
  next(): Promise<void> {
    const mine = this.turn.then(() => this.waitForSlot());
    this.turn = mine.catch(() => undefined);
    return mine;
  }

  private async waitForSlot(): Promise<void> {
    // A slot that passed while this process was busy is gone: using it late would send two at once.
    while (this.slots.length && this.slots[0] < Date.now() - this.intervalMs) this.slots.shift();
    if (!this.slots.length) await this.reserve();
    const at = Math.max(this.slots.shift()!, this.lastAt + this.intervalMs);
    const wait = at - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    this.lastAt = Date.now();
  }

  private async reserve(): Promise<void> {
    const count = Math.max(1, Math.ceil(this.perSecond * RESERVE_SECONDS));
    const spanSeconds = count / this.perSecond;
    // Times relative to the database's clock, so workers on machines whose clocks differ still agree.
    const { rows } = await this.db.raw(
      `INSERT INTO send_rate_slots (key, next_at) VALUES (?, clock_timestamp() + make_interval(secs => ?))
       ON CONFLICT (key) DO UPDATE SET next_at = greatest(send_rate_slots.next_at, clock_timestamp()) + make_interval(secs => ?)
       RETURNING extract(epoch FROM next_at - clock_timestamp()) * 1000 AS ends_in_ms`,
      [this.key, spanSeconds, spanSeconds],
    );
    const firstAt = Date.now() + Number(rows[0].ends_in_ms) - spanSeconds * 1000;
    for (let i = 0; i < count; i++) this.slots.push(firstAt + i * this.intervalMs);
  }
}
