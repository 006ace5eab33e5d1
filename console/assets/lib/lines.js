// @ts-check
/* Form text read as the API takes it: name=value lines and segment conditions. */
import { vocabulary } from './frame.js';

/**
 * `name=value` lines (placeholders, mappings, inputs) as an object; blank lines are skipped.
 * @param {string} text
 */
export function pairs(text) {
  /** @type {Record<string, string>} */
  const out = {};
  for (const line of text.split('\n')) {
    const at = line.indexOf('=');
    if (at > 0) out[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return out;
}
/** An object as `name=value` lines (a value that is not text as JSON). */
export const pairLines = (/** @type {object | null | undefined} */ obj) =>
  Object.entries(obj || {})
    .map(([k, v]) => k + '=' + (typeof v === 'string' ? v : JSON.stringify(v)))
    .join('\n');

/**
 * Segment conditions written one per line, `type value` (`tag newsletter`, `has_email`,
 * `order_count_at_least 2`): the value is read as the condition type takes it (its kind comes
 * from services/contacts/segments.ts through the page's vocabulary); the API checks the rest.
 */
/**
 * A condition as the person wrote it: the API checks its type and value.
 * @typedef {{ type: string, value?: string | number | boolean }} WrittenCondition
 */
/**
 * @param {string} text
 * @returns {WrittenCondition[]}
 */
export function conditionsOf(text) {
  const kinds = new Map(vocabulary.conditionTypes.map((c) => [c.type, c.value]));
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const space = line.indexOf(' ');
      const type = space < 0 ? line : line.slice(0, space);
      const raw = space < 0 ? '' : line.slice(space + 1).trim();
      const kind = kinds.get(type);
      if (kind === 'none' || raw === '') return { type };
      if (kind === 'number') return { type, value: Number(raw) };
      if (kind === 'boolean') return { type, value: raw === 'true' || raw === 'yes' };
      return { type, value: raw };
    });
}
/** A condition as a line again: `tag vip`. */
export const conditionText = (/** @type {{ type: string, value?: unknown }} */ c) =>
  c.type + (c.value === undefined ? '' : ' ' + c.value);
