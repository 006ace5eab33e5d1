import { z } from 'zod';
import type { Db } from '../../db/knex';
import { notFound, ruleBroken } from '../platform/errors';
import { newId } from '../../db/ids';
import { keysetPage, Page, PageQuery } from '../platform/pagination';
import { currencySchema, moneySchema, ProductRow } from './products';

/**
 * Orders of a contact (docs/SHOP.md): the rows the purchase conditions of segments read
 * (services/contacts/segments.ts), with items, currency and an optional external id that makes a
 * repeat (an import run twice, a retried call) answer the order already recorded.
 */

export const DEFAULT_CURRENCY = 'USD';

export const orderItemInputSchema = z
  .strictObject({
    productId: z.string().min(1).max(100).optional().describe('A product of the team'),
    sku: z.string().min(1).max(100).optional().describe('A product of the team, by sku'),
    name: z.string().trim().min(1).max(200).optional().describe('A free line: its name (default the product name)'),
    quantity: z.number().int().min(1).max(1e6).default(1),
    unitPrice: moneySchema.optional().describe("Default the product's price; required on a free line"),
  })
  .refine((i) => !(i.productId && i.sku), { message: 'give productId or sku, not both' })
  .refine((i) => i.productId || i.sku || (i.name && i.unitPrice !== undefined), {
    message: 'a free line (no productId or sku) needs name and unitPrice',
  });
export type OrderItemInput = z.infer<typeof orderItemInputSchema>;

const orderFieldsSchema = z.strictObject({
  amount: moneySchema.optional().describe('The total; default the sum of the items'),
  currency: currencySchema.optional().describe(`ISO 4217; default the products' currency, else ${DEFAULT_CURRENCY}`),
  items: z.array(orderItemInputSchema).max(500).optional(),
  orderedAt: z.iso.datetime({ offset: true }).optional().describe('Default now'),
  externalId: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe("The order's number in the shop system: one order per id in the team (a repeat answers it)"),
});
const amountOrItems = [
  (o: { amount?: number; items?: unknown[] }) => o.amount !== undefined || (o.items?.length ?? 0) > 0,
  { message: 'give amount or items' },
] as const;
export const orderCreateSchema = orderFieldsSchema.refine(...amountOrItems);
export type OrderCreate = z.infer<typeof orderCreateSchema>;
/** An order named by the team, not under a contact's path: `POST /v1/orders`, `create_order`. */
export const teamOrderCreateSchema = orderFieldsSchema
  .extend({ contactId: z.string().min(1).max(100).describe('The contact who ordered') })
  .refine(...amountOrItems);

export const orderItemSchema = z.object({
  productId: z.string().nullable(),
  sku: z.string().nullable(),
  name: z.string().nullable(),
  quantity: z.number().int(),
  unitPrice: z.number(),
});
export type OrderItem = z.infer<typeof orderItemSchema>;

export const orderSchema = z.object({
  id: z.string(),
  contactId: z.string(),
  externalId: z.string().nullable(),
  amount: z.number(),
  currency: z.string(),
  items: z.array(orderItemSchema),
  orderedAt: z.iso.datetime(),
  source: z.enum(['api', 'import']).describe('How the order came in'),
});
export type OrderJson = z.infer<typeof orderSchema>;
/** An order as its recording answers on MCP: created false when its externalId was recorded already. */
export const orderRecordedSchema = orderSchema.extend({ created: z.boolean() });

interface OrderRow {
  seq: number;
  id: string;
  contact_id: string;
  external_id: string | null;
  amount: string;
  currency: string;
  items: OrderItem[];
  ordered_at: Date;
  source: 'api' | 'import';
}

export const presentOrder = (row: OrderRow): OrderJson => ({
  id: row.id,
  contactId: row.contact_id,
  externalId: row.external_id,
  amount: Number(row.amount),
  currency: row.currency,
  items: row.items,
  orderedAt: row.ordered_at.toISOString(),
  source: row.source,
});

