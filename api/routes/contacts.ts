import { z } from 'zod';
import { contactCreateSchema, contactSchema, createContact } from '../../services/contacts/contacts';
import type { AppContext } from '../../services/platform/context';
import { createOrder, orderCreateSchema, orderSchema } from '../../services/shop/orders';
import { authOf } from '../auth';
import { idempotencyHeaderSchema, respondIdempotently } from '../http';
import { defineRoute, json, locationHeader, Route } from '../routeTable';

const contactParams = z.object({ contactId: z.string() });

/**
 * What of /contacts is not the `contacts` feature's (services/contacts/operations.ts): the create,
 * answered idempotently (`respondIdempotently` writes the response, replays included), and the Shop
 * app's order create under a contact. They follow the feature's routes in the table; the API
 * document groups methods by path, so its order of paths is unchanged.
 */
export function contactsRoutes(ctx: AppContext): Route[] {
  return [
    defineRoute({
      method: 'post',
      path: '/contacts',
      tag: 'Contacts',
      access: 'write',
      summary: 'Create a contact (first name = first word of name, last name = the rest)',
      description:
        'With an `Idempotency-Key`, a repeat of the same body answers the first response again ' +
        '(`Idempotent-Replayed: true`); the same key with another body is 409 `conflict`.',
      headers: idempotencyHeaderSchema,
      body: { kind: 'json', schema: contactCreateSchema },
      responses: { 201: json(contactSchema, 'The contact', locationHeader) },
      errors: [409],
      handler: async ({ req, res, body }) => {
        const { team } = authOf(req);
        await respondIdempotently(ctx, req, res, 'contacts.create', async () => {
          const contact = await createContact(ctx.db, team.id, body);
          return { status: 201, body: contact, headers: { Location: `${ctx.config.baseUrl}/contacts/${contact.id}` } };
        });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/contacts/{contactId}/orders',
      tag: 'Contacts',
      access: 'write',
      summary: 'Record an order of a contact (segments read orders): an amount, or items (docs/SHOP.md)',
      description: "The Shop app's order create, under the contact; a known `externalId` answers 200 with that order.",
      params: contactParams,
      body: { kind: 'json', schema: orderCreateSchema },
      responses: { 201: json(orderSchema, 'The order'), 200: json(orderSchema, 'The order already recorded') },
      errors: [422],
      handler: async ({ req, params, body }) => {
        const { order, created } = await createOrder(ctx.db, authOf(req).team.id, params.contactId, body);
        return { status: created ? 201 : 200, body: order };
      },
    }),
  ];
}
