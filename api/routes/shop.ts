import { z } from 'zod';
import type { AppContext } from '../../services/platform/context';
import { pageQuerySchema, pageSchema } from '../../services/platform/pagination';
import { importOrders, orderImportResultSchema, orderImportSchema } from '../../services/shop/orderImport';
import {
  createOrder,
  deleteOrder,
  getOrder,
  listOrders,
  orderSchema,
  teamOrderCreateSchema,
} from '../../services/shop/orders';
import {
  createProduct,
  deleteProduct,
  getProduct,
  listProducts,
  productCreateSchema,
  productSchema,
  productUpdateSchema,
  updateProduct,
} from '../../services/shop/products';
import { authOf } from '../auth';
import { defineRoute, json, locationHeader, noContent, Route } from '../routeTable';

const TAG = 'Shop';
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

const orderCreated = (ctx: AppContext, result: { order: { id: string }; created: boolean }) => ({
  status: result.created ? 201 : 200,
  body: result.order,
  headers: { Location: `${ctx.config.baseUrl}/orders/${result.order.id}` },
});

/** The Shop app over HTTP (docs/SHOP.md): products, orders and the CSV import of orders. */
export function shopRoutes(ctx: AppContext): Route[] {
  return [
    defineRoute({
      method: 'post',
      path: '/products',
      tag: TAG,
      access: 'write',
      summary: 'Create a product (sku unique in the team)',
      body: { kind: 'json', schema: productCreateSchema },
      responses: { 201: json(productSchema, 'The product', locationHeader) },
      errors: [409],
      handler: async ({ req, body }) => {
        const product = await createProduct(ctx.db, authOf(req).team.id, body);
        return { status: 201, body: product, headers: { Location: `${ctx.config.baseUrl}/products/${product.id}` } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/products',
      tag: TAG,
      access: 'read',
      summary: "The team's products in creation order (`active` filters)",
      query: productQuery,
      responses: { 200: json(pageSchema(productSchema), 'A page of products') },
      handler: async ({ req, query }) => ({
        status: 200,
        body: await listProducts(ctx.db, authOf(req).team.id, query),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/products/{productId}',
      tag: TAG,
      access: 'read',
      summary: 'One product',
      params: productParams,
      responses: { 200: json(productSchema, 'The product') },
      handler: async ({ req, params }) => ({
        status: 200,
        body: await getProduct(ctx.db, authOf(req).team.id, params.productId),
      }),
    }),
    defineRoute({
      method: 'patch',
      path: '/products/{productId}',
      tag: TAG,
      access: 'write',
      summary: 'Change a product (null clears description); active: false stops new orders of it',
      params: productParams,
      body: { kind: 'json', schema: productUpdateSchema },
      responses: { 200: json(productSchema, 'The product') },
      errors: [409],
      handler: async ({ req, params, body }) => ({
        status: 200,
        body: await updateProduct(ctx.db, authOf(req).team.id, params.productId, body),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/products/{productId}',
      tag: TAG,
      access: 'write',
      summary: 'Delete a product (past orders keep their lines)',
      params: productParams,
      responses: { 204: noContent('Deleted') },
      handler: async ({ req, params }) => {
        await deleteProduct(ctx.db, authOf(req).team.id, params.productId);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/orders',
      tag: TAG,
      access: 'write',
      summary: 'Record an order of a contact (contactId in the body); a known externalId answers 200 with that order',
      body: { kind: 'json', schema: teamOrderCreateSchema },
      responses: {
        201: json(orderSchema, 'The order', locationHeader),
        200: json(orderSchema, 'The order already recorded'),
      },
      errors: [422],
      handler: async ({ req, body }) => {
        const { contactId, ...order } = body;
        return orderCreated(ctx, await createOrder(ctx.db, authOf(req).team.id, contactId, order));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/orders',
      tag: TAG,
      access: 'read',
      summary: "The team's orders, newest first (`contactId` filters)",
      query: orderQuery,
      responses: { 200: json(pageSchema(orderSchema), 'A page of orders') },
      handler: async ({ req, query }) => ({ status: 200, body: await listOrders(ctx.db, authOf(req).team.id, query) }),
    }),
    defineRoute({
      method: 'get',
      path: '/orders/{orderId}',
      tag: TAG,
      access: 'read',
      summary: 'One order',
      params: orderParams,
      responses: { 200: json(orderSchema, 'The order') },
      handler: async ({ req, params }) => ({
        status: 200,
        body: await getOrder(ctx.db, authOf(req).team.id, params.orderId),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/orders/{orderId}',
      tag: TAG,
      access: 'write',
      summary: 'Delete an order (it no longer counts in segments)',
      params: orderParams,
      responses: { 204: noContent('Deleted') },
      handler: async ({ req, params }) => {
        await deleteOrder(ctx.db, authOf(req).team.id, params.orderId);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/orders/import',
      tag: TAG,
      access: 'write',
      summary: 'Import orders from CSV, synchronously (up to 10,000 rows); re-running it duplicates nothing',
      description:
        'One row per order line; rows sharing an `externalId` make one order. The contact is `contactId` or the ' +
        '`email` of an existing contact. An order whose `externalId` is already recorded counts as `existing`. A bad ' +
        'order is reported in `errors` with its line, and the others are imported.',
      body: { kind: 'json', schema: orderImportSchema },
      responses: { 200: json(orderImportResultSchema, 'What was imported') },
      handler: async ({ req, body }) => ({
        status: 200,
        body: await importOrders(ctx.db, authOf(req).team.id, body.csv),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/contacts/{contactId}/orders',
      tag: TAG,
      access: 'read',
      summary: "A contact's orders, newest first",
      params: contactParams,
      query: pageQuerySchema,
      responses: { 200: json(pageSchema(orderSchema), 'A page of orders') },
      handler: async ({ req, params, query }) => ({
        status: 200,
        body: await listOrders(ctx.db, authOf(req).team.id, { ...query, contactId: params.contactId }),
      }),
    }),
  ];
}
