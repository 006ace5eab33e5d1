import type { Knex } from 'knex';
import { z } from 'zod';

/**
 * Additional properties of an Agent or a Contact (spec: "accept and may return additional
 * properties beyond those listed"): any JSON value, stored in the object's `properties` and
 * answered there. A request body is parsed JSON, so whatever it holds is a JSON value.
 */
export const propertyValueSchema = z.unknown().meta({ description: 'Any JSON value' });
export const propertiesSchema = z
  .record(z.string().min(1).max(100), propertyValueSchema)
  .describe('Additional properties (any JSON value each); on PATCH merged key by key, null removes one');

/** The keys of a parsed body that are none of the object's own fields: its additional properties. */
export function additionalOf(body: Record<string, unknown>, ownFields: Set<string>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([key]) => !ownFields.has(key)));
}

/** A jsonb `column` merged with `changes` key by key (JSON merge patch, one level): null removes a key. */
export function mergedProperties(db: Knex, column: string, changes: Record<string, unknown>): Knex.Raw {
  const set = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== null));
  const removed = Object.keys(changes).filter((k) => changes[k] === null);
  return db.raw(`(${column} || ?::jsonb) - ?::text[]`, [JSON.stringify(set), removed]);
}
