import { Connection } from '@temporalio/client';
import { BusinessIdKey, JobTypeKey, TeamSlugKey } from '../workflows/contracts/searchAttributeKeys';

export { BusinessIdKey, JobTypeKey, TeamSlugKey };

export const customSearchAttributes = [TeamSlugKey, JobTypeKey, BusinessIdKey];

/** Registers the custom search attributes on a server that lacks them (any server, not only the dev server). */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const known = new Set(Object.keys(existing.customAttributes ?? {}));
  const missing = customSearchAttributes.filter((key) => !known.has(key.name));
  if (missing.length === 0) return;
  // The proto enum value for KEYWORD is 2.
  const searchAttributes = Object.fromEntries(missing.map((key) => [key.name, 2]));
  try {
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes });
  } catch (err) {
    if (!/already exists/i.test(String((err as Error).message))) throw err;
  }
}
