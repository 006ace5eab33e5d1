import { parse as parseCsv } from 'csv-parse/sync';
import { z } from 'zod';
import type { Db } from '../../db/knex';
import { AppError, parseOrThrow } from '../platform/errors';
import { createOrder, orderCreateSchema, OrderItemInput } from './orders';

/**
 * The synchronous CSV import of orders (docs/SHOP.md › Import): one row per order line, rows with
 * the same `externalId` make one order. `externalId` is the idempotency key: an order already
 * recorded under it is counted as `existing` and left as it is, so a re-run duplicates nothing.
 */

export const MAX_ORDER_IMPORT_ROWS = 10_000;

export const orderImportSchema = z.strictObject({
  csv: z
    .string()
    .min(1)
    .describe(
      'CSV with a header row: externalId (required), contactId or email (required), amount, currency, orderedAt, ' +
        'sku, name, quantity, unitPrice',
    ),
});

export const orderImportResultSchema = z.object({
  rows: z.number().int().describe('Data rows read'),
  orders: z.number().int().describe('Distinct externalIds'),
  created: z.number().int(),
  existing: z.number().int().describe('Already recorded under their externalId: left unchanged'),
  errors: z.array(
    z.object({
      line: z.number().int().describe('The CSV line of the order’s first row (the header is line 1)'),
      externalId: z.string().nullable(),
      code: z.string(),
      message: z.string(),
    }),
  ),
});
export type OrderImportResult = z.infer<typeof orderImportResultSchema>;

type CsvRow = Record<string, string>;

function readRows(csv: string): CsvRow[] {
  let rows: CsvRow[];
  try {
    rows = parseCsv(csv, {
      columns: (h: string[]) => h.map((c) => c.trim()),
      skip_empty_lines: true,
      trim: true,
      bom: true,
    });
  } catch (err) {
    throw new AppError('validation_error', `Invalid body: csv could not be parsed: ${(err as Error).message}`, {
      issues: [{ path: 'csv', message: (err as Error).message, code: 'custom' }],
    });
  }
  if (rows.length === 0) throw new AppError('validation_error', 'Invalid body: the csv has no data rows');
  if (rows.length > MAX_ORDER_IMPORT_ROWS)
    throw new AppError('validation_error', `Invalid body: at most ${MAX_ORDER_IMPORT_ROWS} rows per import`);
  return rows;
}

const num = (v: string | undefined) => (v === undefined || v === '' ? undefined : Number(v));
const text = (v: string | undefined) => (v === undefined || v === '' ? undefined : v);

/** One order's rows as the create schema's input (parsed by it, so a bad cell is that order's error). */
function orderInput(externalId: string, rows: CsvRow[]) {
  const first = rows[0];
  const items = rows
    .filter((r) => text(r.sku) || text(r.name))
    .map((r) => ({ sku: text(r.sku), name: text(r.name), quantity: num(r.quantity), unitPrice: num(r.unitPrice) }));
  return {
    externalId,
    amount: num(first.amount),
    currency: text(first.currency),
    orderedAt: text(first.orderedAt),
    items: items.length ? (items as OrderItemInput[]) : undefined,
  };
}

export async function importOrders(db: Db, teamId: string, csv: string): Promise<OrderImportResult> {
  const rows = readRows(csv);
  const result: OrderImportResult = { rows: rows.length, orders: 0, created: 0, existing: 0, errors: [] };
  const groups = new Map<string, { line: number; rows: CsvRow[] }>();
  rows.forEach((row, index) => {
    const line = index + 2;
    const externalId = text(row.externalId);
    if (!externalId) {
      result.errors.push({ line, externalId: null, code: 'validation_error', message: 'externalId is required' });
      return;
    }
    const group = groups.get(externalId) ?? { line, rows: [] };
    group.rows.push(row);
    groups.set(externalId, group);
  });
  result.orders = groups.size;
  const contactIds = await contactsByEmail(
    db,
    teamId,
    [...groups.values()].map((g) => g.rows[0].email ?? ''),
  );
  for (const [externalId, group] of groups) {
    const first = group.rows[0];
    try {
      const contactId = text(first.contactId) ?? contactIds.get((first.email ?? '').toLowerCase());
      if (!contactId)
        throw new AppError(
          'unknown_contact',
          first.email ? `No contact with email ${first.email}` : 'give contactId or email',
        );
      const input = parseOrThrow(orderCreateSchema, orderInput(externalId, group.rows), 'row');
      const { created } = await createOrder(db, teamId, contactId, input, 'import');
      result[created ? 'created' : 'existing']++;
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      result.errors.push({ line: group.line, externalId, code: err.code, message: err.message });
    }
  }
  return result;
}

async function contactsByEmail(db: Db, teamId: string, emails: string[]): Promise<Map<string, string>> {
  const wanted = [...new Set(emails.filter(Boolean).map((e) => e.toLowerCase()))];
  if (!wanted.length) return new Map();
  const rows: { id: string; email: string }[] = await db('contacts')
    .where({ team_id: teamId })
    .whereRaw('lower(email) = ANY(?)', [wanted])
    .select('id', 'email');
  return new Map(rows.map((r) => [r.email.toLowerCase(), r.id]));
}
