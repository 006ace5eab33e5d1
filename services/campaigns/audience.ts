import type { Knex } from 'knex';
import { ruleBroken } from '../platform/errors';
import type { Channel } from '../../channels/types';
import type { Db } from '../../db/knex';
import { applySegment, findSegment, SegmentDefinition } from '../contacts/segments';

export interface Audience {
  segment: SegmentDefinition | null;
  tags: string[] | null;
  contactIds: string[] | null;
}

/** The audience's contacts: the union of the segment, the tagged contacts and the listed ones. */
export function audienceQuery(db: Db | Knex.Transaction, teamId: string, audience: Audience): Knex.QueryBuilder {
  return (db as Db)('contacts')
    .where('contacts.team_id', teamId)
    .where((q) => {
      if (audience.segment) {
        q.orWhere((s) => {
          applySegment(db as Db, s, audience.segment!);
        });
      }
      if (audience.tags?.length) q.orWhereRaw('contacts.tags && ?::text[]', [audience.tags]);
      if (audience.contactIds?.length) q.orWhereIn('contacts.id', audience.contactIds);
    });
}

export async function resolveAudience(
  db: Db,
  teamId: string,
  source: { segmentId?: string | null; tags?: string[] | null; contactIds?: string[] | null },
): Promise<Audience> {
  const segment = source.segmentId
    ? (
        await findSegment(db, teamId, source.segmentId).catch(() => {
          throw ruleBroken('unknown_segment', 'segmentId is not a segment of this team', {
            segmentId: source.segmentId,
          });
        })
      ).definition
    : null;
  return { segment, tags: source.tags ?? null, contactIds: source.contactIds ?? null };
}

/** An audience must name someone, and only the team's contacts. */
export async function checkAudience(db: Db, teamId: string, channel: Channel, audience: Audience): Promise<void> {
  if (!audience.segment && !audience.tags?.length && !audience.contactIds?.length) {
    throw ruleBroken('empty_audience', 'Give the audience: segmentId, tags and/or contactIds');
  }
  if (audience.contactIds?.length) {
    const found = await db('contacts').where({ team_id: teamId }).whereIn('id', audience.contactIds).pluck('id');
    const missing = audience.contactIds.filter((id) => !found.includes(id));
    if (missing.length)
      throw ruleBroken('unknown_contact', 'Some contactIds are not contacts of this team', {
        contactIds: missing.slice(0, 100),
      });
  }
  const [{ n }] = await audienceQuery(db, teamId, audience).count({ n: '*' });
  if (Number(n) === 0) throw ruleBroken('empty_audience', 'The audience has no contacts', { channel });
}
