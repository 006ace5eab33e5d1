import type { Knex } from 'knex';
import { z } from 'zod';
import type { Db } from '../../db/knex';
import { AppError, notFound } from '../platform/errors';
import { ContactJson, presentContact } from './contacts';
import { newId } from '../../db/ids';
import { keysetPage, Page, PageQuery } from '../platform/pagination';

const date = z.iso.datetime({ offset: true }).or(z.iso.date());
const amount = z.number().nonnegative().max(1e12);

/** Every condition type of the spec, with the value each one takes. */
export const conditionSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('tag'), value: z.string().trim().min(1).max(100) }),
  z.strictObject({ type: z.literal('has_email') }),
  z.strictObject({ type: z.literal('has_phone') }),
  z.strictObject({ type: z.literal('has_user') }),
  z.strictObject({ type: z.literal('never_purchased') }),
  z.strictObject({ type: z.literal('last_purchase_after'), value: date }),
  z.strictObject({ type: z.literal('last_purchase_before'), value: date }),
  z.strictObject({ type: z.literal('order_count_at_least'), value: z.number().int().min(0).max(1e9) }),
  /** Total spend at least this much. */
  z.strictObject({ type: z.literal('total_order_amount'), value: amount }),
  z.strictObject({ type: z.literal('avg_order_value_at_least'), value: amount }),
  z.strictObject({ type: z.literal('last_contact_after'), value: date }),
  z.strictObject({ type: z.literal('last_contact_before'), value: date }),
  /** Contacts in a waiting / follow-up state; with a value, that state only. */
  z.strictObject({ type: z.literal('waiting_on'), value: z.string().trim().min(1).max(100).optional() }),
  z.strictObject({ type: z.literal('created_after'), value: date }),
  z.strictObject({ type: z.literal('created_before'), value: date }),
  z.strictObject({ type: z.literal('email_contains'), value: z.string().trim().min(1).max(320) }),
  /** true: contacts who opted out; false: those who did not. */
  z.strictObject({ type: z.literal('marketing_opt_out'), value: z.boolean().default(true) }),
  /** Exact match of a custom property, written `key:value`. */
  z.strictObject({ type: z.literal('prop'), value: z.string().regex(/^[^:]{1,100}:.{0,1000}$/, 'key:value') }),
]);
export type Condition = z.infer<typeof conditionSchema>;

export const segmentDefinitionSchema = z.strictObject({
  /** How the groups combine; each group combines its own conditions. */
  match: z.enum(['all', 'any']).default('all'),
  groups: z
    .array(
      z.strictObject({
        match: z.enum(['all', 'any']).default('all'),
        conditions: z.array(conditionSchema).min(1).max(50),
      }),
    )
    .min(1)
    .max(20),
});
export type SegmentDefinition = z.infer<typeof segmentDefinitionSchema>;

export const segmentCreateSchema = z
  .strictObject({ name: z.string().trim().min(1).max(200) })
  .extend(segmentDefinitionSchema.shape);
export type SegmentCreate = z.infer<typeof segmentCreateSchema>;

export const segmentSchema = z.object({
  id: z.string(),
  name: z.string(),
  match: z.enum(['all', 'any']),
  groups: segmentDefinitionSchema.shape.groups,
  createdAt: z.iso.datetime(),
});
export type SegmentJson = z.infer<typeof segmentSchema>;

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Per-contact order facts, for the purchase conditions (one indexed lookup per contact). */
const orderFact = (db: Db | Knex, expression: string) =>
  db.raw(`(SELECT ${expression} FROM orders o WHERE o.contact_id = contacts.id)`);

/** One condition as a SQL predicate on `contacts`. */
function applyCondition(db: Db, q: Knex.QueryBuilder, c: Condition): void {
  switch (c.type) {
    // `@>` (not `= ANY`) so the GIN index on tags serves it.
    case 'tag':
      q.whereRaw('contacts.tags @> ARRAY[?]::text[]', [c.value]);
      break;
    case 'has_email':
      q.whereNotNull('contacts.email').where('contacts.email', '<>', '');
      break;
    case 'has_phone':
      q.whereNotNull('contacts.phone').where('contacts.phone', '<>', '');
      break;
    case 'has_user':
      q.whereNotNull('contacts.user_id');
      break;
    case 'never_purchased':
      q.whereNotExists(db('orders').whereRaw('orders.contact_id = contacts.id'));
      break;
    case 'last_purchase_after':
      q.where(orderFact(db, 'max(o.ordered_at)'), '>', c.value);
      break;
    case 'last_purchase_before':
      q.where(orderFact(db, 'max(o.ordered_at)'), '<', c.value);
      break;
    case 'order_count_at_least':
      q.where(orderFact(db, 'count(*)'), '>=', c.value);
      break;
    case 'total_order_amount':
      q.where(orderFact(db, 'coalesce(sum(o.amount), 0)'), '>=', c.value);
      break;
    case 'avg_order_value_at_least':
      q.where(orderFact(db, 'avg(o.amount)'), '>=', c.value);
      break;
    case 'last_contact_after':
      q.where('contacts.last_contact_at', '>', c.value);
      break;
    case 'last_contact_before':
      q.where('contacts.last_contact_at', '<', c.value);
      break;
    case 'waiting_on':
      if (c.value) q.where('contacts.waiting_on', c.value);
      else q.whereNotNull('contacts.waiting_on');
      break;
    case 'created_after':
      q.where('contacts.created_at', '>', c.value);
      break;
    case 'created_before':
      q.where('contacts.created_at', '<', c.value);
      break;
    case 'email_contains':
      q.whereRaw("contacts.email ILIKE ? ESCAPE '\\'", [`%${escapeLike(c.value)}%`]);
      break;
    case 'marketing_opt_out':
      if (c.value) q.whereNotNull('contacts.opted_out_at');
      else q.whereNull('contacts.opted_out_at');
      break;
    case 'prop': {
      const [key, ...rest] = c.value.split(':');
      q.whereRaw('contacts.properties @> ?::jsonb', [JSON.stringify({ [key]: rest.join(':') })]);
      break;
    }
  }
}

