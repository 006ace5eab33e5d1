import { createHash } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import type { TemporalGateway } from '../../temporal/client';
import { contactEventHappened, enrollmentWorkflowId } from '../../workflows/contracts/enrollment';
import { applySegment } from '../contacts/segments';
import { formCohorts, startPendingCohorts } from './cohorts';
import { enrollContacts } from './enroll';
import type { Trigger } from './schemas';

/**
 * What the events dispatcher does for automations (docs/AUTOMATIONS.md › Triggers and events),
 * in the transaction that marks the events dispatched, so each event does it once:
 * - an `event` trigger enrolls every contact the event names;
 * - a `segment` trigger enrolls a contact that a contact.created / contact.updated event finds
 *   in the segment and that was not in it when last seen (members are remembered per automation;
 *   one that leaves the segment is forgotten, so it can enter again);
 * - an enrollment of a cohort waiting for this event type is handed on to the next step (a new
 *   cohort); one of the per-contact workflows of before gets a queued signal.
 * Then, outside the transaction, `startAutomationWork` forms the enrollments into cohorts,
 * starts them and sends the signals (each marked once sent; a repeat after a crash is dropped by
 * the workflow).
 */

interface DispatchedEvent {
  id: string;
  team_id: string;
  type: string;
  data: unknown;
}

/** The contacts a platform event is about (docs/EVENTS.md › Event types). */
export function contactsOfEvent(event: { type: string; data: unknown }): string[] {
  const data = (event.data ?? {}) as {
    contact?: { id?: unknown };
    deliveries?: { contactId?: unknown }[];
    contactId?: unknown;
  };
  if (event.type === 'contact.created' || event.type === 'contact.updated')
    return typeof data.contact?.id === 'string' ? [data.contact.id] : [];
  // Mail to an agent's inbox names the team's contact whose address sent it, if there is one.
  if (event.type === 'email.received') return typeof data.contactId === 'string' ? [data.contactId] : [];
  if (event.type === 'artifact.sent' && Array.isArray(data.deliveries))
    return [...new Set(data.deliveries.map((d) => d?.contactId).filter((id): id is string => typeof id === 'string'))];
  return [];
}

const signalId = (enrollmentId: string, eventId: string) =>
  `asg_${createHash('sha256').update(`${enrollmentId}\n${eventId}`).digest('hex').slice(0, 32)}`;

const SEGMENT_EVENTS = new Set(['contact.created', 'contact.updated']);

/** Answers how many enrollments and signals it queued. */
export async function queueAutomationWork(trx: Knex.Transaction, events: DispatchedEvent[]): Promise<number> {
  const named = events.map((event) => ({ event, contacts: contactsOfEvent(event) })).filter((n) => n.contacts.length);
  if (!named.length) return 0;
  const teams = [...new Set(named.map((n) => n.event.team_id))];
  const contactIds = [...new Set(named.flatMap((n) => n.contacts))];
  // A contact deleted since its event enrolls nothing.
  const existing = new Set<string>(
    await trx('contacts').whereIn('team_id', teams).whereIn('id', contactIds).pluck('id'),
  );
  let queued = 0;

  const waiting: {
    id: string;
    team_id: string;
    contact_id: string;
    waiting_event: string;
    step: number;
    cohort_id: string | null;
  }[] = await trx('automation_enrollments')
    .whereIn('team_id', teams)
    .whereIn('contact_id', contactIds)
    .where({ status: 'active' })
    .whereNotNull('waiting_event')
    .select('id', 'team_id', 'contact_id', 'waiting_event', 'step', 'cohort_id');
  const matched = named.flatMap(({ event, contacts }) =>
    waiting
      .filter((w) => w.team_id === event.team_id && w.waiting_event === event.type && contacts.includes(w.contact_id))
      .map((w) => ({ w, event })),
  );
  // A cohort's member whose event came goes on at once: handed to a new cohort at the next step,
  // if it still waits there (its cohort's timeout may have moved it on meanwhile).
  const handedOn = [...new Map(matched.filter(({ w }) => w.cohort_id).map(({ w }) => [w.id, w])).values()];
  if (handedOn.length) {
    const { rowCount } = await trx.raw(
      `UPDATE automation_enrollments e
       SET step = v.step + 1, waiting_event = NULL, cohort_id = NULL, workflow_started_at = NULL, updated_at = now()
       FROM unnest(?::text[], ?::int[], ?::text[]) AS v(id, step, waiting_event)
       WHERE e.id = v.id AND e.status = 'active' AND e.step = v.step AND e.waiting_event = v.waiting_event`,
      [handedOn.map((w) => w.id), handedOn.map((w) => w.step), handedOn.map((w) => w.waiting_event)],
    );
    queued += rowCount ?? 0;
  }
  // A per-contact journey of before is signalled.
  const signals = matched
    .filter(({ w }) => !w.cohort_id)
    .map(({ w, event }) => ({
      id: signalId(w.id, event.id),
      enrollment_id: w.id,
      event_id: event.id,
      event_type: event.type,
      step: w.step,
    }));
  if (signals.length) {
    await trx('automation_signals').insert(signals).onConflict('id').ignore();
    queued += signals.length;
  }

  const automations: { id: string; team_id: string; version: number; trigger: Trigger }[] = await trx('automations')
    .whereIn('team_id', teams)
    .where({ enabled: true })
    .whereRaw("trigger->>'kind' IN ('event', 'segment')")
    .select('id', 'team_id', 'version', 'trigger');
  for (const automation of automations) {
    const trigger = automation.trigger;
    // The first event of the batch that names each contact enrolls it.
    const firstEvent = new Map<string, string>();
    for (const { event, contacts } of named) {
      if (event.team_id !== automation.team_id) continue;
      const listens = trigger.kind === 'event' ? trigger.event === event.type : SEGMENT_EVENTS.has(event.type);
      if (!listens) continue;
      for (const c of contacts) if (existing.has(c) && !firstEvent.has(c)) firstEvent.set(c, event.id);
    }
    if (!firstEvent.size) continue;
    let entering = [...firstEvent.keys()];
    if (trigger.kind === 'segment') entering = await enteringSegment(trx, automation, trigger.segmentId, entering);
    queued += await enrollContacts(
      trx,
      automation,
      entering.map((contactId) => ({ contactId, enrolledBy: `event:${firstEvent.get(contactId)}` })),
    );
  }
  return queued;
}

