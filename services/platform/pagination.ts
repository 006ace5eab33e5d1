import type { Knex } from 'knex';
import { z } from 'zod';
import { preparedOnce } from '../../db/knex';
import { AppError } from './errors';

/** Query of every list endpoint: keyset `cursor` (opaque) and `limit` 1..100, default 25. */
export const pageQuerySchema = z.object({
  cursor: z.string().min(1).max(200).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(25),
});
export type PageQuery = z.infer<typeof pageQuerySchema>;

export const paginationSchema = z.object({ nextCursor: z.string().nullable(), limit: z.number().int() });

/** The list envelope of every list endpoint, around `item`. */
export const pageSchema = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), pagination: paginationSchema });

export interface Page<T> {
  data: T[];
  pagination: z.infer<typeof paginationSchema>;
}

export function encodeCursor(seq: number): string {
  return Buffer.from(JSON.stringify({ s: seq })).toString('base64url');
}

export function decodeCursor(cursor: string | undefined): number | null {
  if (!cursor) return null;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { s?: unknown };
    if (typeof parsed.s === 'number' && Number.isSafeInteger(parsed.s) && parsed.s >= 0) return parsed.s;
  } catch {
    // fall through to the error below
  }
  throw new AppError('validation_error', 'Invalid query: cursor is not one this API issued', {
    issues: [{ path: 'cursor', message: 'unknown cursor', code: 'custom' }],
  });
}

/**
 * Builds a page from rows fetched with `limit + 1` (rows carry the internal `seq` column): the
 * extra row only says whether another page exists.
 */
export function toPage<R extends { seq: number }, T>(rows: R[], limit: number, present: (row: R) => T): Page<T> {
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return {
    data: pageRows.map(present),
    pagination: { nextCursor: hasMore && last ? encodeCursor(last.seq) : null, limit },
  };
}

/** Where a page read by offset starts: its cursor carries the offset (ranked hits, small fixed lists). */
export const pageOffset = (page: PageQuery): number => decodeCursor(page.cursor) ?? 0;

/**
 * A page of a list read by offset, from rows fetched with `limit + 1` starting at `offset`: for
 * ranked hits (no stable key to resume after) and short lists ordered by a text key.
 */
export function offsetPage<R, T>(rows: R[], offset: number, limit: number, present: (row: R) => T): Page<T> {
  const hasMore = rows.length > limit;
  return {
    data: rows.slice(0, limit).map(present),
    pagination: { nextCursor: hasMore ? encodeCursor(offset + limit) : null, limit },
  };
}

/**
 * Fetches one page of `query` (rows with a `seq` column) after the page's cursor: in creation
 * order, or newest first for lists people read as an inbox (`newestFirst`).
 */
export async function keysetPage<R extends { seq: number }, T>(
  query: Knex.QueryBuilder,
  page: PageQuery,
  present: (row: R) => T,
  { newestFirst = false }: { newestFirst?: boolean } = {},
): Promise<Page<T>> {
  const after = decodeCursor(page.cursor);
  if (after !== null) query.where('seq', newestFirst ? '<' : '>', after);
  query.orderBy('seq', newestFirst ? 'desc' : 'asc').limit(page.limit + 1);
  const rows = (await preparedUnlessStar(query)) as R[];
  return toPage(rows, page.limit, present);
}

/**
 * A page whose columns are named is prepared once per connection: Postgres plans such a page for
 * longer than it runs it. One that selects `*` is not:
 * a prepared `*` fails once a migration widens the table (db/knex.ts › preparedOnce).
 */
function preparedUnlessStar(query: Knex.QueryBuilder): Knex.QueryBuilder {
  // Compiled once: knex would compile the builder again to run it.
  const compiled = query.toSQL();
  const once = Object.assign(query, { toSQL: () => compiled });
  return /\*/.test(compiled.sql) ? once : preparedOnce(once);
}
