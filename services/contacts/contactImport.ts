import type { Db } from '../../db/knex';
import type { ImportRowError, ImportSummary } from '../../workflows/contracts/job';
import { recordEvents } from '../events/outbox';
import { newId } from '../../db/ids';
import {
  consentTime,
  contactCreatedEvent,
  contactFieldsSchema,
  ContactFields,
  ContactRow,
  contactRowValues,
  contactUpdatedEvent,
  presentContact,
  requireConsentState,
} from './contacts';

/** Row errors a batch reports at most (the others are counted). */
const MAX_ERRORS_PER_BATCH = 200;

// A Map, so that headers such as `constructor` or `__proto__` are ordinary unknown columns.
const FIELD_BY_LOWERCASE = new Map<string, keyof ContactFields>([
  ['name', 'name'],
  ['fullname', 'name'],
  ['full name', 'name'],
  ['email', 'email'],
  ['e-mail', 'email'],
  ['phone', 'phone'],
  ['company', 'company'],
  ['title', 'title'],
  ['location', 'location'],
  ['tags', 'tags'],
  ['properties', 'properties'],
  ['marketingconsent', 'marketingConsent'],
  ['marketing_consent', 'marketingConsent'],
  ['marketing consent', 'marketingConsent'],
  ['consentsource', 'consentSource'],
  ['consent_source', 'consentSource'],
  ['consent source', 'consentSource'],
  ['consentat', 'consentAt'],
  ['consent_at', 'consentAt'],
  ['consent at', 'consentAt'],
]);

/** The same rules as POST /v1/contacts, consent included (PATCH shares the consent ones). */
const importRowSchema = contactFieldsSchema.superRefine(requireConsentState);

export type ImportRowOutcome =
  | { ok: true; fields: ContactFields; extra: Record<string, unknown> }
  /** `field`: the field at fault, when one is (the message then starts with it). */
  | { ok: false; message: string; field?: string };

/**
 * One imported row as contact fields. Header names match case-insensitively; empty cells count as
 * absent; `tags` may be a list or a string split on , ; or |; unknown columns become custom properties.
 */
export function normalizeImportRow(raw: Record<string, unknown>): ImportRowOutcome {
  const fields: Record<string, unknown> = {};
  const extra: Record<string, unknown> = {};
  for (const [key, rawValue] of Object.entries(raw)) {
    const value = typeof rawValue === 'string' ? rawValue.trim() : rawValue;
    if (value === '' || value === null || value === undefined) continue;
    const field = FIELD_BY_LOWERCASE.get(key.trim().toLowerCase());
    if (!field) {
      extra[key.trim()] = typeof value === 'object' ? JSON.stringify(value) : value;
    } else if (field === 'tags' && typeof value === 'string') {
      fields.tags = value
        .split(/[,;|]/)
        .map((t) => t.trim())
        .filter(Boolean);
    } else {
      fields[field] = value;
    }
  }
  if (fields.name === undefined && fields.email === undefined && fields.phone === undefined) {
    return { ok: false, message: 'a contact needs at least one of name, email or phone' };
  }
  const parsed = importRowSchema.safeParse(fields);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.path.map(String).join('.');
    return field
      ? { ok: false, field, message: `${field}: ${issue.message}` }
      : { ok: false, message: `row: ${issue.message}` };
  }
  return { ok: true, fields: parsed.data, extra };
}

/** A granted consent an imported row carries for an email that may exist already, and the fields the row named. */
export interface ImportConsentGrant {
  email: string;
  source: string | null;
  at: string;
  changed: string[];
}

/**
 * Writes one import batch in one transaction: the new contacts (a row whose job and index, or
 * email, exists already inserts nothing), the grants to existing pending contacts (docs/ARCHITECTURE.md
 * › Consent in imports), and a contact.created / contact.updated event for each contact it created
 * or changed, in the same commit. The event keys name the job, contact and change, so a batch that
 * runs again records no event twice (docs/EVENTS.md).
 */
