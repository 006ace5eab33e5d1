import { z } from 'zod';
import type { AppContext } from '../platform/context';
import { defineOperation, Feature, id } from '../platform/operation';
import { pageQuerySchema, pageSchema } from '../platform/pagination';
import { importOrders, orderImportResultSchema, orderImportSchema } from './orderImport';
import {
  createOrder,
  deleteOrder,
  getOrder,
  listOrders,
  orderCreateSchema,
  orderRecordedSchema,
  orderSchema,
  teamOrderCreateSchema,
} from './orders';
import {
  createProduct,
  deleteProduct,
  getProduct,
  listProducts,
  productCreateSchema,
  productSchema,
  productUpdateSchema,
  updateProduct,
} from './products';

const tag = 'Shop';
const access = { level: 'read', app: 'shop' } as const;
const writes = { level: 'write', app: 'shop' } as const;
const productParams = z.object({ productId: z.string().min(1).max(100) });
const orderParams = z.object({ orderId: z.string().min(1).max(100) });
const contactParams = z.object({ contactId: z.string().min(1).max(100) });
const productQuery = pageQuerySchema.extend({
  active: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional(),
});
const orderQuery = pageQuerySchema.extend({ contactId: z.string().min(1).max(100).optional() });
const orderUrl = (order: { id: string }, ctx: AppContext) => `${ctx.config.baseUrl}/orders/${order.id}`;

/** The Shop app (docs/SHOP.md): products, orders and the CSV import of orders. */
export const shop: Feature = {
  name: 'shop',
  operations: [
    defineOperation({
      name: 'shop.createProduct',
      access: writes,
      input: productCreateSchema,
      output: productSchema,
      handler: (ctx, { team }, input) => createProduct(ctx.db, team.id, input),
      http: {
        method: 'post',
        path: '/products',
        tag,
        summary: 'Create a product (sku unique in the team)',
        status: 201,
        answer: 'The product',
        body: { schema: productCreateSchema },
        location: (product, ctx) => `${ctx.config.baseUrl}/products/${product.id}`,
        errors: [409],
      },
      mcp: {
        name: 'create_product',
        title: 'Create a product',
        description:
          'A product of the shop: name, sku (unique in the team; orders name products by it), price and currency ' +
          '(ISO 4217), description?, active? (default true).',
      },
    }),
    defineOperation({
      name: 'shop.listProducts',
      access,
      input: pageQuerySchema.extend({ active: z.boolean().optional() }),
      output: pageSchema(productSchema),
      handler: (ctx, { team }, page) => listProducts(ctx.db, team.id, page),
      http: {
        method: 'get',
        path: '/products',
        tag,
        summary: "The team's products in creation order (`active` filters)",
        status: 200,
        answer: 'A page of products',
        // A query string's `active` is "true" or "false".
        query: productQuery,
      },
      mcp: {
        name: 'list_products',
        title: 'List products',
        description: "The team's products in creation order; active: true or false filters.",
      },
    }),
    defineOperation({
      name: 'shop.getProduct',
      access,
      output: productSchema,
      handler: (ctx, { team }, { productId }) => getProduct(ctx.db, team.id, productId),
      http: {
        method: 'get',
        path: '/products/{productId}',
        tag,
        summary: 'One product',
        status: 200,
        answer: 'The product',
        params: productParams,
      },
    }),
    defineOperation({
      name: 'shop.updateProduct',
      access: writes,
      output: productSchema,
      handler: (ctx, { team }, { productId, ...changes }) => updateProduct(ctx.db, team.id, productId, changes),
      http: {
        method: 'patch',
        path: '/products/{productId}',
        tag,
        summary: 'Change a product (null clears description); active: false stops new orders of it',
        status: 200,
        answer: 'The product',
        params: productParams,
        body: { schema: productUpdateSchema },
        errors: [409],
      },
      mcp: {
        name: 'update_product',
        title: 'Change a product',
        description:
          'Changes any field of create_product (null clears description); active: false stops new orders of it.',
        input: productUpdateSchema.extend({ productId: id('product') }),
      },
    }),
    defineOperation({
      name: 'shop.deleteProduct',
      access: writes,
      handler: (ctx, { team }, { productId }) => deleteProduct(ctx.db, team.id, productId),
      http: {
        method: 'delete',
        path: '/products/{productId}',
        tag,
        summary: 'Delete a product (past orders keep their lines)',
        status: 204,
        answer: 'Deleted',
        params: productParams,
      },
    }),
    defineOperation({
      name: 'shop.createOrder',
      access: writes,
      input: teamOrderCreateSchema,
      output: orderRecordedSchema,
      handler: async (ctx, { team }, { contactId, ...order }) => {
        const { order: recorded, created } = await createOrder(ctx.db, team.id, contactId, order);
        return { ...recorded, created };
      },
      http: {
        method: 'post',
        path: '/orders',
        tag,
        summary: 'Record an order of a contact (contactId in the body); a known externalId answers 200 with that order',
        status: 201,
        answer: 'The order',
        body: { schema: teamOrderCreateSchema },
        answerSchema: orderSchema,
        location: orderUrl,
        // HTTP tells a new order from a recorded one by its status, not by a field.
        reply: ({ created, ...order }, ctx) => ({
          status: created ? 201 : 200,
          body: order,
          headers: { Location: orderUrl(order, ctx) },
        }),
        otherAnswers: { 200: [orderSchema, 'The order already recorded'] },
        errors: [422],
      },
      mcp: {
        name: 'create_order',
        title: "Record a contact's order",
        description:
          'An order of contactId: items (each { productId or sku, quantity?, unitPrice? } or a free line { name, ' +
          "unitPrice, quantity? }) and/or amount (default the sum of the items), currency (default the products'), " +
          "orderedAt (default now), externalId (the shop system's order number: a repeat answers the recorded order " +
          'with created: false). Orders feed the purchase conditions of segments.',
      },
    }),
    defineOperation({
      name: 'shop.listOrders',
      access,
      input: pageQuerySchema.extend({ contactId: id('contact').optional() }),
      output: pageSchema(orderSchema),
      handler: (ctx, { team }, query) => listOrders(ctx.db, team.id, query),
      http: {
        method: 'get',
        path: '/orders',
        tag,
        summary: "The team's orders, newest first (`contactId` filters)",
        status: 200,
        answer: 'A page of orders',
        query: orderQuery,
      },
      mcp: {
        name: 'list_orders',
        title: 'List orders',
        description:
          "The team's orders newest first, or one contact's (contactId): items, amount, currency, orderedAt.",
      },
    }),
    defineOperation({
      name: 'shop.getOrder',
      access,
      output: orderSchema,
      handler: (ctx, { team }, { orderId }) => getOrder(ctx.db, team.id, orderId),
      http: {
        method: 'get',
        path: '/orders/{orderId}',
        tag,
        summary: 'One order',
        status: 200,
        answer: 'The order',
        params: orderParams,
      },
    }),
    defineOperation({
      name: 'shop.deleteOrder',
      access: writes,
      handler: (ctx, { team }, { orderId }) => deleteOrder(ctx.db, team.id, orderId),
      http: {
        method: 'delete',
        path: '/orders/{orderId}',
        tag,
        summary: 'Delete an order (it no longer counts in segments)',
        status: 204,
        answer: 'Deleted',
        params: orderParams,
      },
    }),
    defineOperation({
      name: 'shop.importOrders',
      access: writes,
      input: orderImportSchema,
      output: orderImportResultSchema,
      handler: (ctx, { team }, { csv }) => importOrders(ctx.db, team.id, csv),
      http: {
        method: 'post',
        path: '/orders/import',
        tag,
        summary: 'Import orders from CSV, synchronously (up to 10,000 rows); re-running it duplicates nothing',
        description:
          'One row per order line; rows sharing an `externalId` make one order. The contact is `contactId` or the ' +
          '`email` of an existing contact. An order whose `externalId` is already recorded counts as `existing`. A bad ' +
          'order is reported in `errors` with its line, and the others are imported.',
        status: 200,
        answer: 'What was imported',
        body: { schema: orderImportSchema },
      },
      mcp: {
        name: 'import_orders',
        title: 'Import orders from CSV',
        description:
          'CSV text, header row: externalId (required), contactId or email (of an existing contact), amount, ' +
          'currency, orderedAt, sku, name, quantity, unitPrice; one row per line, rows sharing an externalId make one ' +
          'order; up to 10,000 rows. Answers counts (created, existing: already imported, left as they are) and ' +
          'errors by CSV line. Safe to re-run.',
      },
    }),
  ],
};

