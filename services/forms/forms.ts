import { z } from 'zod';
import type { Db } from '../../db/knex';
import { hasActiveIntegration } from '../agents/integrations';
import { contactFieldsSchema } from '../contacts/contacts';
import { notFound, parseOrThrow, ruleBroken } from '../platform/errors';
import { newId } from '../../db/ids';
import { keysetPage, Page, PageQuery } from '../platform/pagination';

/**
 * Hosted sign-up forms (docs/FORMS.md): what a team defines, stored and answered here; the page
 * and its submissions are `formPage.ts` and `submit.ts`.
 */

/** The contact fields a form may ask for; `email` always (contacts are matched by it). */
export const FORM_FIELD_NAMES = ['email', 'name', 'phone', 'company', 'title', 'location'] as const;
export type FormFieldName = (typeof FORM_FIELD_NAMES)[number];

const DEFAULT_LABELS: Record<FormFieldName, string> = {
  email: 'Email',
  name: 'Name',
  phone: 'Phone',
  company: 'Company',
  title: 'Job title',
  location: 'Location',
};

export const formFieldSchema = z.strictObject({
  name: z.enum(FORM_FIELD_NAMES).describe('The contact field the input fills'),
  label: z.string().trim().min(1).max(100).optional().describe('The label shown; default the field name in words'),
  required: z.boolean().optional().describe('Whether the page requires it (email always is)'),
});

const fieldsSchema = z
  .array(formFieldSchema)
  .min(1)
  .max(FORM_FIELD_NAMES.length)
  .refine((fields) => fields.some((f) => f.name === 'email'), 'a form asks for email: contacts are matched by it')
  .refine((fields) => new Set(fields.map((f) => f.name)).size === fields.length, 'each field at most once');

/** A form's fields before the double opt-in rule (an MCP call fills agentId in first). */
export const formBaseSchema = z.strictObject({
  name: z.string().trim().min(1).max(200).describe('What the team calls the form'),
  title: z.string().trim().min(1).max(200).optional().describe('The heading of the page; default the name'),
  description: z.string().trim().max(2000).optional().describe('A paragraph under the heading'),
  fields: fieldsSchema.default([{ name: 'name' }, { name: 'email', required: true }]),
  tags: contactFieldsSchema.shape.tags.unwrap().max(20).default([]).describe('Tags added to the contact'),
  consentText: z
    .string()
    .trim()
    .min(1)
    .max(1000)
    .optional()
    .describe('The marketing consent checkbox label; without it the page asks for no consent'),
  doubleOptIn: z.boolean().default(false).describe('Consent is granted only once the emailed link is clicked'),
  agentId: z.string().min(1).max(100).optional().describe('The agent whose email integration sends the link'),
  language: z
    .string()
    .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'a BCP 47 language tag, e.g. en or de-CH')
    .default('en'),
  thankYou: z.string().trim().min(1).max(1000).optional().describe('The sentence after a sign-up'),
  active: z.boolean().default(true).describe('An inactive form answers 404'),
});

/** Double opt-in confirms a consent: it needs the checkbox, and a sender. */
const doubleOptInSchema = z
  .object({
    doubleOptIn: z.boolean().optional(),
    consentText: z.string().nullish(),
    agentId: z.string().nullish(),
  })
  .superRefine((value, ctx) => {
    if (!value.doubleOptIn) return;
    if (!value.consentText)
      ctx.addIssue({
        code: 'custom',
        path: ['consentText'],
        message: 'doubleOptIn confirms a consent: give consentText',
      });
    if (!value.agentId)
      ctx.addIssue({
        code: 'custom',
        path: ['agentId'],
        message: 'doubleOptIn sends an email: give the agentId that sends it',
      });
  });

export const formCreateSchema = formBaseSchema.superRefine((value, ctx) => {
  const checked = doubleOptInSchema.safeParse(value);
  if (!checked.success) for (const issue of checked.error.issues) ctx.addIssue({ ...issue, code: 'custom' });
});
export type FormCreate = z.infer<typeof formCreateSchema>;

