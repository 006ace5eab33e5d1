import { z } from 'zod';
import { parseOrThrow } from '../platform/errors';
import { defineOperation, Feature, id } from '../platform/operation';
import { pageQuerySchema, pageSchema } from '../platform/pagination';
import {
  createForm,
  deleteForm,
  formBaseSchema,
  formCreateSchema,
  formSchema,
  formSubmissionSchema,
  formUpdateSchema,
  getForm,
  listForms,
  listSubmissions,
  updateForm,
} from './forms';

const formParams = z.object({ formId: z.string().min(1).max(100) });
const formRef = z.strictObject({ formId: id('form') });
const tag = 'Forms';
const access = { level: 'read', app: 'forms' } as const;
const writes = { level: 'write', app: 'forms' } as const;

/** The Forms app (docs/FORMS.md): hosted sign-up forms and their submissions; the public pages are api/formPages.ts. */
export const forms: Feature = {
  name: 'forms',
  operations: [
    defineOperation({
      name: 'forms.create',
      access: writes,
      output: formSchema,
      handler: (ctx, { team, principal }, input) =>
        createForm(ctx.db, ctx.config.siteUrl, team.id, principal.userId, input),
      http: {
        method: 'post',
        path: '/forms',
        tag,
        summary: 'Create a hosted sign-up form: its page is served at {site_url}/forms/{id}',
        description:
          'fields: contact fields to ask for (email always); tags: added to the contact; consentText: the marketing ' +
          'consent checkbox; doubleOptIn: consent is granted only once the emailed link is clicked (agentId sends it). ' +
          'The page is served while the Forms app is installed and the form is active.',
        status: 201,
        answer: 'The form',
        body: { schema: formCreateSchema },
        location: (created, ctx) => `${ctx.config.baseUrl}/forms/${created.id}`,
        errors: [422],
      },
      mcp: {
        name: 'create_form',
        title: 'Create a sign-up form',
        description:
          'A hosted sign-up page (answer: url, to share or link). fields: contact fields to ask for, each { name: ' +
          'email|name|phone|company|title|location, label?, required? } (email always); tags: added to each contact ' +
          'who signs up; consentText: the marketing consent checkbox; doubleOptIn: consent is granted only once the ' +
          'person clicks the link emailed by agentId (default the connected agent). A sign-up creates or updates the ' +
          'contact (contact.created / contact.updated: automations enrol).',
        input: formBaseSchema,
        // A double opt-in sent by the connected agent unless agentId names another; then the create rule holds.
        toInput: (args: z.infer<typeof formBaseSchema>, { agentId }) =>
          parseOrThrow(
            formCreateSchema,
            { ...args, agentId: args.agentId ?? (args.doubleOptIn ? agentId : undefined) },
            'arguments',
          ),
      },
    }),
    defineOperation({
      name: 'forms.list',
      access,
      input: pageQuerySchema,
      output: pageSchema(formSchema),
      handler: (ctx, { team }, page) => listForms(ctx.db, ctx.config.siteUrl, team.id, page),
      http: {
        method: 'get',
        path: '/forms',
        tag,
        summary: "The team's forms, newest first, each with its submission count",
        status: 200,
        answer: 'A page of forms',
        query: pageQuerySchema,
      },
      mcp: {
        name: 'list_forms',
        title: 'List sign-up forms',
        description: "The team's forms, newest first, each with its page url and submissionCount.",
      },
    }),
    defineOperation({
      name: 'forms.get',
      access,
      output: formSchema,
      handler: (ctx, { team }, { formId }) => getForm(ctx.db, ctx.config.siteUrl, team.id, formId),
      http: {
        method: 'get',
        path: '/forms/{formId}',
        tag,
        summary: 'One form, with its page URL and submission count',
        status: 200,
        answer: 'The form',
        params: formParams,
      },
      mcp: {
        name: 'get_form',
        title: 'Get a sign-up form',
        description: 'One form: fields, tags, consent wording, double opt-in, its page url and submissionCount.',
        input: formRef,
      },
    }),
    defineOperation({
      name: 'forms.update',
      access: writes,
      output: formSchema,
      handler: (ctx, { team }, { formId, ...changes }) =>
        updateForm(ctx.db, ctx.config.siteUrl, team.id, formId, changes),
      http: {
        method: 'patch',
        path: '/forms/{formId}',
        tag,
        summary: 'Change a form (null clears an optional field); active: false takes its page down',
        status: 200,
        answer: 'The form',
        params: formParams,
        body: { schema: formUpdateSchema },
        errors: [422],
      },
      mcp: {
        name: 'update_form',
        title: 'Change a sign-up form',
        description:
          'Changes any field of create_form (null clears an optional one); active: false takes the page down. ' +
          'Answers the form.',
        input: formUpdateSchema.extend({ formId: id('form') }),
      },
    }),
    defineOperation({
      name: 'forms.delete',
      access: writes,
      // HTTP answers 204; the tool answers what it deleted.
      handler: async (ctx, { team }, { formId }) => {
        await deleteForm(ctx.db, team.id, formId);
        return { deleted: true, formId };
      },
      http: {
        method: 'delete',
        path: '/forms/{formId}',
        tag,
        summary: 'Delete a form and its submissions (the contacts stay)',
        status: 204,
        answer: 'Deleted',
        params: formParams,
      },
      mcp: {
        name: 'delete_form',
        title: 'Delete a sign-up form',
        description: 'Deletes the form, its page and its submissions; the contacts who signed up stay.',
        input: formRef,
      },
    }),
    defineOperation({
      name: 'forms.submissions',
      access,
      output: pageSchema(formSubmissionSchema),
      handler: (ctx, { team }, { formId, ...page }) => listSubmissions(ctx.db, team.id, formId, page),
      http: {
        method: 'get',
        path: '/forms/{formId}/submissions',
        tag,
        summary: "A form's submissions, newest first: the contact, and where its consent stands",
        status: 200,
        answer: 'A page of submissions',
        params: formParams,
        query: pageQuerySchema,
      },
      mcp: {
        name: 'list_form_submissions',
        title: "List a form's submissions",
        description:
          'Sign-ups of one form, newest first: contactId, email, and consent (not_asked, granted, ' +
          'awaiting_confirmation, confirmed).',
        input: formRef.extend(pageQuerySchema.shape),
      },
    }),
  ],
};