export async function writeImportBatch(
  db: Db,
  batch: { teamId: string; jobId: string; values: Record<string, unknown>[]; grants: ImportConsentGrant[] },
): Promise<void> {
  const { teamId, jobId, values, grants } = batch;
  const eventKey = (contactId: string, change: 'created' | 'updated') => `import:${jobId}:${contactId}:${change}`;
  await db.transaction(async (trx) => {
    const created: ContactRow[] =
      values.length > 0 ? await trx('contacts').insert(values).onConflict().ignore().returning('*') : [];
    // Only pending contacts change: a grant already recorded keeps its own source and time, and an
    // unchanged contact is not returned, so it reports no event.
    const granted: ContactRow[] =
      grants.length > 0
        ? (
            await trx.raw(
              `UPDATE contacts SET marketing_consent = 'granted', consent_source = g.source, consent_at = g.at, updated_at = now()
               FROM jsonb_to_recordset(?::jsonb) AS g(email text, source text, at timestamptz)
               WHERE contacts.team_id = ? AND contacts.email IS NOT NULL AND lower(contacts.email) = lower(g.email)
                 AND contacts.marketing_consent = 'pending'
               RETURNING contacts.*`,
              [JSON.stringify(grants.map(({ email, source, at }) => ({ email, source, at }))), teamId],
            )
          ).rows
        : [];
    const grantByEmail = new Map(grants.map((grant) => [grant.email.toLowerCase(), grant]));
    await recordEvents(trx, [
      ...created.map((row) => contactCreatedEvent(teamId, presentContact(row), eventKey(row.id, 'created'))),
      ...granted.map((row) =>
        contactUpdatedEvent(
          teamId,
          presentContact(row),
          grantByEmail.get(row.email!.toLowerCase())!.changed,
          eventKey(row.id, 'updated'),
        ),
      ),
    ]);
  });
}

/**
 * Imports rows [offset, offset+limit) of a `contacts.import` job — one stored slice (`limit` is the
 * slice size the job was created with) — in one transaction with their contact.created /
 * contact.updated events. Each contact records its job and row, so a batch that runs again after a
 * crash inserts nothing twice, records no event twice and reports the same counts.
 */
export async function importJobSlice(
  db: Db,
  slice: { jobId: string; teamId: string; offset: number; limit: number },
  heartbeat: (details: unknown) => void,
): Promise<Omit<ImportSummary, 'total'>> {
  const { jobId, teamId, offset, limit } = slice;
  const stored = await db('job_input_chunks')
    .where({ job_id: jobId, position: Math.floor(offset / limit) })
    .first('rows');
  const rows = ((stored?.rows ?? []) as unknown[]).map((row, i) => ({ idx: offset + i, row }));

  const errors: ImportRowError[] = [];
  let failed = 0;
  const values: Record<string, unknown>[] = [];
  /** Lower-cased email → the first granted consent for it in this batch. */
  const grants = new Map<string, ImportConsentGrant>();
  for (const { idx, row } of rows) {
    const outcome =
      row && typeof row === 'object' && !Array.isArray(row)
        ? normalizeImportRow(row as Record<string, unknown>)
        : { ok: false as const, message: 'a row must be an object' };
    if (!outcome.ok) {
      failed++;
      if (errors.length < MAX_ERRORS_PER_BATCH)
        errors.push({ index: idx, ...(outcome.field ? { field: outcome.field } : {}), message: outcome.message });
      continue;
    }
    const { email, marketingConsent, consentSource, consentAt } = outcome.fields;
    if (email && marketingConsent === 'granted' && !grants.has(email.toLowerCase())) {
      grants.set(email.toLowerCase(), {
        email,
        source: consentSource ?? null,
        at: consentTime(consentAt).toISOString(),
        // As PATCH reports it: the consent fields the row named.
        changed: ['marketingConsent', ...(consentSource ? ['consentSource'] : []), ...(consentAt ? ['consentAt'] : [])],
      });
    }
    values.push({
      id: newId('ct'),
      team_id: teamId,
      import_job_id: jobId,
      import_row: idx,
      ...contactRowValues(outcome.fields, outcome.extra),
    });
  }
  // The new contacts, the consent granted to existing ones, and their events, in one commit.
  await writeImportBatch(db, { teamId, jobId, values, grants: [...grants.values()] });
  heartbeat({ offset: offset + rows.length });

  const [{ count }] = await db('contacts')
    .where({ import_job_id: jobId })
    .whereBetween('import_row', [offset, offset + limit - 1])
    .count({ count: '*' });
  const imported = Number(count);
  return { imported, duplicates: values.length - imported, failed, errors, errorsTruncated: failed > errors.length };
}
