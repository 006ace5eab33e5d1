import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import { sendingAgent } from '../agents/agents';
import { applySegment, findSegment } from '../contacts/segments';
import { setAutomationHookEnabled, upsertAutomationHook } from '../hooks/systemHooks';
import { notFound, ruleBroken } from '../platform/errors';
import { newId } from '../../db/ids';
import { keysetPage, Page } from '../platform/pagination';
import {
  AutomationCreate,
  AutomationJson,
  automationListQuerySchema,
  DEFAULT_INBOUND_MAPPING,
  ENROLL_FIELDS,
  Step,
  Trigger,
} from './schemas';
import { checkSteps } from './validate';
import type { z } from 'zod';

/**
 * Automations (docs/AUTOMATIONS.md): created with a trigger and steps (version 1); editing the
 * steps adds a version that new enrollments start on, running ones keep theirs; disabling turns
 * the trigger off (the inbound hook too), and running enrollments finish their journey.
 */

export interface AutomationRow {
  seq: number;
  id: string;
  team_id: string;
  agent_id: string;
  name: string;
  trigger: Trigger;
  version: number;
  enabled: boolean;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

const present = (row: AutomationRow & { steps: Step[]; hook_id: string | null }): AutomationJson => ({
  id: row.id,
  agentId: row.agent_id,
  name: row.name,
  trigger: row.trigger,
  version: row.version,
  steps: row.steps,
  enabled: row.enabled,
  hookId: row.hook_id,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

/** The automation with its current steps and hook, as one query. */
const withSteps = (db: Db) =>
  db('automations as a')
    .join('automation_versions as v', function () {
      this.on('v.automation_id', 'a.id').andOn('v.version', 'a.version');
    })
    // A subquery, not a join: `seq` stays the automation's alone for the page cursor.
    .select('a.*', 'v.steps', db.raw('(SELECT h.id FROM hooks h WHERE h.automation_id = a.id) AS hook_id'));

export async function findAutomation(db: Db, teamId: string, id: string): Promise<AutomationRow> {
  const row = await db('automations').where({ team_id: teamId, id }).first();
  if (!row) throw notFound('Automation');
  return row;
}

export async function getAutomation(db: Db, teamId: string, id: string): Promise<AutomationJson> {
  const row = await withSteps(db).where({ 'a.team_id': teamId, 'a.id': id }).first();
  if (!row) throw notFound('Automation');
  return present(row);
}

export function listAutomations(
  db: Db,
  teamId: string,
  query: z.infer<typeof automationListQuerySchema>,
): Promise<Page<AutomationJson>> {
  const q = withSteps(db).where('a.team_id', teamId);
  if (query.enabled !== undefined) q.where('a.enabled', query.enabled);
  return keysetPage(q, query, present, { newestFirst: true });
}

async function checkTrigger(db: Db, teamId: string, trigger: Trigger): Promise<void> {
  if (trigger.kind === 'inbound') {
    const unknown = Object.keys(trigger.mapping ?? {}).filter((k) => !(ENROLL_FIELDS as readonly string[]).includes(k));
    if (unknown.length)
      throw ruleBroken(
        'unknown_enroll_field',
        `An inbound payload maps to contact fields: ${ENROLL_FIELDS.join(', ')}`,
        {
          unknown,
          fields: ENROLL_FIELDS,
        },
      );
  } else if (trigger.kind === 'segment') {
    await findSegment(db, teamId, trigger.segmentId).catch(() => {
      throw ruleBroken('unknown_segment', 'segmentId is not a segment of this team', { segmentId: trigger.segmentId });
    });
  }
}

/**
 * The trigger's switch, in the automation's transaction: an inbound trigger's system-owned hook
 * (svc-automation-enroll) on or off; a segment trigger remembers who is in the segment when it
 * is switched on, so only contacts that enter afterwards are enrolled.
 */
async function applyTrigger(trx: Knex.Transaction, row: AutomationRow, enabled: boolean): Promise<void> {
  const trigger = row.trigger;
  if (trigger.kind === 'inbound') {
    await upsertAutomationHook(trx, {
      teamId: row.team_id,
      agentId: row.agent_id,
      source: 'inbound',
      event: trigger.source,
      automationId: row.id,
      mapping: trigger.mapping ?? DEFAULT_INBOUND_MAPPING,
    });
    await setAutomationHookEnabled(trx, row.id, enabled);
  } else if (trigger.kind === 'segment' && enabled) {
    const segment = await trx('segments').where({ team_id: row.team_id, id: trigger.segmentId }).first('definition');
    if (!segment) return;
    const members = applySegment(
      trx,
      trx('contacts').where('contacts.team_id', row.team_id),
      segment.definition,
    ).select(trx.raw('? AS automation_id', [row.id]), 'contacts.id');
    await trx.raw(
      `INSERT INTO automation_segment_members (automation_id, contact_id) ${members.toString()} ON CONFLICT DO NOTHING`,
    );
  } else if (trigger.kind === 'segment') {
    await trx('automation_segment_members').where({ automation_id: row.id }).delete();
  }
}

/**
 * Who writes an automation's steps (docs/AUTOMATIONS.md › Whose authority): the user, and the
 * agent when an agent calls (its MCP principal). A version's runWarp steps run as its author.
 */
export interface Author {
  userId: string | null;
  /** The calling agent (a principal of kind `agent`); null for a user's or client's call. */
  agentId: string | null;
}

/** The author of a call: an agent's principal is the agent acting for its user. */
export const authorOf = (principal: { kind: string; userId: string | null; agentId?: string | null }): Author => ({
  userId: principal.userId,
  agentId: principal.kind === 'agent' ? (principal.agentId ?? null) : null,
});

/** An agent only writes automations that run as itself: other agents' are not found for it. */
function checkAgentAuthor(author: Author, automationAgentId: string): void {
  if (author.agentId !== null && author.agentId !== automationAgentId) throw notFound('Automation');
}

export async function createAutomation(
  db: Db,
  teamId: string,
  author: Author,
  preferredAgentId: string | null,
  input: AutomationCreate,
): Promise<AutomationJson> {
  if (author.agentId !== null && input.agentId !== undefined && input.agentId !== author.agentId)
    throw ruleBroken('agent_not_self', 'An agent creates automations that run as itself only', {
      agentId: input.agentId,
    });
  const agent = await sendingAgent(db, teamId, author.agentId ?? input.agentId, author.agentId ?? preferredAgentId);
  await checkTrigger(db, teamId, input.trigger);
  const plan = await checkSteps(db, teamId, agent.id, input.steps);
  const id = newId('au');
  await db.transaction(async (trx) => {
    const [row] = await trx('automations')
      .insert({
        id,
        team_id: teamId,
        agent_id: agent.id,
        name: input.name,
        trigger: JSON.stringify(input.trigger),
        version: 1,
        enabled: input.enabled,
        created_by: author.userId,
      })
      .returning('*');
    await trx('automation_versions').insert({
      automation_id: id,
      version: 1,
      steps: JSON.stringify(input.steps),
      plan: JSON.stringify(plan),
      created_by: author.userId,
      created_by_agent_id: author.agentId,
    });
    await applyTrigger(trx, row, input.enabled);
  });
  return getAutomation(db, teamId, id);
}

/**
 * New steps are a new version: enrollments started before keep the version they started on. The
 * version is its author's: its runWarp steps run with the author's rights, not the creator's.
 */
export async function updateAutomationSteps(
  db: Db,
  teamId: string,
  id: string,
  steps: Step[],
  author: Author,
): Promise<AutomationJson> {
  const automation = await findAutomation(db, teamId, id);
  checkAgentAuthor(author, automation.agent_id);
  const plan = await checkSteps(db, teamId, automation.agent_id, steps);
  await db.transaction(async (trx) => {
    const [{ version }] = await trx('automations')
      .where({ id })
      .increment('version', 1)
      .update({ updated_at: trx.fn.now() })
      .returning('version');
    await trx('automation_versions').insert({
      automation_id: id,
      version,
      steps: JSON.stringify(steps),
      plan: JSON.stringify(plan),
      created_by: author.userId,
      created_by_agent_id: author.agentId,
    });
  });
  return getAutomation(db, teamId, id);
}

/**
 * Enables or disables the trigger (and the inbound hook); running enrollments go on to their end.
 * An agent toggles only the automations that run as itself.
 */
export async function setAutomationEnabled(
  db: Db,
  teamId: string,
  id: string,
  enabled: boolean,
  author: Author,
): Promise<AutomationJson> {
  checkAgentAuthor(author, (await findAutomation(db, teamId, id)).agent_id);
  await db.transaction(async (trx) => {
    // The row lock orders two toggles of the same automation.
    const row: AutomationRow = await trx('automations').where({ id }).forUpdate().first();
    if (row.enabled !== enabled) {
      await trx('automations').where({ id }).update({ enabled, updated_at: trx.fn.now() });
      await applyTrigger(trx, row, enabled);
    }
  });
  return getAutomation(db, teamId, id);
}
