import { contactFieldsSchema, ContactFields } from './contacts';

// A Map, so that headers such as `constructor` or `__proto__` are ordinary unknown columns.
const FIELD_BY_LOWERCASE = new Map<string, keyof ContactFields>([
  ['name', 'name'], ['fullname', 'name'], ['full name', 'name'],
  ['email', 'email'], ['e-mail', 'email'],
  ['phone', 'phone'], ['company', 'company'], ['title', 'title'], ['location', 'location'],
  ['tags', 'tags'], ['properties', 'properties'],
]);

export type ImportRowOutcome =
  | { ok: true; fields: ContactFields; extra: Record<string, unknown> }
  | { ok: false; message: string };

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
      fields.tags = value.split(/[,;|]/).map((t) => t.trim()).filter(Boolean);
    } else {
      fields[field] = value;
    }
  }
  if (fields.name === undefined && fields.email === undefined && fields.phone === undefined) {
    return { ok: false, message: 'a contact needs at least one of name, email or phone' };
  }
  const parsed = contactFieldsSchema.safeParse(fields);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, message: `${issue.path.join('.') || 'row'}: ${issue.message}` };
  }
  return { ok: true, fields: parsed.data, extra };
}
