import { z } from 'zod';
import { pageQuerySchema } from '../services/platform/pagination';
import { importOrders, orderImportSchema } from '../services/shop/orderImport';
import { createOrder, listOrders, teamOrderCreateSchema } from '../services/shop/orders';
import {
  createProduct,
  listProducts,
  productCreateSchema,
  productUpdateSchema,
  updateProduct,
} from '../services/shop/products';
import { id, tool, Tool } from './toolKit';

/** The Shop app (docs/SHOP.md): products and orders, the same service functions as /v1/products and /v1/orders. */
export const shopTools: Tool[] = [
  tool({
    name: 'create_product',
    title: 'Create a product',
    description:
      'A product of the shop: name, sku (unique in the team; orders name products by it), price and currency ' +
      '(ISO 4217), description?, active? (default true).',
    app: 'shop',
    access: 'write',
    input: productCreateSchema,
    run: ({ ctx, team }, input) => createProduct(ctx.db, team.id, input),
  }),
  tool({
    name: 'list_products',
    title: 'List products',
    description: "The team's products in creation order; active: true or false filters.",
    app: 'shop',
    access: 'read',
    input: pageQuerySchema.extend({ active: z.boolean().optional() }),
    run: ({ ctx, team }, page) => listProducts(ctx.db, team.id, page),
  }),
  tool({
    name: 'update_product',
    title: 'Change a product',
    description: 'Changes any field of create_product (null clears description); active: false stops new orders of it.',
    app: 'shop',
    access: 'write',
    input: productUpdateSchema.extend({ productId: id('product') }),
    run: ({ ctx, team }, { productId, ...changes }) => updateProduct(ctx.db, team.id, productId, changes),
  }),
  tool({
    name: 'create_order',
    title: "Record a contact's order",
    description:
      'An order of contactId: items (each { productId or sku, quantity?, unitPrice? } or a free line { name, ' +
      "unitPrice, quantity? }) and/or amount (default the sum of the items), currency (default the products'), " +
      "orderedAt (default now), externalId (the shop system's order number: a repeat answers the recorded order " +
      'with created: false). Orders feed the purchase conditions of segments.',
    app: 'shop',
    access: 'write',
    input: teamOrderCreateSchema,
    run: async ({ ctx, team }, { contactId, ...order }) => {
      const { order: recorded, created } = await createOrder(ctx.db, team.id, contactId, order);
      return { ...recorded, created };
    },
  }),
  tool({
    name: 'list_orders',
    title: 'List orders',
    description: "The team's orders newest first, or one contact's (contactId): items, amount, currency, orderedAt.",
    app: 'shop',
    access: 'read',
    input: pageQuerySchema.extend({ contactId: id('contact').optional() }),
    run: ({ ctx, team }, page) => listOrders(ctx.db, team.id, page),
  }),
  tool({
    name: 'import_orders',
    title: 'Import orders from CSV',
    description:
      'CSV text, header row: externalId (required), contactId or email (of an existing contact), amount, ' +
      'currency, orderedAt, sku, name, quantity, unitPrice; one row per line, rows sharing an externalId make one ' +
      'order; up to 10,000 rows. Answers counts (created, existing: already imported, left as they are) and ' +
      'errors by CSV line. Safe to re-run.',
    app: 'shop',
    access: 'write',
    input: orderImportSchema,
    run: ({ ctx, team }, { csv }) => importOrders(ctx.db, team.id, csv),
  }),
];
