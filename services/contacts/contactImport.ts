import { contactFieldsSchema, ContactFields, requireConsentState } from './contacts';

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
