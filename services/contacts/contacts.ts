import { z } from 'zod';
import type { Db } from '../../db/knex';
import { recordEvent, type NewEvent } from '../events/outbox';
import { AppError, notFound } from '../platform/errors';
import { newId } from '../../db/ids';
import { keysetPage, Page, PageQuery } from '../platform/pagination';
import {
  additionalOf,
  mergedProperties,
  propertiesSchema,
  propertyValueSchema,
} from '../platform/additionalProperties';

const phoneSchema = z
  .string()
  .trim()
  .min(3)
  .max(32)
  .regex(/^\+?[0-9 ().-]+$/, 'digits with an optional leading +, spaces, dots, dashes or parentheses');

export const MARKETING_CONSENT_STATES = ['granted', 'pending'] as const;
export type MarketingConsent = (typeof MARKETING_CONSENT_STATES)[number];

/** A client clock a little ahead of ours is not a consent "in the future". */
const CONSENT_CLOCK_SKEW_MS = 5 * 60_000;
const isoDate = z.iso.date();
const isoDateTime = z.iso.datetime({ offset: true });

/** When consent was given: an ISO 8601 date (midnight UTC) or date-time with offset, not in the future. */
const consentAtSchema = z
  .string()
  .trim()
  .superRefine((value, ctx) => {
    if (!isoDate.safeParse(value).success && !isoDateTime.safeParse(value).success) {
      ctx.addIssue({
        code: 'custom',
        message: 'must be an ISO 8601 date or date-time, e.g. 2025-03-01 or 2025-03-01T09:30:00Z',
      });
    } else if (Date.parse(value) > Date.now() + CONSENT_CLOCK_SKEW_MS) {
      ctx.addIssue({ code: 'custom', message: 'must not be in the future' });
    }
  });

/**
 * Marketing consent as every write records it (POST and PATCH /v1/contacts, imported rows): the
 * state, where it was given and when. The one rule for consent values.
 */
export const consentFieldsSchema = z.object({
  marketingConsent: z.enum(MARKETING_CONSENT_STATES).optional(),
  consentSource: z.string().trim().min(1).max(200).optional(),
  consentAt: consentAtSchema.optional(),
});
export type ConsentFields = z.infer<typeof consentFieldsSchema>;

/** The recorded time of a consent write: the time it names, else now. */
export const consentTime = (consentAt: string | undefined): Date => (consentAt ? new Date(consentAt) : new Date());

/** A source or time describes a consent state: alone, it would be recorded against nothing. */
export function requireConsentState(value: ConsentFields, ctx: z.RefinementCtx): void {
  if (value.marketingConsent === undefined && (value.consentSource !== undefined || value.consentAt !== undefined)) {
    ctx.addIssue({
      code: 'custom',
      path: ['marketingConsent'],
      message:
        'consentSource and consentAt describe a marketingConsent: give marketingConsent (granted or pending) too',
    });
  }
}

/** Fields a contact is created with; shared by POST /v1/contacts and the import job's rows. */
export const contactFieldsSchema = z.object({
  ...consentFieldsSchema.shape,
  name: z.string().trim().min(1).max(200).optional(),
  email: z.email().max(320).optional(),
  phone: phoneSchema.optional(),
  company: z.string().trim().max(200).optional(),
  title: z.string().trim().max(200).optional(),
  location: z.string().trim().max(200).optional(),
  tags: z.array(z.string().trim().min(1).max(100)).max(100).optional(),
  properties: propertiesSchema.optional(),
});

/**
 * POST /v1/contacts body: every field optional, as the spec says. Contacts accept additional
 * properties (spec): unknown top-level keys, of any JSON type, are kept as custom properties.
 */
export const contactCreateSchema = contactFieldsSchema.catchall(propertyValueSchema).superRefine(requireConsentState);
export type ContactCreate = z.infer<typeof contactCreateSchema>;
export type ContactFields = z.infer<typeof contactFieldsSchema>;

const KNOWN_FIELDS = new Set(Object.keys(contactFieldsSchema.shape));

export interface ContactRow {
  seq: number;
  id: string;
  team_id: string;
  name: string | null;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  phone: string | null;
  company: string | null;
  title: string | null;
  location: string | null;
  tags: string[];
  properties: Record<string, unknown>;
  marketing_consent: string;
  consent_source: string | null;
  consent_at: Date | null;
  opted_out_at: Date | null;
  created_at: Date;
  updated_at: Date;
  last_contact_at: Date | null;
  waiting_on: string | null;
}

