import type { Knex } from 'knex';
import { z } from 'zod';
import type { Db } from '../../db/knex';
import { notFound } from '../platform/errors';
import {
  findSession,
  presentProduction,
  ProductionRow,
  productionRefSchema,
  studioProductionSchema,
  StudioProductionJson,
} from './sessions';

export const studioWaitSchema = productionRefSchema.extend({
  timeoutSeconds: z
    .number()
    .int()
    .min(0)
    .max(25)
    .default(20)
    .describe('How long to wait for the production to finish (0..25 s, default 20); call again if it has not'),
});
export type StudioWait = z.infer<typeof studioWaitSchema>;

/** `studio_wait`'s answer: the production as it stands, and whether it is done (succeeded or failed). */
export const productionWaitedSchema = z.object({ done: z.boolean(), production: studioProductionSchema });

const POLL_MS = 250;

/** Production `n` of the session, or its latest (404 when there is none). */
export async function findProduction(
  db: Db | Knex.Transaction,
  teamId: string,
  sessionId: string,
  n?: number,
  lock = false,
  onlyAgent: string | null = null,
): Promise<ProductionRow> {
  const session = await findSession(db, teamId, sessionId, false, onlyAgent);
  const query = db('studio_productions').where({ session_id: session.id });
  if (n !== undefined) query.where({ n });
  const row: ProductionRow | undefined = await (lock
    ? query.orderBy('n', 'desc').first().forUpdate()
    : query.orderBy('n', 'desc').first());
  if (!row) throw notFound(n === undefined ? 'Studio production (call studio_produce first)' : 'Studio production');
  return row;
}

/**
 * `studio_wait`: long-polls a production until it has succeeded or failed, at most
 * `timeoutSeconds`; answers its state either way (`done`). Polling the table (not Temporal) lets
 * any API process answer. Inside a transaction (an agent's turn) it answers at once: a turn does
 * not hold its transaction open to wait.
 */
export async function waitForProduction(
  db: Db,
  teamId: string,
  input: StudioWait,
  onlyAgent: string | null = null,
): Promise<{ done: boolean; production: StudioProductionJson }> {
  const inTransaction = (db as Knex.Transaction).isTransaction === true;
  const deadline = Date.now() + (inTransaction ? 0 : input.timeoutSeconds * 1000);
  for (;;) {
    const row = await findProduction(db, teamId, input.sessionId, input.n, false, onlyAgent);
    const done = row.status === 'succeeded' || row.status === 'failed';
    if (done || Date.now() >= deadline) return { done, production: presentProduction(row) };
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, Math.max(0, deadline - Date.now()))));
  }
}