/** Narrows a contacts query (already filtered by team) to a segment's members, all in SQL. */
export function applySegment(db: Db, q: Knex.QueryBuilder, definition: SegmentDefinition): Knex.QueryBuilder {
  const combine = (builder: Knex.QueryBuilder, match: 'all' | 'any', parts: ((b: Knex.QueryBuilder) => void)[]) => {
    for (const part of parts) {
      if (match === 'all') builder.where((b) => part(b));
      else builder.orWhere((b) => part(b));
    }
  };
  return q.where((outer) =>
    combine(
      outer,
      definition.match,
      definition.groups.map(
        (group) => (groupBuilder: Knex.QueryBuilder) =>
          combine(
            groupBuilder,
            group.match,
            group.conditions.map((condition) => (b: Knex.QueryBuilder) => applyCondition(db, b, condition)),
          ),
      ),
    ),
  );
}

/** "The property must already be set on the contact before a segment can use it." */
async function checkProperties(db: Db, teamId: string, definition: SegmentDefinition): Promise<void> {
  const keys = [
    ...new Set(
      definition.groups
        .flatMap((g) => g.conditions)
        .filter((c) => c.type === 'prop')
        .map((c) => c.value.split(':')[0]),
    ),
  ];
  for (const key of keys) {
    const used = await db('contacts')
      .where({ team_id: teamId })
      .whereRaw('contacts.properties \\? ?', [key])
      .first('id');
    if (!used)
      throw new AppError('unknown_property', `No contact has the property "${key}" yet; set it on a contact first`, {
        property: key,
      });
  }
}

interface SegmentRow {
  seq: number;
  id: string;
  name: string;
  definition: SegmentDefinition;
  created_at: Date;
}
const present = (row: SegmentRow): SegmentJson => ({
  id: row.id,
  name: row.name,
  match: row.definition.match,
  groups: row.definition.groups,
  createdAt: row.created_at.toISOString(),
});

export async function createSegment(db: Db, teamId: string, input: SegmentCreate): Promise<SegmentJson> {
  const { name, ...definition } = input;
  await checkProperties(db, teamId, definition);
  const [row] = await db('segments')
    .insert({ id: newId('seg'), team_id: teamId, name, definition: JSON.stringify(definition) })
    .returning('*');
  return present(row);
}

export const listSegments = (db: Db, teamId: string, page: PageQuery): Promise<Page<SegmentJson>> =>
  keysetPage(db('segments').where({ team_id: teamId }).select('*'), page, present);

export async function findSegment(db: Db, teamId: string, segmentId: string): Promise<SegmentRow> {
  const row = await db('segments').where({ team_id: teamId, id: segmentId }).first();
  if (!row) throw notFound('Segment');
  return row;
}

export const getSegment = async (db: Db, teamId: string, segmentId: string) =>
  present(await findSegment(db, teamId, segmentId));

/** Deletes a segment; a campaign that used it keeps its own snapshot of recipients once sent. */
export async function deleteSegment(db: Db, teamId: string, segmentId: string): Promise<void> {
  await findSegment(db, teamId, segmentId);
  const users = await db('campaigns')
    .where({ team_id: teamId, segment_id: segmentId })
    .whereIn('status', ['draft', 'pending', 'approved', 'rejected', 'scheduled', 'sending'])
    .pluck('id');
  if (users.length)
    throw new AppError('invalid_state', 'Campaigns that have not been sent use this segment', {
      campaignIds: users,
    });
  await db('segments').where({ id: segmentId }).delete();
}

/** The contacts a segment holds now, a page at a time. */
export async function segmentContacts(
  db: Db,
  teamId: string,
  segmentId: string,
  page: PageQuery,
): Promise<Page<ContactJson>> {
  const segment = await findSegment(db, teamId, segmentId);
  return keysetPage(
    applySegment(db, db('contacts').where('contacts.team_id', teamId), segment.definition).select('contacts.*'),
    page,
    presentContact,
  );
}