/** Spec: first name = first word, last name = remainder. */
export function splitName(name: string | undefined | null): { first: string | null; last: string | null } {
  const words = (name ?? '').trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return { first: null, last: null };
  return { first: words[0], last: words.length > 1 ? words.slice(1).join(' ') : null };
}

/** The row to insert for validated contact fields (without id and team). */
export function contactRowValues(fields: ContactFields, extra: Record<string, unknown> = {}) {
  const { first, last } = splitName(fields.name);
  return {
    name: fields.name ?? null,
    first_name: first,
    last_name: last,
    email: fields.email ?? null,
    phone: fields.phone ?? null,
    company: fields.company ?? null,
    title: fields.title ?? null,
    location: fields.location ?? null,
    tags: fields.tags ?? [],
    properties: JSON.stringify({ ...extra, ...(fields.properties ?? {}) }),
    // Every key always present: a multi-row insert of imported rows needs one column list.
    marketing_consent: fields.marketingConsent ?? 'pending',
    consent_source: fields.marketingConsent ? (fields.consentSource ?? null) : null,
    consent_at: fields.marketingConsent ? consentTime(fields.consentAt) : null,
  };
}

/** A contact as the API answers it. The spec types name, email and phone as strings: absent ones are left out, never null. */
export const contactSchema = z.object({
  id: z.string(),
  name: z.string().optional(),
  firstName: z.string().optional(),
  lastName: z.string().optional(),
  email: z.string().optional(),
  phone: z.string().optional(),
  company: z.string().optional(),
  title: z.string().optional(),
  location: z.string().optional(),
  tags: z.array(z.string()),
  properties: z.record(z.string(), z.unknown()),
  marketingConsent: z.enum(MARKETING_CONSENT_STATES),
  /** Where and when the current marketingConsent value was given, when a write said so. */
  consentSource: z.string().optional(),
  consentAt: z.iso.datetime().optional(),
  optedOut: z.boolean(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
  lastContactAt: z.iso.datetime().optional(),
  waitingOn: z.string().optional(),
});
export type ContactJson = z.infer<typeof contactSchema>;

export function presentContact(row: ContactRow): ContactJson {
  const optional = {
    name: row.name,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    phone: row.phone,
    company: row.company,
    title: row.title,
    location: row.location,
    lastContactAt: row.last_contact_at?.toISOString(),
    consentSource: row.consent_source,
    consentAt: row.consent_at?.toISOString(),
    waitingOn: row.waiting_on,
  };
  return {
    id: row.id,
    ...Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== null && value !== undefined)),
    tags: row.tags,
    properties: row.properties,
    marketingConsent: row.marketing_consent as MarketingConsent,
    optedOut: row.opted_out_at !== null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/**
 * The contact.created event, as every path that creates a contact records it (the single write
 * and the import job); `dedupeKey` for a write that may run twice.
 */
export const contactCreatedEvent = (teamId: string, contact: ContactJson, dedupeKey?: string): NewEvent => ({
  teamId,
  type: 'contact.created',
  subject: contact.id,
  data: { contact },
  ...(dedupeKey ? { dedupeKey } : {}),
});

/** The contact.updated event: the contact after the change and the fields the write named. */
export const contactUpdatedEvent = (
  teamId: string,
  contact: ContactJson,
  changed: string[],
  dedupeKey?: string,
): NewEvent => ({
  teamId,
  type: 'contact.updated',
  subject: contact.id,
  data: { contact, changed },
  ...(dedupeKey ? { dedupeKey } : {}),
});

export async function createContact(db: Db, teamId: string, input: ContactCreate): Promise<ContactJson> {
  const extra = additionalOf(input, KNOWN_FIELDS);
  const values = { id: newId('ct'), team_id: teamId, ...contactRowValues(input, extra) };
  // The contact and its contact.created event commit together (docs/EVENTS.md).
  const row = await db.transaction(async (trx) => {
    const [inserted] = await trx('contacts')
      .insert(values)
      .onConflict(trx.raw('(team_id, lower(email)) WHERE email IS NOT NULL'))
      .ignore()
      .returning('*');
    if (inserted) await recordEvent(trx, contactCreatedEvent(teamId, presentContact(inserted)));
    return inserted;
  });
  if (!row) {
    const existing = await db('contacts')
      .where({ team_id: teamId })
      .whereRaw('lower(email) = lower(?)', [input.email ?? null])
      .first('id');
    throw new AppError('conflict', `A contact with email ${input.email} already exists`, {
      contactId: existing?.id,
    });
  }
  return presentContact(row);
}

export async function listContacts(db: Db, teamId: string, page: PageQuery): Promise<Page<ContactJson>> {
  return keysetPage(db('contacts').where({ team_id: teamId }), page, presentContact);
}

export async function getContact(db: Db, teamId: string, id: string): Promise<ContactJson> {
  const row = await db('contacts').where({ team_id: teamId, id }).first();
  if (!row) throw notFound('Contact');
  return presentContact(row);
}

/**
 * PATCH /v1/contacts/{id}: any field; `null` clears one. `properties`, and any other key (an
 * additional property, as on create), are merged key by key (a `null` value removes the key),
 * which is what `set_contact_property` does.
 */
export const contactUpdateSchema = z
  .object({
    name: contactFieldsSchema.shape.name.nullable(),
    email: contactFieldsSchema.shape.email.nullable(),
    phone: contactFieldsSchema.shape.phone.nullable(),
    company: contactFieldsSchema.shape.company.nullable(),
    title: contactFieldsSchema.shape.title.nullable(),
    location: contactFieldsSchema.shape.location.nullable(),
    tags: contactFieldsSchema.shape.tags,
    properties: contactFieldsSchema.shape.properties,
    ...consentFieldsSchema.shape,
    optedOut: z.boolean().optional(),
    waitingOn: z.string().trim().min(1).max(100).nullable().optional(),
    lastContactAt: z.iso.datetime({ offset: true }).nullable().optional(),
  })
  .partial()
  .catchall(propertyValueSchema)
  .superRefine(requireConsentState);
export type ContactUpdate = z.infer<typeof contactUpdateSchema>;
const UPDATE_FIELDS = new Set(Object.keys(contactUpdateSchema.shape));

export async function updateContact(db: Db, teamId: string, id: string, input: ContactUpdate): Promise<ContactJson> {
  const changes: Record<string, unknown> = {};
  for (const field of ['email', 'phone', 'company', 'title', 'location', 'tags'] as const)
    if (input[field] !== undefined) changes[field] = input[field];
  if (input.name !== undefined) {
    const { first, last } = splitName(input.name);
    Object.assign(changes, { name: input.name, first_name: first, last_name: last });
  }
  if (input.marketingConsent)
    Object.assign(changes, consentChanges(db, input as ConsentFields & { marketingConsent: MarketingConsent }));
  if (input.optedOut !== undefined)
    changes.opted_out_at = input.optedOut ? db.raw('coalesce(opted_out_at, now())') : null;
  if (input.waitingOn !== undefined) changes.waiting_on = input.waitingOn;
  if (input.lastContactAt !== undefined) changes.last_contact_at = input.lastContactAt;
  const properties = { ...additionalOf(input, UPDATE_FIELDS), ...input.properties };
  if (Object.keys(properties).length) changes.properties = mergedProperties(db, 'properties', properties);
  try {
    // The change and its contact.updated event commit together (docs/EVENTS.md).
    return await db.transaction(async (trx) => {
      const [row] = await trx('contacts')
        .where({ team_id: teamId, id })
        .update({ ...changes, updated_at: trx.fn.now() })
        .returning('*');
      if (!row) throw notFound('Contact');
      const contact = presentContact(row);
      // An additional property is reported as a change of `properties`, where it is kept.
      const changed = new Set(Object.keys(input).map((key) => (UPDATE_FIELDS.has(key) ? key : 'properties')));
      await recordEvent(trx, contactUpdatedEvent(teamId, contact, [...changed]));
      return contact;
    });
  } catch (err) {
    if ((err as { code?: string }).code === '23505') {
      const existing = await db('contacts')
        .where({ team_id: teamId })
        .whereRaw('lower(email) = lower(?)', [input.email ?? null])
        .first('id');
      throw new AppError('conflict', `A contact with email ${input.email} already exists`, {
        contactId: existing?.id,
      });
    }
    throw err;
  }
}

/**
 * The columns a consent write sets. Restating the current state without a source or time keeps
 * the recorded ones (a repeated PATCH does not move the consent's date); a new state without them
 * is recorded now, from no named source.
 */
function consentChanges(db: Db, input: ConsentFields & { marketingConsent: MarketingConsent }) {
  return {
    marketing_consent: input.marketingConsent,
    consent_source:
      input.consentSource ??
      db.raw('CASE WHEN marketing_consent = ? THEN consent_source END', [input.marketingConsent]),
    consent_at: input.consentAt
      ? consentTime(input.consentAt)
      : db.raw('CASE WHEN marketing_consent = ? THEN coalesce(consent_at, now()) ELSE now() END', [
          input.marketingConsent,
        ]),
  };
}
