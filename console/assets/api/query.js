// @ts-check
/* What the endpoint modules share: a query string, and an id made safe for a path. */

/**
 * A query string from the parameters that are set, in their order ('' when none is).
 * @param {Record<string, string | number | boolean | null | undefined>} [query]
 */
export function search(query) {
  const q = new URLSearchParams();
  for (const [name, value] of Object.entries(query || {}))
    if (value !== undefined && value !== null && value !== '') q.set(name, String(value));
  const text = q.toString();
  return text ? '?' + text : '';
}
export const seg = encodeURIComponent;
