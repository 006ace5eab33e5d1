import { z } from 'zod';
import { propertyValueSchema } from '../platform/additionalProperties';
import { defineOperation, Feature, id } from '../platform/operation';
import { pageQuerySchema, pageSchema } from '../platform/pagination';
import {
  contactCreateSchema,
  contactSchema,
  contactUpdateSchema,
  createContact,
  getContact,
  listContacts,
  updateContact,
} from './contacts';

const tag = 'Contacts';
const contactParams = z.object({ contactId: z.string() });

/** A contact's edit: which contact, and the changes (kept apart: any body key is an additional property). */
const contactEditSchema = z.object({ contactId: z.string(), changes: contactUpdateSchema });

/** `set_contact_property`: one property of a contact, the edit MCP offers. */
const setPropertySchema = z.strictObject({
  contactId: id('contact'),
  key: z.string().trim().min(1).max(100).describe('The property name, e.g. "plan" or "lastOrderTotal"'),
  value: propertyValueSchema,
});

/** Contacts: list, read, edit, and the create, answered once per `Idempotency-Key`. */
export const contacts: Feature = {
  name: 'contacts',
  operations: [
    defineOperation({
      name: 'contacts.list',
      access: { level: 'read', app: 'core' },
      output: pageSchema(contactSchema),
      handler: (ctx, { team }, page) => listContacts(ctx.db, team.id, page),
      http: {
        method: 'get',
        path: '/contacts',
        tag,
        summary: "List the team's contacts",
        status: 200,
        answer: 'A page of contacts',
        query: pageQuerySchema,
      },
    }),
    defineOperation({
      name: 'contacts.get',
      access: { level: 'read', app: 'core' },
      output: contactSchema,
      handler: (ctx, { team }, { contactId }) => getContact(ctx.db, team.id, contactId),
      http: {
        method: 'get',
        path: '/contacts/{contactId}',
        tag,
        summary: 'Read one contact',
        status: 200,
        answer: 'The contact',
        params: contactParams,
      },
    }),
    defineOperation({
      name: 'contacts.update',
      access: { level: 'write', app: 'core' },
      input: contactEditSchema,
      output: contactSchema,
      handler: (ctx, { team }, { contactId, changes }) => updateContact(ctx.db, team.id, contactId, changes),
      http: {
        method: 'patch',
        path: '/contacts/{contactId}',
        tag,
        summary: 'Edit a contact (null clears; properties merge key by key; consent, opt-out, waiting state)',
        status: 200,
        answer: 'The contact',
        params: contactParams,
        body: { schema: contactUpdateSchema },
        input: ({ params, body }) => ({ contactId: params.contactId, changes: body }),
        errors: [409],
      },
      mcp: {
        name: 'set_contact_property',
        title: 'Set a contact property',
        description:
          'Sets one custom property of a contact (any JSON value: string, number, boolean, object or array); value ' +
          'null removes it. Answers the updated contact.',
        input: setPropertySchema,
        toInput: ({ contactId, key, value }: z.infer<typeof setPropertySchema>) => ({
          contactId,
          changes: { properties: { [key]: value } },
        }),
      },
    }),
    // Last: in the document `/contacts` lists GET before POST.
    defineOperation({
      name: 'contacts.create',
      access: { level: 'write', app: 'core' },
      output: contactSchema,
      handler: (ctx, { team }, contact) => createContact(ctx.db, team.id, contact),
      http: {
        method: 'post',
        path: '/contacts',
        tag,
        summary: 'Create a contact (first name = first word of name, last name = the rest)',
        description:
          'With an `Idempotency-Key`, a repeat of the same body answers the first response again ' +
          '(`Idempotent-Replayed: true`); the same key with another body is 409 `conflict`.',
        status: 201,
        answer: 'The contact',
        body: { schema: contactCreateSchema },
        idempotent: 'contacts.create',
        location: (contact, ctx) => `${ctx.config.baseUrl}/contacts/${contact.id}`,
        errors: [409],
      },
    }),
  ],
};
