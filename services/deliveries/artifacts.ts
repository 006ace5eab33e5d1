import type { Knex } from 'knex';
import { z } from 'zod';
import type { Db } from '../../db/knex';
import { AppError, invalidState, notFound } from '../platform/errors';
import { newId } from '../../db/ids';
import { MediaJson, MediaRow, presentMedia } from '../media/media';
import { keysetPage, pageQuerySchema, Page } from '../platform/pagination';

export const artifactTypeSchema = z.enum(['agreement', 'offer', 'concept', 'update', 'demo', 'file', 'other']);
export const artifactStatusSchema = z.enum(['draft', 'ready', 'sent', 'archived']);
export type ArtifactStatus = z.infer<typeof artifactStatusSchema>;

const linkSchema = z.url({ protocol: /^https?$/ }).max(2000);
const refSchema = z.string().trim().min(1).max(100);

const artifactFields = {
  title: z.string().trim().min(1).max(300),
  type: artifactTypeSchema,
  url: linkSchema,
  password: z.string().min(1).max(200),
  /** Team media ids (from POST /media or `media_upload`), in display order. */
  media: z.array(z.string().min(1).max(100)).max(20),
  extraLink: linkSchema,
  contactId: z.string().min(1).max(100),
  orderId: refSchema,
  quoteId: refSchema,
};

export const artifactCreateSchema = z.strictObject({
  title: artifactFields.title,
  type: artifactFields.type.default('other'),
  url: artifactFields.url.optional(),
  password: artifactFields.password.optional(),
  media: artifactFields.media.optional(),
  extraLink: artifactFields.extraLink.optional(),
  contactId: artifactFields.contactId.optional(),
  orderId: artifactFields.orderId.optional(),
  quoteId: artifactFields.quoteId.optional(),
  /** A new artifact is a draft unless it is created ready to deliver. */
  status: z.enum(['draft', 'ready']).default('draft'),
});
export type ArtifactCreate = z.infer<typeof artifactCreateSchema>;

/** Every field can be changed; `null` clears an optional one. `sent` is reached only by a delivery. */
export const artifactUpdateSchema = z.strictObject({
  title: artifactFields.title.optional(),
  type: artifactFields.type.optional(),
  url: artifactFields.url.nullable().optional(),
  password: artifactFields.password.nullable().optional(),
  media: artifactFields.media.optional(),
  extraLink: artifactFields.extraLink.nullable().optional(),
  contactId: artifactFields.contactId.nullable().optional(),
  orderId: artifactFields.orderId.nullable().optional(),
  quoteId: artifactFields.quoteId.nullable().optional(),
  status: artifactStatusSchema.optional(),
});
export type ArtifactUpdate = z.infer<typeof artifactUpdateSchema>;

export const artifactListQuerySchema = pageQuerySchema.extend({
  status: artifactStatusSchema.optional(),
  type: artifactTypeSchema.optional(),
  contactId: z.string().max(100).optional(),
  /** A comma-separated set of artifact ids to load. */
  ids: z
    .string()
    .max(5000)
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string()).max(100))
    .optional(),
});
export type ArtifactListQuery = z.infer<typeof artifactListQuerySchema>;

