import type { Db } from '../../db/knex';
import {
  contactFieldsSchema,
  ContactJson,
  ContactRow,
  ContactUpdate,
  createContact,
  presentContact,
  updateContact,
} from '../contacts/contacts';
import { AppError } from '../platform/errors';
import { newId } from '../../db/ids';
import { CONSENT_FIELD, FormPageState } from './formPage';
import type { FormFieldName, FormRow, SubmissionRow } from './forms';

/**
 * A submission of a form's page (docs/FORMS.md): the contact is created or updated through the
 * contact services (so contact.created / contact.updated go through the outbox and automations
 * enrol), and the submission is recorded. Whether the email was known changes nothing the
 * submitter sees.
 */

/** An active form of a team that has the Forms app installed; null answers 404 (uninstalling takes the pages down). */
export async function publicForm(db: Db, formId: string): Promise<FormRow | null> {
  const row = await db('forms')
    .join('team_apps', function () {
      this.on('team_apps.team_id', '=', 'forms.team_id').andOn('team_apps.app', '=', db.raw('?', ['forms']));
    })
    .where({ 'forms.id': formId, 'forms.active': true })
    .first('forms.*');
  return row ?? null;
}

const MISSING: Record<FormFieldName, string> = {
  email: 'Enter your email address',
  name: 'Enter your name',
  phone: 'Enter your phone number',
  company: 'Enter your company',
  title: 'Enter your job title',
  location: 'Enter your location',
};
const INVALID: Partial<Record<FormFieldName, string>> = {
  email: 'Enter an email address like name@example.com',
  phone: 'Enter a phone number: digits, with an optional leading +',
};

export type SubmittedValues = Partial<Record<FormFieldName, string>> & { email: string };

/** The page's fields checked by the contact schema; errors in words for the page. */
export function readSubmission(
  form: FormRow,
  body: Record<string, unknown>,
): { values: SubmittedValues; consent: boolean } | { invalid: FormPageState } {
  const values: Partial<Record<FormFieldName, string>> = {};
  const errors: Partial<Record<FormFieldName, string>> = {};
  for (const field of form.fields) {
    const raw = typeof body[field.name] === 'string' ? (body[field.name] as string).trim() : '';
    values[field.name] = raw;
    if (!raw) {
      if (field.required) errors[field.name] = MISSING[field.name];
      continue;
    }
    const checked = contactFieldsSchema.shape[field.name].safeParse(raw);
    if (!checked.success) errors[field.name] = INVALID[field.name] ?? `${field.label}: at most 200 characters`;
  }
  const consent = Boolean(form.consent_text) && typeof body[CONSENT_FIELD] === 'string' && body[CONSENT_FIELD] !== '';
  if (Object.keys(errors).length) return { invalid: { values, errors, consent } };
  const filled = Object.fromEntries(Object.entries(values).filter(([, v]) => v)) as SubmittedValues;
  return { values: filled, consent };
}

export const consentSourceOf = (formId: string) => `form:${formId}`;

const findByEmail = (db: Db, teamId: string, email: string): Promise<ContactRow | undefined> =>
  db('contacts').where({ team_id: teamId }).whereRaw('lower(email) = lower(?)', [email]).first();

/**
 * A known contact gets only its empty fields filled (a stranger who knows an address cannot
 * rewrite that contact), the form's tags added, and consent granted if asked for and not yet
 * held. Always a write, so a repeated sign-up is a contact.updated automations can react to.
 */
async function updateKnown(
  db: Db,
  form: FormRow,
  existing: ContactRow,
  values: SubmittedValues,
  grantNow: boolean,
): Promise<ContactJson> {
  const changes: ContactUpdate = {};
  for (const [field, value] of Object.entries(values) as [FormFieldName, string][])
    if (field !== 'email' && !existing[field]) changes[field] = value;
  const tags = [...new Set([...existing.tags, ...form.tags])];
  if (tags.length !== existing.tags.length) changes.tags = tags;
  if (grantNow && existing.marketing_consent !== 'granted')
    Object.assign(changes, { marketingConsent: 'granted', consentSource: consentSourceOf(form.id) });
  return updateContact(db, form.team_id, existing.id, changes);
}

/** Creates or updates the contact, then records the submission. */
export async function acceptSubmission(
  db: Db,
  form: FormRow,
  values: SubmittedValues,
  consent: boolean,
): Promise<{ submission: SubmissionRow; contact: ContactJson }> {
  const grantNow = consent && !form.double_opt_in;
  const existing = await findByEmail(db, form.team_id, values.email);
  let contact: ContactJson;
  if (existing) contact = await updateKnown(db, form, existing, values, grantNow);
  else {
    try {
      contact = await createContact(db, form.team_id, {
        ...values,
        tags: form.tags,
        ...(grantNow ? { marketingConsent: 'granted' as const, consentSource: consentSourceOf(form.id) } : {}),
      });
    } catch (err) {
      // Created meanwhile by another request: the same answer as a known email.
      if (!(err instanceof AppError && err.status === 409)) throw err;
      const raced = await findByEmail(db, form.team_id, values.email);
      if (!raced) throw err;
      contact = await updateKnown(db, form, raced, values, grantNow);
    }
  }
  const consentState = !consent
    ? 'not_asked'
    : form.double_opt_in && contact.marketingConsent !== 'granted'
      ? 'awaiting_confirmation'
      : 'granted';
  const [submission] = await db('form_submissions')
    .insert({
      id: newId('fsb'),
      team_id: form.team_id,
      form_id: form.id,
      contact_id: contact.id,
      email: values.email,
      consent: consentState,
    })
    .returning('*');
  return { submission, contact };
}

/** A contact's row as the API presents it (the confirmation reads the current state). */
export async function contactOf(db: Db, teamId: string, contactId: string): Promise<ContactJson | null> {
  const row = await db('contacts').where({ team_id: teamId, id: contactId }).first();
  return row ? presentContact(row) : null;
}
