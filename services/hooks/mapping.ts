import { z } from 'zod';

/**
 * A hook's field mapping (docs/HOOKS.md › Mapping): warp input name → a path into the event
 * payload. A path is `$` then `.name` or `[index]` segments (`$.contact.email`, `$.items[0].sku`,
 * `$["odd key"]`); `$` alone is the whole payload. A path that finds nothing leaves the input out,
 * so the warp's own schema says whether it was needed.
 */

const SEGMENT = /^(?:\.([A-Za-z_][A-Za-z0-9_-]*)|\[(\d{1,6})\]|\["((?:[^"\\]|\\.){1,200})"\])/;

export type PathSegment = string | number;

/** The segments of a path, or an error in words. */
export function parsePath(path: string): PathSegment[] | string {
  if (!path.startsWith('$')) return 'a path starts with $ (for example $.contact.email)';
  const segments: PathSegment[] = [];
  let rest = path.slice(1);
  while (rest.length) {
    const match = SEGMENT.exec(rest);
    if (!match) return `cannot read the path at “${rest.slice(0, 30)}”: use .name, [index] or ["key"]`;
    segments.push(match[1] ?? (match[2] !== undefined ? Number(match[2]) : (JSON.parse(`"${match[3]}"`) as string)));
    rest = rest.slice(match[0].length);
    if (segments.length > 20) return 'a path has at most 20 segments';
  }
  return segments;
}

export const mappingSchema = z
  .record(
    z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/, 'an input name: letters, digits, _ and -'),
    z
      .string()
      .max(500)
      .superRefine((path, issue) => {
        const parsed = parsePath(path);
        if (typeof parsed === 'string') issue.addIssue({ code: 'custom', message: parsed });
      }),
  )
  .refine((m) => Object.keys(m).length <= 50, 'at most 50 mapped fields')
  .describe('Warp input name → path into the event payload, e.g. { "email": "$.contact.email" }');
export type Mapping = z.infer<typeof mappingSchema>;

function read(value: unknown, segments: PathSegment[]): unknown {
  let current = value;
  for (const segment of segments) {
    if (current === null || typeof current !== 'object') return undefined;
    if (typeof segment === 'number' ? !Array.isArray(current) : Array.isArray(current)) return undefined;
    if (!Object.prototype.hasOwnProperty.call(current, segment)) return undefined;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current;
}

/** The warp inputs of one event: the fixed inputs, then every mapped field found in the payload. */
export function applyMapping(
  fixed: Record<string, unknown>,
  mapping: Mapping,
  payload: unknown,
): Record<string, unknown> {
  const inputs: Record<string, unknown> = { ...fixed };
  for (const [name, path] of Object.entries(mapping)) {
    const segments = parsePath(path);
    if (typeof segments === 'string') continue;
    const value = read(payload, segments);
    if (value !== undefined) inputs[name] = value;
  }
  return inputs;
}