/** PATCH: any field; `null` clears an optional one. */
export const formUpdateSchema = z
  .strictObject({
    ...formBaseSchema.shape,
    fields: fieldsSchema,
    tags: formBaseSchema.shape.tags.unwrap(),
    title: formBaseSchema.shape.title.unwrap().nullable(),
    description: formBaseSchema.shape.description.unwrap().nullable(),
    consentText: formBaseSchema.shape.consentText.unwrap().nullable(),
    agentId: formBaseSchema.shape.agentId.unwrap().nullable(),
    thankYou: formBaseSchema.shape.thankYou.unwrap().nullable(),
    doubleOptIn: z.boolean(),
    language: formBaseSchema.shape.language.unwrap(),
    active: z.boolean(),
  })
  .partial();
export type FormUpdate = z.infer<typeof formUpdateSchema>;

export const formSchema = z.object({
  id: z.string(),
  name: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  fields: z.array(z.object({ name: z.enum(FORM_FIELD_NAMES), label: z.string(), required: z.boolean() })),
  tags: z.array(z.string()),
  consentText: z.string().nullable(),
  doubleOptIn: z.boolean(),
  agentId: z.string().nullable(),
  language: z.string(),
  thankYou: z.string().nullable(),
  active: z.boolean(),
  url: z.url().describe('The public page: {site_url}/forms/{id}'),
  submissionCount: z.number().int().describe('Submissions accepted (honeypot catches are not counted)'),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type FormJson = z.infer<typeof formSchema>;
export type FormField = FormJson['fields'][number];

export interface FormRow {
  seq: number;
  id: string;
  team_id: string;
  name: string;
  title: string;
  description: string | null;
  fields: FormField[];
  tags: string[];
  consent_text: string | null;
  double_opt_in: boolean;
  agent_id: string | null;
  language: string;
  thank_you: string | null;
  active: boolean;
  created_at: Date;
  updated_at: Date;
  submission_count?: string | number;
}

/** Labels and `required` filled in, as stored: the page renders what the API answers. */
const normalFields = (fields: z.infer<typeof formFieldSchema>[]): FormField[] =>
  fields.map((f) => ({
    name: f.name,
    label: f.label ?? DEFAULT_LABELS[f.name],
    required: f.name === 'email' ? true : (f.required ?? false),
  }));

export const formUrl = (siteUrl: string, formId: string) => `${siteUrl}/forms/${formId}`;

export function presentForm(siteUrl: string, row: FormRow): FormJson {
  return {
    id: row.id,
    name: row.name,
    title: row.title,
    description: row.description,
    fields: row.fields,
    tags: row.tags,
    consentText: row.consent_text,
    doubleOptIn: row.double_opt_in,
    agentId: row.agent_id,
    language: row.language,
    thankYou: row.thank_you,
    active: row.active,
    url: formUrl(siteUrl, row.id),
    submissionCount: Number(row.submission_count ?? 0),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** The sender must be the team's agent, with an email integration to send the link. */
async function checkSender(db: Db, teamId: string, agentId: string | null, doubleOptIn: boolean): Promise<void> {
  if (!agentId) return;
  const agent = await db('agents')
    .where({ team_id: teamId, id: agentId })
    .first('id')
    .catch(() => undefined);
  if (!agent) throw ruleBroken('unknown_agent', 'agentId is not an agent of the team', { agentId });
  if (doubleOptIn && !(await hasActiveIntegration(db, teamId, agentId, 'email')))
    throw ruleBroken('integration_inactive', 'The agent has no active email integration to send the link', {
      agentId,
    });
}

const withCount = (db: Db) =>
  db('forms').select(
    'forms.*',
    db.raw('(SELECT count(*) FROM form_submissions s WHERE s.form_id = forms.id) AS submission_count'),
  );

export async function createForm(
  db: Db,
  siteUrl: string,
  teamId: string,
  userId: string | null,
  input: FormCreate,
): Promise<FormJson> {
  await checkSender(db, teamId, input.agentId ?? null, input.doubleOptIn);
  const [row] = await db('forms')
    .insert({
      id: newId('frm'),
      team_id: teamId,
      name: input.name,
      title: input.title ?? input.name,
      description: input.description ?? null,
      fields: JSON.stringify(normalFields(input.fields)),
      tags: input.tags,
      consent_text: input.consentText ?? null,
      double_opt_in: input.doubleOptIn,
      agent_id: input.agentId ?? null,
      language: input.language,
      thank_you: input.thankYou ?? null,
      active: input.active,
      created_by: userId,
    })
    .returning('*');
  return presentForm(siteUrl, row);
}

export async function findForm(db: Db, teamId: string, formId: string): Promise<FormRow> {
  const row = await withCount(db).where({ team_id: teamId, id: formId }).first();
  if (!row) throw notFound('Form');
  return row;
}

export const getForm = async (db: Db, siteUrl: string, teamId: string, formId: string) =>
  presentForm(siteUrl, await findForm(db, teamId, formId));

/** The team's forms, newest first, each with its submission count. */
export async function listForms(db: Db, siteUrl: string, teamId: string, page: PageQuery): Promise<Page<FormJson>> {
  return keysetPage(withCount(db).where({ team_id: teamId }), page, (row: FormRow) => presentForm(siteUrl, row), {
    newestFirst: true,
  });
}

export async function updateForm(
  db: Db,
  siteUrl: string,
  teamId: string,
  formId: string,
  input: FormUpdate,
): Promise<FormJson> {
  const current = presentForm(siteUrl, await findForm(db, teamId, formId));
  const merged = { ...current, ...input };
  // The double opt-in rule holds for the form as it will be, whichever field the PATCH names.
  parseOrThrow(doubleOptInSchema, merged, 'body');
  await checkSender(db, teamId, merged.agentId, merged.doubleOptIn);
  const changes: Record<string, unknown> = { updated_at: db.fn.now() };
  if (input.name !== undefined) changes.name = input.name;
  if (input.title !== undefined) changes.title = input.title ?? merged.name;
  if (input.description !== undefined) changes.description = input.description;
  if (input.fields !== undefined) changes.fields = JSON.stringify(normalFields(input.fields));
  if (input.tags !== undefined) changes.tags = input.tags;
  if (input.consentText !== undefined) changes.consent_text = input.consentText;
  if (input.doubleOptIn !== undefined) changes.double_opt_in = input.doubleOptIn;
  if (input.agentId !== undefined) changes.agent_id = input.agentId;
  if (input.language !== undefined) changes.language = input.language;
  if (input.thankYou !== undefined) changes.thank_you = input.thankYou;
  if (input.active !== undefined) changes.active = input.active;
  await db('forms').where({ team_id: teamId, id: formId }).update(changes);
  return getForm(db, siteUrl, teamId, formId);
}

/** Deletes the form and its submissions; the contacts it created stay. */
export async function deleteForm(db: Db, teamId: string, formId: string): Promise<void> {
  const deleted = await db('forms').where({ team_id: teamId, id: formId }).delete();
  if (!deleted) throw notFound('Form');
}

export const SUBMISSION_CONSENT = ['not_asked', 'granted', 'awaiting_confirmation', 'confirmed'] as const;

export const formSubmissionSchema = z.object({
  id: z.string(),
  formId: z.string(),
  contactId: z.string().nullable().describe('Null once the contact is deleted'),
  email: z.string(),
  consent: z
    .enum(SUBMISSION_CONSENT)
    .describe('not_asked: box not ticked (or none); granted: at once; awaiting_confirmation, confirmed: double opt-in'),
  confirmationSentAt: z.iso.datetime().nullable(),
  confirmedAt: z.iso.datetime().nullable(),
  createdAt: z.iso.datetime(),
});
export type FormSubmissionJson = z.infer<typeof formSubmissionSchema>;

export interface SubmissionRow {
  seq: number;
  id: string;
  team_id: string;
  form_id: string;
  contact_id: string | null;
  email: string;
  consent: (typeof SUBMISSION_CONSENT)[number];
  confirmation_sent_at: Date | null;
  confirmed_at: Date | null;
  created_at: Date;
}

export const presentSubmission = (row: SubmissionRow): FormSubmissionJson => ({
  id: row.id,
  formId: row.form_id,
  contactId: row.contact_id,
  email: row.email,
  consent: row.consent,
  confirmationSentAt: row.confirmation_sent_at?.toISOString() ?? null,
  confirmedAt: row.confirmed_at?.toISOString() ?? null,
  createdAt: row.created_at.toISOString(),
});

/** A form's submissions, newest first. */
export async function listSubmissions(
  db: Db,
  teamId: string,
  formId: string,
  page: PageQuery,
): Promise<Page<FormSubmissionJson>> {
  await findForm(db, teamId, formId);
  return keysetPage(db('form_submissions').where({ team_id: teamId, form_id: formId }), page, presentSubmission, {
    newestFirst: true,
  });
}
