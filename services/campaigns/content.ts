import { z } from 'zod';
import { providerRequest } from '../../channels/http';

/** Placeholders, content limits and rendering: the campaign content rules in one place. */

export const PLACEHOLDER = /\{\{\s*([a-z0-9_]+)\s*\}\}/g;
export const placeholderNameSchema = z.string().regex(/^[a-z0-9_]+$/, 'placeholder names are [a-z0-9_]+');
export const PLAIN_BODY_LIMIT = 5000;
export const HTML_BODY_LIMIT = 50000;

/** The contact paths a templateParam may name; any other string is a literal. */
export const CONTACT_PATHS = {
  'contact.name': 'name',
  'contact.firstName': 'first_name',
  'contact.lastName': 'last_name',
  'contact.email': 'email',
  'contact.phone': 'phone',
  'contact.company': 'company',
  'contact.title': 'title',
  'contact.location': 'location',
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

/** A value as text in HTML: `&`, `<`, `>` and quotes written as entities. */
export const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * Fills `{{name}}` tokens: templateParams (a contact path or a literal), then aiParams; unmapped
 * ones stay empty. `escape` writes each value for its body (HTML: `escapeHtml`).
 */
export function renderText(
  text: string | null | undefined,
  contact: ContactForRender,
  templateParams: Record<string, string>,
  aiValues: Record<string, string>,
  escape: (value: string) => string = (value) => value,
): string {
  return (text ?? '').replace(PLACEHOLDER, (_whole, name: string) => {
    if (name in templateParams) {
      const source = templateParams[name];
      const column = CONTACT_PATHS[source as keyof typeof CONTACT_PATHS];
      return escape(column ? (contact[column] ?? '') : source);
    }
    return escape(aiValues[name] ?? '');
  });
}

export async function aiValuesFor(
  generator: TextGenerator,
  aiParams: Record<string, string>,
  contact: ContactForRender,
): Promise<Record<string, string>> {
  const entries = await Promise.all(
    Object.entries(aiParams).map(async ([name, prompt]) => [name, await generator.generate(prompt, contact)] as const),
  );
  return Object.fromEntries(entries);
}

/**
 * An OpenAI-compatible chat-completions endpoint (`{baseUrl}/chat/completions`) writes each AI
 * placeholder: one short line per contact, from the placeholder's prompt and the contact's fields.
 */
export function openAiCompatibleGenerator(settings: {
  baseUrl: string;
  apiKey?: string;
  model: string;
}): TextGenerator {
  return {
    async generate(prompt, contact) {
      const who = [contact.name, contact.title, contact.company, contact.location].filter(Boolean).join(', ');
      const body = await providerRequest<{ choices: { message: { content: string } }[] }>(
        'ai',
        `${settings.baseUrl.replace(/\/+$/, '')}/chat/completions`,
        {
          headers: settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {},
          json: {
            model: settings.model,
            max_tokens: 120,
            messages: [
              {
                role: 'system',
                content:
                  'You write one short, friendly line for a personalised marketing message. Answer with the line only.',
              },
              { role: 'user', content: `${prompt}\nRecipient: ${who || 'unknown'}` },
            ],
          },
        },
      );
      return (body.choices[0]?.message.content ?? '').trim();
    },
  };
}

/** The configured generator: the OpenAI-compatible adapter when AI_BASE_URL is set, else the offline one. */
export function textGeneratorFor(config: {
  AI_BASE_URL?: string;
  AI_API_KEY?: string;
  AI_MODEL: string;
}): TextGenerator {
  return config.AI_BASE_URL
    ? openAiCompatibleGenerator({ baseUrl: config.AI_BASE_URL, apiKey: config.AI_API_KEY, model: config.AI_MODEL })
    : offlineTextGenerator;
}
