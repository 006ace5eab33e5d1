import { z } from 'zod';

export const scopeSchema = z.enum(['mcp:read', 'mcp:write', 'mcp:use']);
export type Scope = z.infer<typeof scopeSchema>;
export const SUPPORTED_SCOPES: readonly Scope[] = scopeSchema.options;

export type Access = 'read' | 'write';

/** `mcp:use` implies both `mcp:read` and `mcp:write`. */
export function grants(scopes: readonly string[], access: Access): boolean {
  return scopes.includes('mcp:use') || scopes.includes(access === 'read' ? 'mcp:read' : 'mcp:write');
}

/** Every scope the given ones confer, `mcp:use` expanded: what a narrower request may pick from. */
export function impliedScopes(scopes: readonly string[]): Scope[] {
  return scopes.includes('mcp:use') ? [...SUPPORTED_SCOPES] : SUPPORTED_SCOPES.filter((s) => scopes.includes(s));
}

/** The shortest equivalent scope list (`mcp:use` alone stands for all three), in a stable order. */
export function canonicalScopes(scopes: readonly string[]): Scope[] {
  if (scopes.includes('mcp:use') || (scopes.includes('mcp:read') && scopes.includes('mcp:write'))) return ['mcp:use'];
  return SUPPORTED_SCOPES.filter((s) => scopes.includes(s));
}

/** A space-delimited OAuth `scope` parameter; null for an unknown scope. */
export function parseScopeParameter(value: string | readonly string[] | undefined | null): Scope[] | null {
  const parts = (Array.isArray(value) ? value : String(value ?? '').split(' ')).filter((s) => s.length > 0);
  if (!parts.every((s) => scopeSchema.safeParse(s).success)) return null;
  return parts as Scope[];
}

/**
 * The scopes a client gets for a request: known ones within the client's registered scope (if it
 * registered one); none asked: the client's registered scope, else `mcp:use`. Null: refused.
 */
export function scopesForClient(
  requested: readonly string[] | undefined | null,
  registered: string | null,
): Scope[] | null {
  const asked = parseScopeParameter(requested ?? []);
  if (!asked) return null;
  const clientScopes = registered ? registered.split(' ') : null;
  if (asked.length === 0) return canonicalScopes(clientScopes ?? ['mcp:use']);
  const allowed = impliedScopes(clientScopes ?? ['mcp:use']);
  return asked.every((s) => allowed.includes(s)) ? canonicalScopes(asked) : null;
}
