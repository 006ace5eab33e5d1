import { Connection } from '@temporalio/client';
import { SearchAttributeType } from '@temporalio/common';
import {
  AutomationIdKey,
  BusinessIdKey,
  JobTypeKey,
  JourneyStepKey,
  TeamSlugKey,
} from '../workflows/contracts/searchAttributeKeys';

export { AutomationIdKey, BusinessIdKey, JobTypeKey, JourneyStepKey, TeamSlugKey };

export const customSearchAttributes = [TeamSlugKey, JobTypeKey, BusinessIdKey, AutomationIdKey, JourneyStepKey];

/** The proto's IndexedValueType of each kind of key this app uses. */
const INDEXED_VALUE_TYPE: Partial<Record<SearchAttributeType, number>> = {
  [SearchAttributeType.KEYWORD]: 2,
  [SearchAttributeType.INT]: 3,
};

/** Registers the custom search attributes on a server that lacks them (any server, not only the dev server). */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const known = new Set(Object.keys(existing.customAttributes ?? {}));
  const missing = customSearchAttributes.filter((key) => !known.has(key.name));
  if (missing.length === 0) return;
  const searchAttributes = Object.fromEntries(missing.map((key) => [key.name, INDEXED_VALUE_TYPE[key.type]!]));
  try {
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes });
  } catch (err) {
    if (!/already exists/i.test(String((err as Error).message))) throw err;
  }
}