export const artifactSchema = z.object({
  id: z.string(),
  title: z.string(),
  type: artifactTypeSchema,
  url: z.string().nullable(),
  password: z.string().nullable(),
  extraLink: z.string().nullable(),
  contactId: z.string().nullable(),
  orderId: z.string().nullable(),
  quoteId: z.string().nullable(),
  status: artifactStatusSchema,
  deliveredAt: z.iso.datetime().nullable(),
  media: z.array(
    z.object({ id: z.string(), filename: z.string(), contentType: z.string(), size: z.number(), url: z.string() }),
  ),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type ArtifactJson = z.infer<typeof artifactSchema>;

export interface ArtifactRow {
  seq: number;
  id: string;
  team_id: string;
  title: string;
  type: z.infer<typeof artifactTypeSchema>;
  url: string | null;
  password: string | null;
  extra_link: string | null;
  contact_id: string | null;
  order_id: string | null;
  quote_id: string | null;
  status: ArtifactStatus;
  delivered_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

function present(row: ArtifactRow, media: MediaJson[]): ArtifactJson {
  return {
    id: row.id,
    title: row.title,
    type: row.type,
    url: row.url,
    password: row.password,
    extraLink: row.extra_link,
    contactId: row.contact_id,
    orderId: row.order_id,
    quoteId: row.quote_id,
    status: row.status,
    deliveredAt: row.delivered_at?.toISOString() ?? null,
    media,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** The artifacts with their media, in one extra query for the whole set. */
async function presentAll(db: Db | Knex.Transaction, rows: ArtifactRow[], baseUrl: string): Promise<ArtifactJson[]> {
  const media =
    rows.length === 0
      ? []
      : await db('artifact_media')
          .join('media', 'media.id', 'artifact_media.media_id')
          .whereIn(
            'artifact_media.artifact_id',
            rows.map((r) => r.id),
          )
          .orderBy(['artifact_media.artifact_id', 'artifact_media.position'])
          .select('artifact_media.artifact_id', 'media.*');
  const byArtifact = new Map<string, MediaJson[]>();
  for (const m of media as (MediaRow & { artifact_id: string })[]) {
    byArtifact.set(m.artifact_id, [...(byArtifact.get(m.artifact_id) ?? []), presentMedia(m, baseUrl)]);
  }
  return rows.map((row) => present(row, byArtifact.get(row.id) ?? []));
}

/**
 * The state table: draft → ready by an edit; any → archived; `sent` only by a delivery; staying
 * put is always fine. Any other move is 409 `invalid_state`.
 */
export function checkTransition(from: ArtifactStatus, to: ArtifactStatus): void {
  if (from === to || to === 'archived' || (from === 'draft' && to === 'ready')) return;
  if (to === 'sent')
    throw invalidState('An artifact becomes sent only by a delivery (POST /v1/artifacts/deliver)', { from, to });
  throw invalidState(`An artifact cannot move from ${from} to ${to}`, {
    from,
    to,
    allowed: from === 'draft' ? ['ready', 'archived'] : ['archived'],
  });
}

async function checkReferences(
  trx: Knex.Transaction,
  teamId: string,
  input: { media?: string[]; contactId?: string | null },
): Promise<void> {
  if (input.media?.length) {
    const unique = [...new Set(input.media)];
    const found = await trx('media').where({ team_id: teamId }).whereIn('id', unique).pluck('id');
    const missing = unique.filter((id) => !found.includes(id));
    if (missing.length)
      throw new AppError('unknown_media', 'Some media ids are not files of this team', { mediaIds: missing });
  }
  if (input.contactId) {
    const contact = await trx('contacts').where({ team_id: teamId, id: input.contactId }).first('id');
    if (!contact)
      throw new AppError('unknown_contact', 'contactId is not a contact of this team', {
        contactId: input.contactId,
      });
  }
}

async function setMedia(trx: Knex.Transaction, artifactId: string, media: string[]): Promise<void> {
  await trx('artifact_media').where({ artifact_id: artifactId }).delete();
  const unique = [...new Set(media)];
  if (unique.length)
    await trx('artifact_media').insert(
      unique.map((mediaId, position) => ({ artifact_id: artifactId, media_id: mediaId, position })),
    );
}

const columns = (input: Partial<ArtifactCreate> | ArtifactUpdate) => {
  const map: Record<string, unknown> = {
    title: input.title,
    type: input.type,
    url: input.url,
    password: input.password,
    extra_link: input.extraLink,
    contact_id: input.contactId,
    order_id: input.orderId,
    quote_id: input.quoteId,
    status: input.status,
  };
  return Object.fromEntries(Object.entries(map).filter(([, v]) => v !== undefined));
};

export async function createArtifact(
  db: Db,
  teamId: string,
  input: ArtifactCreate,
  baseUrl: string,
): Promise<ArtifactJson> {
  return db.transaction(async (trx) => {
    await checkReferences(trx, teamId, input);
    const [row] = await trx('artifacts')
      .insert({ id: newId('art'), team_id: teamId, ...columns(input) })
      .returning('*');
    if (input.media) await setMedia(trx, row.id, input.media);
    return (await presentAll(trx, [row], baseUrl))[0];
  });
}

export async function getArtifact(db: Db, teamId: string, artifactId: string, baseUrl: string): Promise<ArtifactJson> {
  const row = await db('artifacts').where({ team_id: teamId, id: artifactId }).first();
  if (!row) throw notFound('Artifact');
  return (await presentAll(db, [row], baseUrl))[0];
}

export async function listArtifacts(
  db: Db,
  teamId: string,
  query: ArtifactListQuery,
  baseUrl: string,
): Promise<Page<ArtifactJson>> {
  const q = db('artifacts').where({ team_id: teamId });
  if (query.status) q.where({ status: query.status });
  if (query.type) q.where({ type: query.type });
  if (query.contactId) q.where({ contact_id: query.contactId });
  if (query.ids) q.whereIn('id', query.ids);
  const page = await keysetPage(q.select('*'), query, (row: ArtifactRow) => row);
  return { data: await presentAll(db, page.data, baseUrl), pagination: page.pagination };
}

export async function updateArtifact(
  db: Db,
  teamId: string,
  artifactId: string,
  input: ArtifactUpdate,
  baseUrl: string,
): Promise<ArtifactJson> {
  return db.transaction(async (trx) => {
    const current: ArtifactRow | undefined = await trx('artifacts')
      .where({ team_id: teamId, id: artifactId })
      .forUpdate()
      .first();
    if (!current) throw notFound('Artifact');
    if (input.status) checkTransition(current.status, input.status);
    await checkReferences(trx, teamId, input);
    const [row] = await trx('artifacts')
      .where({ id: artifactId })
      .update({ ...columns(input), updated_at: trx.fn.now() })
      .returning('*');
    if (input.media) await setMedia(trx, artifactId, input.media);
    return (await presentAll(trx, [row], baseUrl))[0];
  });
}

export async function deleteArtifact(db: Db, teamId: string, artifactId: string): Promise<void> {
  const deleted = await db('artifacts').where({ team_id: teamId, id: artifactId }).delete();
  if (!deleted) throw notFound('Artifact');
}
