import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { z } from 'zod';
import type { Db } from '../../db/knex';
import { AppError, invalidState, notFound } from '../platform/errors';
import { newId } from '../../db/ids';
import { keysetPage, Page, PageQuery } from '../platform/pagination';
import type { SecretBox } from '../platform/secretBox';
import type { MediaStorage } from './storage';

/** What may be uploaded: documents, images, short videos and archives a deliverable is made of. */
export const ALLOWED_MEDIA_TYPES = [
  'application/pdf',
  'text/plain',
  'text/csv',
  'text/markdown',
  'application/zip',
  'application/json',
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/svg+xml',
  'video/mp4',
  'audio/mpeg',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
] as const;

export const mediaSchema = z.object({
  id: z.string(),
  filename: z.string(),
  contentType: z.string(),
  size: z.number().int(),
  /** The file's bytes, with the team's credentials. */
  url: z.url(),
  createdAt: z.iso.datetime(),
});
export type MediaJson = z.infer<typeof mediaSchema>;

export interface MediaRow {
  seq: number;
  id: string;
  team_id: string;
  filename: string;
  content_type: string;
  size_bytes: string | number;
  storage_key: string;
  created_at: Date;
}

export const mediaContentUrl = (baseUrl: string, mediaId: string) => `${baseUrl}/media/${mediaId}/content`;

export function presentMedia(row: MediaRow, baseUrl: string): MediaJson {
  return {
    id: row.id,
    filename: row.filename,
    contentType: row.content_type,
    size: Number(row.size_bytes),
    url: mediaContentUrl(baseUrl, row.id),
    createdAt: row.created_at.toISOString(),
  };
}

/** A file name safe to store and to put in Content-Disposition. */
const cleanFilename = (name: string) =>
  name
    // Control characters are exactly what must not reach a header or a file name.
    // eslint-disable-next-line no-control-regex
    .replace(/[\\/\0-\x1f"]/g, '_')
    .trim()
    .slice(0, 200) || 'file';

/** The one size rule for files, whichever surface they arrive on. */
export const fileTooLarge = (maxBytes: number) =>
  new AppError('payload_too_large', `Files are limited to ${maxBytes} bytes`, { limitBytes: maxBytes });

export async function storeMedia(
  db: Db,
  storage: MediaStorage,
  teamId: string,
  file: { originalname: string; mimetype: string; buffer: Buffer },
  baseUrl: string,
): Promise<MediaJson> {
  const contentType = file.mimetype.toLowerCase();
  if (!(ALLOWED_MEDIA_TYPES as readonly string[]).includes(contentType)) {
    throw new AppError('unsupported_media_type', `Files of type ${file.mimetype} are not accepted`, {
      allowed: ALLOWED_MEDIA_TYPES,
    });
  }
  const id = newId('med');
  const storageKey = `${teamId}/${id}`;
  await pipeline(Readable.from([file.buffer]), storage.createWriteStream(storageKey));
  const [row] = await db('media')
    .insert({
      id,
      team_id: teamId,
      filename: cleanFilename(file.originalname),
      content_type: contentType,
      size_bytes: file.buffer.length,
      storage_key: storageKey,
    })
    .returning('*');
  return presentMedia(row, baseUrl);
}

export function listMedia(db: Db, teamId: string, page: PageQuery, baseUrl: string): Promise<Page<MediaJson>> {
  return keysetPage(db('media').where({ team_id: teamId }).select('*'), page, (row: MediaRow) =>
    presentMedia(row, baseUrl),
  );
}

export async function findMedia(db: Db, teamId: string, mediaId: string): Promise<MediaRow> {
  const row = await db('media').where({ team_id: teamId, id: mediaId }).first();
  if (!row) throw notFound('Media');
  return row;
}

/** The file a signed link names: the signature, checked first, stands for the team. */
export async function findSignedMedia(db: Db, mediaId: string): Promise<MediaRow> {
  const row = await db('media').where({ id: mediaId }).first();
  if (!row) throw notFound('Media');
  return row;
}

/** Deletes a file no artifact uses (an artifact's file must not vanish under it). */
export async function deleteMedia(db: Db, storage: MediaStorage, teamId: string, mediaId: string): Promise<void> {
  const row = await findMedia(db, teamId, mediaId);
  const users = await db('artifact_media').where({ media_id: mediaId }).pluck('artifact_id');
  if (users.length) throw invalidState('This file is attached to artifacts; detach it first', { artifactIds: users });
  await db('media').where({ id: mediaId }).delete();
  await storage.remove(row.storage_key);
}

/** A download link a recipient can open without credentials, until it expires. */
export function signedMediaUrl(
  baseUrl: string,
  box: SecretBox,
  mediaId: string,
  ttlSeconds: number,
  now = Date.now(),
): string {
  const expires = String(Math.floor(now / 1000) + ttlSeconds);
  return `${mediaContentUrl(baseUrl, mediaId)}?expires=${expires}&sig=${box.sign('media', mediaId, expires)}`;
}

export function verifySignedMedia(box: SecretBox, mediaId: string, expires: unknown, sig: unknown): boolean {
  if (typeof expires !== 'string' || typeof sig !== 'string' || !/^\d+$/.test(expires)) return false;
  return Number(expires) * 1000 > Date.now() && box.verify(sig, 'media', mediaId, expires);
}
