import { z } from 'zod';
import {
  createForm,
  deleteForm,
  formCreateSchema,
  formSchema,
  formSubmissionSchema,
  formUpdateSchema,
  getForm,
  listForms,
  listSubmissions,
  updateForm,
} from '../../services/forms/forms';
import type { AppContext } from '../../services/platform/context';
import { pageQuerySchema, pageSchema } from '../../services/platform/pagination';
import { authOf } from '../auth';
import { defineRoute, json, locationHeader, noContent, Route } from '../routeTable';

const formParams = z.object({ formId: z.string().min(1).max(100) });
const TAG = 'Forms';

/** The Forms app over HTTP (docs/FORMS.md); the public pages are api/formPages.ts. */
export function formsRoutes(ctx: AppContext): Route[] {
  const site = ctx.config.siteUrl;
  return [
    defineRoute({
      method: 'post',
      path: '/forms',
      tag: TAG,
      access: 'write',
      summary: 'Create a hosted sign-up form: its page is served at {site_url}/forms/{id}',
      description:
        'fields: contact fields to ask for (email always); tags: added to the contact; consentText: the marketing ' +
        'consent checkbox; doubleOptIn: consent is granted only once the emailed link is clicked (agentId sends it). ' +
        'The page is served while the Forms app is installed and the form is active.',
      body: { kind: 'json', schema: formCreateSchema },
      responses: { 201: json(formSchema, 'The form', locationHeader) },
      errors: [422],
      handler: async ({ req, body }) => {
        const { team, principal } = authOf(req);
        const created = await createForm(ctx.db, site, team.id, principal.userId, body);
        return { status: 201, body: created, headers: { Location: `${ctx.config.baseUrl}/forms/${created.id}` } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/forms',
      tag: TAG,
      access: 'read',
      summary: "The team's forms, newest first, each with its submission count",
      query: pageQuerySchema,
      responses: { 200: json(pageSchema(formSchema), 'A page of forms') },
      handler: async ({ req, query }) => ({
        status: 200,
        body: await listForms(ctx.db, site, authOf(req).team.id, query),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/forms/{formId}',
      tag: TAG,
      access: 'read',
      summary: 'One form, with its page URL and submission count',
      params: formParams,
      responses: { 200: json(formSchema, 'The form') },
      handler: async ({ req, params }) => ({
        status: 200,
        body: await getForm(ctx.db, site, authOf(req).team.id, params.formId),
      }),
    }),
    defineRoute({
      method: 'patch',
      path: '/forms/{formId}',
      tag: TAG,
      access: 'write',
      summary: 'Change a form (null clears an optional field); active: false takes its page down',
      params: formParams,
      body: { kind: 'json', schema: formUpdateSchema },
      responses: { 200: json(formSchema, 'The form') },
      errors: [422],
      handler: async ({ req, params, body }) => ({
        status: 200,
        body: await updateForm(ctx.db, site, authOf(req).team.id, params.formId, body),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/forms/{formId}',
      tag: TAG,
      access: 'write',
      summary: 'Delete a form and its submissions (the contacts stay)',
      params: formParams,
      responses: { 204: noContent('Deleted') },
      handler: async ({ req, params }) => {
        await deleteForm(ctx.db, authOf(req).team.id, params.formId);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/forms/{formId}/submissions',
      tag: TAG,
      access: 'read',
      summary: "A form's submissions, newest first: the contact, and where its consent stands",
      params: formParams,
      query: pageQuerySchema,
      responses: { 200: json(pageSchema(formSubmissionSchema), 'A page of submissions') },
      handler: async ({ req, params, query }) => ({
        status: 200,
        body: await listSubmissions(ctx.db, authOf(req).team.id, params.formId, query),
      }),
    }),
  ];
}
