import { z } from 'zod';
import type { Db } from '../../db/knex';
import { AppError, notFound } from '../platform/errors';
import { newId } from '../../db/ids';
import { keysetPage, Page, PageQuery } from '../platform/pagination';

/** The Shop app's catalog (docs/SHOP.md): products a team sells, named in order items by id or sku. */

export const currencySchema = z
  .string()
  .regex(/^[A-Za-z]{3}$/, 'an ISO 4217 code such as EUR or USD')
  .transform((c) => c.toUpperCase());
export const moneySchema = z.number().nonnegative().max(1e12);

export const productCreateSchema = z.strictObject({
  name: z.string().trim().min(1).max(200),
  sku: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .regex(/^[A-Za-z0-9._\-/]+$/, 'letters, digits and . _ - /')
    .describe('Unique in the team: orders and imports name products by it'),
  description: z.string().trim().max(2000).optional(),
  price: moneySchema.describe('The unit price, in currency'),
  currency: currencySchema.describe('ISO 4217, e.g. EUR'),
  active: z.boolean().default(true).describe('An inactive product stays in past orders but cannot be ordered'),
});
export type ProductCreate = z.infer<typeof productCreateSchema>;

export const productUpdateSchema = z
  .strictObject({
    ...productCreateSchema.shape,
    description: productCreateSchema.shape.description.unwrap().nullable(),
    active: z.boolean(),
  })
  .partial();
export type ProductUpdate = z.infer<typeof productUpdateSchema>;

export const productSchema = z.object({
  id: z.string(),
  name: z.string(),
  sku: z.string(),
  description: z.string().nullable(),
  price: z.number(),
  currency: z.string(),
  active: z.boolean(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type ProductJson = z.infer<typeof productSchema>;

export interface ProductRow {
  seq: number;
  id: string;
  team_id: string;
  name: string;
  sku: string;
  description: string | null;
  price: string;
  currency: string;
  active: boolean;
  created_at: Date;
  updated_at: Date;
}

export const presentProduct = (row: ProductRow): ProductJson => ({
  id: row.id,
  name: row.name,
  sku: row.sku,
  description: row.description,
  price: Number(row.price),
  currency: row.currency,
  active: row.active,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

const skuTaken = (sku: string) =>
  new AppError('conflict', `A product with sku "${sku}" already exists in the team`, { sku });

/** A unique violation on (team_id, sku) is the client's: 409, not 500. */
async function uniqueSku<T>(sku: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if ((err as { code?: string }).code === '23505' && sku) throw skuTaken(sku);
    throw err;
  }
}

export async function createProduct(db: Db, teamId: string, input: ProductCreate): Promise<ProductJson> {
  const [row] = await uniqueSku(input.sku, () =>
    db('products')
      .insert({
        id: newId('prd'),
        team_id: teamId,
        name: input.name,
        sku: input.sku,
        description: input.description ?? null,
        price: input.price,
        currency: input.currency,
        active: input.active,
      })
      .returning('*'),
  );
  return presentProduct(row);
}

export async function findProduct(db: Db, teamId: string, productId: string): Promise<ProductRow> {
  const row = await db('products').where({ team_id: teamId, id: productId }).first();
  if (!row) throw notFound('Product');
  return row;
}

export const getProduct = async (db: Db, teamId: string, productId: string) =>
  presentProduct(await findProduct(db, teamId, productId));

/** The team's products in creation order; `active` filters. */
export async function listProducts(
  db: Db,
  teamId: string,
  page: PageQuery & { active?: boolean },
): Promise<Page<ProductJson>> {
  const query = db('products').where({ team_id: teamId });
  if (page.active !== undefined) query.where({ active: page.active });
  return keysetPage(query, page, presentProduct);
}

export async function updateProduct(
  db: Db,
  teamId: string,
  productId: string,
  input: ProductUpdate,
): Promise<ProductJson> {
  await findProduct(db, teamId, productId);
  const changes: Record<string, unknown> = { updated_at: db.fn.now() };
  for (const key of ['name', 'sku', 'description', 'price', 'currency', 'active'] as const)
    if (input[key] !== undefined) changes[key] = input[key];
  const [row] = await uniqueSku(input.sku, () =>
    db('products').where({ team_id: teamId, id: productId }).update(changes).returning('*'),
  );
  return presentProduct(row);
}

/** Past orders keep their items (each line carries the product's sku, name and price as sold). */
export async function deleteProduct(db: Db, teamId: string, productId: string): Promise<void> {
  const deleted = await db('products').where({ team_id: teamId, id: productId }).delete();
  if (!deleted) throw notFound('Product');
}
