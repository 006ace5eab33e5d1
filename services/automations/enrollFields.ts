import { z } from 'zod';
import { contactFieldsSchema, createContact, type ContactCreate } from '../contacts/contacts';
import type { AppContext, TeamRef } from '../platform/context';
import { AppError, ruleBroken } from '../platform/errors';
import { startJourneys } from './cohorts';
import { automationDisabled, enrollContact, enrollContacts } from './enroll';

/**
 * `svc-automation-enroll` (the warp an inbound trigger's system-owned hook runs): the contact the
 * mapped fields name, found by id, email or phone, else created from them (a new contact emits
 * `contact.created`; an existing one is not changed), then enrolled once.
 */

/** The most contacts one bulk enrollment takes. */
export const BULK_ENROLL_MAX = 10_000;

export const enrollInputSchema = z.strictObject({
  automationId: z.string().min(1).max(100).describe('The automation (an inbound trigger’s hook sets it)'),
  contactId: z.string().min(1).max(100).optional().describe('An existing contact of the team'),
  contactIds: z
    .array(z.string().min(1).max(100))
    .min(1)
    .max(BULK_ENROLL_MAX)
    .optional()
    .describe(
      `Bulk: existing contacts of the team (at most ${BULK_ENROLL_MAX}), enrolled together as one cohort; alone, without the single-contact fields`,
    ),
  ...contactFieldsSchema.pick({
    email: true,
    phone: true,
    name: true,
    company: true,
    title: true,
    location: true,
    tags: true,
    properties: true,
    marketingConsent: true,
    consentSource: true,
  }).shape,
});
export type EnrollInput = z.infer<typeof enrollInputSchema>;

/** What an enrollment answers: one contact's, or a bulk enrollment's counts. */
export const enrolledSchema = z.record(z.string(), z.unknown());
export type Enrolled = z.infer<typeof enrolledSchema>;

async function contactFor(
  ctx: AppContext,
  teamId: string,
  input: EnrollInput,
): Promise<{ id: string; created: boolean }> {
  const contacts = () => ctx.db('contacts').where({ team_id: teamId }).orderBy('seq');
  if (input.contactId) {
    const row = await contacts().where({ id: input.contactId }).first('id');
    if (!row)
      throw ruleBroken('unknown_contact', 'contactId is not a contact of this team', { contactId: input.contactId });
    return { id: row.id, created: false };
  }
  if (!input.email && !input.phone)
    throw ruleBroken('contact_required', 'Name the contact to enroll: contactId, email or phone');
  const { automationId: _a, contactId: _c, ...fields } = input;
  if (!input.email)
    // Phones have no unique index (a team may hold one number twice): two runs naming the same new
    // number at once (two automations on one source) take turns, and the second finds the first's.
    return ctx.db.transaction(async (trx) => {
      await trx.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [`contact-phone:${teamId}:${input.phone}`]);
      const found = await trx('contacts').where({ team_id: teamId, phone: input.phone }).orderBy('seq').first('id');
      if (found) return { id: found.id, created: false };
      return { id: (await createContact(trx, teamId, fields as ContactCreate)).id, created: true };
    });
  const found = await contacts().whereRaw('lower(email) = lower(?)', [input.email]).first('id');
  if (found) return { id: found.id, created: false };
  try {
    return { id: (await createContact(ctx.db, teamId, fields as ContactCreate)).id, created: true };
  } catch (err) {
    // Two automations on one source create the same new contact at once: the other one made it.
    const existing = err instanceof AppError && err.code === 'conflict' ? err.details?.contactId : undefined;
    if (typeof existing === 'string') return { id: existing, created: false };
    throw err;
  }
}

export async function enrollFromFields(
  ctx: AppContext,
  team: TeamRef,
  input: EnrollInput,
  enrolledBy: string,
): Promise<Enrolled> {
  const automation = await ctx.db('automations').where({ team_id: team.id, id: input.automationId }).first();
  if (!automation)
    throw ruleBroken('unknown_automation', 'automationId is not an automation of this team', {
      automationId: input.automationId,
    });
  if (!automation.enabled) throw automationDisabled(automation.id);
  if (input.contactIds) return enrollMany(ctx, team, automation, input, enrolledBy);
  const contact = await contactFor(ctx, team.id, input);
  const enrollment = await enrollContact(ctx.db, automation, contact.id, enrolledBy);
  // Also for an enrollment found running: a cohort that did not form or start before is made now.
  await startJourneys(ctx.db, ctx.temporal, automation.id);
  return {
    enrollmentId: enrollment.id,
    automationId: automation.id,
    contactId: contact.id,
    contactCreated: contact.created,
    enrolled: enrollment.created,
  };
}

/**
 * A bulk enrollment: the listed contacts that exist and are not in the journey already are
 * enrolled in one statement, then formed into one cohort and started.
 */
async function enrollMany(
  ctx: AppContext,
  team: TeamRef,
  automation: { id: string; team_id: string; version: number },
  input: EnrollInput,
  enrolledBy: string,
): Promise<Enrolled> {
  const { automationId: _a, contactIds, ...single } = input;
  if (Object.values(single).some((v) => v !== undefined))
    throw ruleBroken(
      'contact_ids_alone',
      'contactIds enrolls existing contacts: send it without the single-contact fields',
    );
  const wanted = [...new Set(contactIds)];
  const known = new Set<string>(await ctx.db('contacts').where({ team_id: team.id }).whereIn('id', wanted).pluck('id'));
  const enrolled = await enrollContacts(
    ctx.db,
    automation,
    wanted.filter((id) => known.has(id)).map((contactId) => ({ contactId, enrolledBy })),
  );
  await startJourneys(ctx.db, ctx.temporal, automation.id);
  return {
    automationId: automation.id,
    enrolled,
    alreadyEnrolled: known.size - enrolled,
    unknownContactIds: wanted.filter((id) => !known.has(id)),
  };
}