/** Lines as stored: each product line carries the product's sku and name as sold. */
async function resolveItems(db: Db, teamId: string, items: OrderItemInput[]) {
  const ids = items.flatMap((i) => (i.productId ? [i.productId] : []));
  const skus = items.flatMap((i) => (i.sku ? [i.sku] : []));
  const products: ProductRow[] =
    ids.length || skus.length
      ? await db('products')
          .where({ team_id: teamId })
          .where((q) => {
            q.whereIn('id', ids).orWhereIn('sku', skus);
          })
      : [];
  const currencies = new Set<string>();
  const lines = items.map((item): OrderItem => {
    const ref = item.productId ?? item.sku;
    if (!ref)
      return { productId: null, sku: null, name: item.name!, quantity: item.quantity, unitPrice: item.unitPrice! };
    const product = products.find((p) => (item.productId ? p.id === item.productId : p.sku === item.sku));
    if (!product) throw ruleBroken('unknown_product', `No product "${ref}" in the team`, { product: ref });
    if (!product.active)
      throw ruleBroken('product_inactive', `Product "${ref}" is inactive`, { productId: product.id });
    currencies.add(product.currency);
    return {
      productId: product.id,
      sku: product.sku,
      name: item.name ?? product.name,
      quantity: item.quantity,
      unitPrice: item.unitPrice ?? Number(product.price),
    };
  });
  return { lines, currencies };
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/**
 * Records an order of a contact. With an `externalId` already recorded in the team it answers that
 * order (`created: false`) and changes nothing.
 */
export async function createOrder(
  db: Db,
  teamId: string,
  contactId: string,
  input: OrderCreate,
  source: 'api' | 'import' = 'api',
): Promise<{ order: OrderJson; created: boolean }> {
  const contact = await db('contacts').where({ team_id: teamId, id: contactId }).first('id');
  if (!contact) throw notFound('Contact');
  if (input.externalId) {
    const existing = await findByExternalId(db, teamId, input.externalId);
    if (existing) return { order: existing, created: false };
  }
  const { lines, currencies } = await resolveItems(db, teamId, input.items ?? []);
  const currency = input.currency ?? [...currencies][0] ?? DEFAULT_CURRENCY;
  const foreign = [...currencies].filter((c) => c !== currency);
  if (foreign.length)
    throw ruleBroken('currency_mismatch', `Products priced in ${foreign.join(', ')} in an order in ${currency}`, {
      currency,
      productCurrencies: [...currencies],
    });
  const amount = input.amount ?? round2(lines.reduce((sum, l) => sum + l.quantity * l.unitPrice, 0));
  const [row] = await db('orders')
    .insert({
      id: newId('ord'),
      team_id: teamId,
      contact_id: contactId,
      amount,
      currency,
      items: JSON.stringify(lines),
      external_id: input.externalId ?? null,
      source,
      ordered_at: input.orderedAt ?? db.fn.now(),
    })
    .onConflict(['team_id', 'external_id'])
    .ignore()
    .returning('*');
  // A concurrent twin with the same external id won the insert: answer it.
  if (!row) return { order: (await findByExternalId(db, teamId, input.externalId!))!, created: false };
  return { order: presentOrder(row), created: true };
}

async function findByExternalId(db: Db, teamId: string, externalId: string): Promise<OrderJson | null> {
  const row = await db('orders').where({ team_id: teamId, external_id: externalId }).first();
  return row ? presentOrder(row) : null;
}

export async function getOrder(db: Db, teamId: string, orderId: string): Promise<OrderJson> {
  const row = await db('orders').where({ team_id: teamId, id: orderId }).first();
  if (!row) throw notFound('Order');
  return presentOrder(row);
}

/** Orders newest first, of the team or of one contact. */
export async function listOrders(
  db: Db,
  teamId: string,
  page: PageQuery & { contactId?: string },
): Promise<Page<OrderJson>> {
  const query = db('orders').where({ team_id: teamId });
  if (page.contactId) {
    const contact = await db('contacts').where({ team_id: teamId, id: page.contactId }).first('id');
    if (!contact) throw notFound('Contact');
    query.where({ contact_id: page.contactId });
  }
  return keysetPage(query, page, presentOrder, { newestFirst: true });
}

export async function deleteOrder(db: Db, teamId: string, orderId: string): Promise<void> {
  const deleted = await db('orders').where({ team_id: teamId, id: orderId }).delete();
  if (!deleted) throw notFound('Order');
}