/** Of these contacts, the ones in the segment now and not when last seen; membership is updated. */
async function enteringSegment(
  trx: Knex.Transaction,
  automation: { id: string; team_id: string },
  segmentId: string,
  contactIds: string[],
): Promise<string[]> {
  const segment = await trx('segments').where({ team_id: automation.team_id, id: segmentId }).first('definition');
  if (!segment) return [];
  const inSegment: string[] = await applySegment(
    trx,
    trx('contacts').where('contacts.team_id', automation.team_id).whereIn('contacts.id', contactIds),
    segment.definition,
  ).pluck('contacts.id');
  const left = contactIds.filter((c) => !inSegment.includes(c));
  if (left.length)
    await trx('automation_segment_members')
      .where({ automation_id: automation.id })
      .whereIn('contact_id', left)
      .delete();
  if (!inSegment.length) return [];
  const entered: { contact_id: string }[] = await trx('automation_segment_members')
    .insert(inSegment.map((contact_id) => ({ automation_id: automation.id, contact_id })))
    .onConflict(['automation_id', 'contact_id'])
    .ignore()
    .returning('contact_id');
  return entered.map((r) => r.contact_id);
}

/** Sends queued signals to their enrollments; answers how many it sent. */
async function sendPendingSignals(db: Db, temporal: TemporalGateway, batch = 100): Promise<number> {
  return db.transaction(async (trx) => {
    const rows: { id: string; enrollment_id: string; event_id: string; event_type: string; step: number | null }[] =
      await trx('automation_signals')
        .whereNull('sent_at')
        .orderBy('seq')
        .limit(batch)
        .forUpdate()
        .skipLocked()
        .select('id', 'enrollment_id', 'event_id', 'event_type', 'step');
    if (!rows.length) return 0;
    const results = await Promise.allSettled(
      rows.map(async (r) => {
        try {
          await temporal.call((client) =>
            client.workflow.getHandle(enrollmentWorkflowId(r.enrollment_id)).signal(contactEventHappened, {
              eventId: r.event_id,
              type: r.event_type,
              ...(r.step === null ? {} : { step: r.step }),
            }),
          );
        } catch (err) {
          if (!(err instanceof WorkflowNotFoundError)) throw err;
          // The journey ended meanwhile: nothing waits for the event. One still active is not
          // reachable from this worker's Temporal (another cluster's dispatcher): left for the next pass.
          const enrollment = await trx('automation_enrollments').where({ id: r.enrollment_id }).first('status');
          if (enrollment?.status === 'active') throw err;
        }
      }),
    );
    const sent = rows.filter((_, i) => results[i].status === 'fulfilled').map((r) => r.id);
    if (sent.length) await trx('automation_signals').whereIn('id', sent).update({ sent_at: trx.fn.now() });
    return sent.length;
  });
}

/**
 * The dispatcher's pass for automations: enrollments formed into cohorts and cohorts started,
 * signals to journeys of before sent. `form` is false while a burst of events is still being
 * dispatched, so the contacts it enrolls become one cohort rather than one per pass.
 */
export async function startAutomationWork(db: Db, temporal: TemporalGateway, { form = true } = {}): Promise<number> {
  const formed = form ? await formCohorts(db) : 0;
  const started = await startPendingCohorts(db, temporal);
  const signalled = await sendPendingSignals(db, temporal);
  return formed + started + signalled;
}