/**
 * The Shop app's orders under a contact. A feature of their own because their path stands with the
 * contacts' in the API document (api/app.ts routes them right after the `contacts` feature).
 */
export const contactOrders: Feature = {
  name: 'shop.contactOrders',
  operations: [
    defineOperation({
      name: 'shop.createContactOrder',
      access: writes,
      output: orderRecordedSchema,
      handler: async (ctx, { team }, { contactId, ...order }) => {
        const { order: recorded, created } = await createOrder(ctx.db, team.id, contactId, order);
        return { ...recorded, created };
      },
      http: {
        method: 'post',
        path: '/contacts/{contactId}/orders',
        tag: 'Contacts',
        summary: 'Record an order of a contact (segments read orders): an amount, or items (docs/SHOP.md)',
        description:
          "The Shop app's order create, under the contact; a known `externalId` answers 200 with that order.",
        status: 201,
        answer: 'The order',
        params: z.object({ contactId: z.string() }),
        body: { schema: orderCreateSchema },
        input: ({ params, body }) => ({ ...body, contactId: params.contactId }),
        answerSchema: orderSchema,
        reply: ({ created, ...order }) => ({ status: created ? 201 : 200, body: order }),
        otherAnswers: { 200: [orderSchema, 'The order already recorded'] },
        errors: [422],
      },
    }),
    defineOperation({
      name: 'shop.listContactOrders',
      access,
      output: pageSchema(orderSchema),
      handler: (ctx, { team }, query) => listOrders(ctx.db, team.id, query),
      http: {
        method: 'get',
        path: '/contacts/{contactId}/orders',
        tag,
        summary: "A contact's orders, newest first",
        status: 200,
        answer: 'A page of orders',
        params: contactParams,
        query: pageQuerySchema,
      },
    }),
  ],
};
