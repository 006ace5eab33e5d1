import type { Db } from '../../db/knex';
import { newHookId } from './hookRows';
import { Mapping, mappingSchema } from './mapping';

/**
 * System-owned hooks (spec Events › Hooks rule 2): an automation with a webhook or event trigger
 * owns one hook whose warp `svc-automation-enroll` gets `{ automationId }` plus the mapped fields.
 * Users see it in list_hooks but cannot toggle or delete it; it follows its automation. Called by
 * services/automations; it imports nothing of the warps, so the automations may import it freely.
 */

export const AUTOMATION_ENROLL_WARP = 'svc-automation-enroll';

export interface AutomationHookSpec {
  teamId: string;
  agentId: string;
  source: 'inbound' | 'internal';
  /** inbound: the source name (`?source=`); internal: a platform event type (`contact.created`). */
  event: string;
  automationId: string;
  /** Warp input name → path into the payload, e.g. `{ email: '$.contact.email' }` (docs/HOOKS.md › Mapping). */
  mapping: Mapping;
}

/** Creates or updates the automation's hook (one per automation); its enabled state is kept on update. */
export async function upsertAutomationHook(db: Db, spec: AutomationHookSpec): Promise<{ hookId: string }> {
  const mapping = mappingSchema.parse(spec.mapping);
  const values = {
    team_id: spec.teamId,
    agent_id: spec.agentId,
    source: spec.source,
    event: spec.event,
    mapping: JSON.stringify(mapping),
    warp: AUTOMATION_ENROLL_WARP,
    inputs: JSON.stringify({ automationId: spec.automationId }),
    url: null,
    system_owned: true,
  };
  const [row] = await db('hooks')
    .insert({ id: newHookId(), automation_id: spec.automationId, enabled: true, ...values })
    .onConflict('automation_id')
    .merge({ ...values, updated_at: db.fn.now() })
    .returning('id');
  return { hookId: row.id };
}

export async function setAutomationHookEnabled(db: Db, automationId: string, enabled: boolean): Promise<void> {
  await db('hooks').where({ automation_id: automationId }).update({ enabled, updated_at: db.fn.now() });
}

export async function deleteAutomationHook(db: Db, automationId: string): Promise<void> {
  await db('hooks').where({ automation_id: automationId }).delete();
}
