import { z } from 'zod';
import {
  contactCreateSchema,
  contactSchema,
  contactUpdateSchema,
  createContact,
  getContact,
  listContacts,
  updateContact,
} from '../../services/contacts/contacts';
import type { AppContext } from '../../services/platform/context';
import { createOrder, orderCreateSchema, orderSchema } from '../../services/shop/orders';
import { pageQuerySchema, pageSchema } from '../../services/platform/pagination';
import { authOf } from '../auth';
import { idempotencyHeaderSchema, respondIdempotently } from '../http';
import { defineRoute, json, locationHeader, Route } from '../routeTable';

const contactParams = z.object({ contactId: z.string() });

export function contactsRoutes(ctx: AppContext): Route[] {
  return [
    defineRoute({
      method: 'get',
      path: '/contacts',
      tag: 'Contacts',
      access: 'read',
      summary: "List the team's contacts",
      query: pageQuerySchema,
      responses: { 200: json(pageSchema(contactSchema), 'A page of contacts') },
      handler: async ({ req, query }) => ({
        status: 200,
        body: await listContacts(ctx.db, authOf(req).team.id, query),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/contacts/{contactId}',
      tag: 'Contacts',
      access: 'read',
      summary: 'Read one contact',
      params: contactParams,
      responses: { 200: json(contactSchema, 'The contact') },
      handler: async ({ req, params }) => ({
        status: 200,
        body: await getContact(ctx.db, authOf(req).team.id, params.contactId),
      }),
    }),
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
      method: 'patch',
      path: '/contacts/{contactId}',
      tag: 'Contacts',
      access: 'write',
      summary: 'Edit a contact (null clears; properties merge key by key; consent, opt-out, waiting state)',
      params: contactParams,
      body: { kind: 'json', schema: contactUpdateSchema },
      responses: { 200: json(contactSchema, 'The contact') },
      errors: [409],
      handler: async ({ req, params, body }) => ({
        status: 200,
        body: await updateContact(ctx.db, authOf(req).team.id, params.contactId, body),
      }),
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
