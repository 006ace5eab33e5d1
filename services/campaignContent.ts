import { z } from 'zod';

/** Placeholders, content limits and rendering: the campaign content rules in one place. */

export const PLACEHOLDER = /\{\{\s*([a-z0-9_]+)\s*\}\}/g;
export const placeholderNameSchema = z.string().regex(/^[a-z0-9_]+$/, 'placeholder names are [a-z0-9_]+');
export const PLAIN_BODY_LIMIT = 5000;
export const HTML_BODY_LIMIT = 50000;

/** The contact paths a templateParam may name; any other string is a literal. */
export const CONTACT_PATHS = {
  'contact.name': 'name', 'contact.firstName': 'first_name', 'contact.lastName': 'last_name', 'contact.email': 'email',
  'contact.phone': 'phone', 'contact.company': 'company', 'contact.title': 'title', 'contact.location': 'location',
} as const;

export type ContactForRender = Partial<Record<(typeof CONTACT_PATHS)[keyof typeof CONTACT_PATHS], string | null>>;

export function placeholdersIn(...texts: (string | null | undefined)[]): string[] {
  const names = new Set<string>();
  for (const text of texts) for (const match of (text ?? '').matchAll(PLACEHOLDER)) names.add(match[1]);
  return [...names];
}

/** Text for an AI placeholder; the offline default is deterministic (same prompt and contact, same text). */
export interface TextGenerator {
  generate(prompt: string, contact: ContactForRender): Promise<string>;
}

export const offlineTextGenerator: TextGenerator = {
  async generate(prompt, contact) {
    const who = contact.first_name ?? contact.name ?? 'there';
    return `${prompt.trim().replace(/[.!?]*$/, '')}, ${who}.`;
  },
};

/** Fills `{{name}}` tokens: templateParams (a contact path or a literal), then aiParams; unmapped ones stay empty. */
export async function renderText(
  text: string | null | undefined,
  contact: ContactForRender,
  templateParams: Record<string, string>,
  aiValues: Record<string, string>,
): Promise<string> {
  return (text ?? '').replace(PLACEHOLDER, (_whole, name: string) => {
    if (name in templateParams) {
      const source = templateParams[name];
      const column = CONTACT_PATHS[source as keyof typeof CONTACT_PATHS];
      return column ? (contact[column] ?? '') : source;
    }
    return aiValues[name] ?? '';
  });
}

export async function aiValuesFor(generator: TextGenerator, aiParams: Record<string, string>, contact: ContactForRender): Promise<Record<string, string>> {
  const entries = await Promise.all(Object.entries(aiParams).map(async ([name, prompt]) => [name, await generator.generate(prompt, contact)] as const));
  return Object.fromEntries(entries);
}
