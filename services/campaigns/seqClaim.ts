import type { Knex } from 'knex';
import type { Db } from '../../db/knex';

/**
 * Runs a bulk send's claim (campaign recipients, a cohort's members: the next rows after a
 * watermark in `seq` order, a chunk at a time) with the plan it is written for: a walk of the
 * `seq` index from the watermark that stops at the limit. Postgres's estimate of the rows left past
 * the watermark falls as its statistics see a send move them on, and it then plans otherwise:
 * parallel workers started for a few hundred rows (75 ms a claim to launch them on two busy
 * cores), or a sort of every row left (docs/BENCHMARKS.md › Run 45). Both are off for this
 * statement alone.
 */
export function claimInSeqOrder<Row>(db: Db, claim: (trx: Knex.Transaction) => Promise<Row[]>): Promise<Row[]> {
  return db.transaction(async (trx) => {
    await trx.raw(
      'SET LOCAL max_parallel_workers_per_gather = 0; SET LOCAL enable_sort = off; SET LOCAL enable_bitmapscan = off',
    );
    return claim(trx);
  });
}
