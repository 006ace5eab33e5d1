import { z } from 'zod';
import {
  createForm,
  formBaseSchema,
  deleteForm,
  formCreateSchema,
  formUpdateSchema,
  getForm,
  listForms,
  listSubmissions,
  updateForm,
} from '../services/forms/forms';
import { parseOrThrow } from '../services/platform/errors';
import { pageQuerySchema } from '../services/platform/pagination';
import { id, tool, Tool } from './toolKit';

const formRef = z.strictObject({ formId: id('form') });

/** The Forms app (docs/FORMS.md): hosted sign-up forms, the same service functions as /v1/forms. */
export const formTools: Tool[] = [
  tool({
    name: 'create_form',
    title: 'Create a sign-up form',
    description:
      'A hosted sign-up page (answer: url, to share or link). fields: contact fields to ask for, each { name: ' +
      'email|name|phone|company|title|location, label?, required? } (email always); tags: added to each contact ' +
      'who signs up; consentText: the marketing consent checkbox; doubleOptIn: consent is granted only once the ' +
      'person clicks the link emailed by agentId (default the connected agent). A sign-up creates or updates the ' +
      'contact (contact.created / contact.updated: automations enrol).',
    app: 'forms',
    access: 'write',
    input: formBaseSchema,
    run: ({ ctx, team, principal, agentId }, input) =>
      createForm(
        ctx.db,
        ctx.config.siteUrl,
        team.id,
        principal.userId,
        parseOrThrow(
          formCreateSchema,
          { ...input, agentId: input.agentId ?? (input.doubleOptIn ? agentId : undefined) },
          'arguments',
        ),
      ),
  }),
  tool({
    name: 'list_forms',
    title: 'List sign-up forms',
    description: "The team's forms, newest first, each with its page url and submissionCount.",
    app: 'forms',
    access: 'read',
    input: pageQuerySchema,
    run: ({ ctx, team }, page) => listForms(ctx.db, ctx.config.siteUrl, team.id, page),
  }),
  tool({
    name: 'get_form',
    title: 'Get a sign-up form',
    description: 'One form: fields, tags, consent wording, double opt-in, its page url and submissionCount.',
    app: 'forms',
    access: 'read',
    input: formRef,
    run: ({ ctx, team }, { formId }) => getForm(ctx.db, ctx.config.siteUrl, team.id, formId),
  }),
  tool({
    name: 'update_form',
    title: 'Change a sign-up form',
    description:
      'Changes any field of create_form (null clears an optional one); active: false takes the page down. ' +
      'Answers the form.',
    app: 'forms',
    access: 'write',
    input: formUpdateSchema.extend({ formId: id('form') }),
    run: ({ ctx, team }, { formId, ...changes }) => updateForm(ctx.db, ctx.config.siteUrl, team.id, formId, changes),
  }),
  tool({
    name: 'delete_form',
    title: 'Delete a sign-up form',
    description: 'Deletes the form, its page and its submissions; the contacts who signed up stay.',
    app: 'forms',
    access: 'write',
    input: formRef,
    run: async ({ ctx, team }, { formId }) => {
      await deleteForm(ctx.db, team.id, formId);
      return { deleted: true, formId };
    },
  }),
  tool({
    name: 'list_form_submissions',
    title: "List a form's submissions",
    description:
      'Sign-ups of one form, newest first: contactId, email, and consent (not_asked, granted, ' +
      'awaiting_confirmation, confirmed).',
    app: 'forms',
    access: 'read',
    input: formRef.extend(pageQuerySchema.shape),
    run: ({ ctx, team }, { formId, ...page }) => listSubmissions(ctx.db, team.id, formId, page),
  }),
];
