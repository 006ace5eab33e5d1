import { Router } from 'express';
import { addOrder, contactCreateSchema, contactUpdateSchema, createContact, getContact, listContacts, orderCreateSchema, updateContact } from '../../services/contacts';
import type { AppContext } from '../../services/context';
import { parseOrThrow } from '../../services/errors';
import { pageQuerySchema } from '../../services/pagination';
import { authOf, teamAccess } from '../auth';
import { jsonBody, requireObjectBody, respondIdempotently } from '../http';

export function contactsRouter(ctx: AppContext): Router {
  const router = Router();

  router.get('/contacts', teamAccess(ctx, 'read'), async (req, res) => {
    const page = parseOrThrow(pageQuerySchema, req.query, 'query');
    res.json(await listContacts(ctx.db, authOf(req).team.id, page));
  });

  router.get('/contacts/:contactId', teamAccess(ctx, 'read'), async (req, res) => {
    res.json(await getContact(ctx.db, authOf(req).team.id, String(req.params.contactId)));
  });

  router.post('/contacts', teamAccess(ctx, 'write'), ...jsonBody(ctx.config.BODY_LIMIT), async (req, res) => {
    const { team } = authOf(req);
    const body = parseOrThrow(contactCreateSchema, requireObjectBody(req), 'body');
    await respondIdempotently(ctx, req, res, 'contacts.create', async () => {
      const contact = await createContact(ctx.db, team.id, body);
      return { status: 201, body: contact, headers: { Location: `${ctx.config.baseUrl}/contacts/${contact.id}` } };
    });
  });

  router.patch('/contacts/:contactId', teamAccess(ctx, 'write'), ...jsonBody(ctx.config.BODY_LIMIT), async (req, res) => {
    const input = parseOrThrow(contactUpdateSchema, requireObjectBody(req), 'body');
    res.json(await updateContact(ctx.db, authOf(req).team.id, String(req.params.contactId), input));
  });

  router.post('/contacts/:contactId/orders', teamAccess(ctx, 'write'), ...jsonBody(ctx.config.BODY_LIMIT), async (req, res) => {
    const input = parseOrThrow(orderCreateSchema, requireObjectBody(req), 'body');
    res.status(201).json(await addOrder(ctx.db, authOf(req).team.id, String(req.params.contactId), input));
  });

  return router;
}
