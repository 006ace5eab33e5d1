import { z } from 'zod';
import { defineOperation, Feature, PENDING_NOTE } from '../platform/operation';
import { pageQuerySchema, pageSchema } from '../platform/pagination';
import { deleteMedia, fileTooLarge, listMedia, mediaSchema, storeMedia } from './media';

const tag = 'Media';

/** `media_upload`: a file's bytes in base64, as MCP carries them. */
const mediaUploadSchema = z.strictObject({
  filename: z.string().trim().min(1).max(200),
  contentType: z.string().min(3).max(200).describe('The MIME type, e.g. application/pdf'),
  contentBase64: z.string().min(1).describe("The file's bytes, base64-encoded"),
});

/**
 * Team media: list, delete, and the upload MCP carries in base64. Over HTTP the upload
 * (multipart) and the download (a file, or a signed link) are hand-written routes
 * (api/routes/media.ts): neither is a JSON operation.
 */
export const media: Feature = {
  name: 'media',
  operations: [
    defineOperation({
      name: 'media.upload',
      access: { level: 'write', app: 'core' },
      input: mediaUploadSchema,
      output: mediaSchema,
      handler: async (ctx, { team }, input) => {
        const buffer = Buffer.from(input.contentBase64, 'base64');
        if (buffer.length > ctx.config.MEDIA_MAX_BYTES) throw fileTooLarge(ctx.config.MEDIA_MAX_BYTES);
        return storeMedia(
          ctx.db,
          ctx.storage,
          team.id,
          { originalname: input.filename, mimetype: input.contentType, buffer },
          ctx.config.baseUrl,
        );
      },
      mcp: {
        name: 'media_upload',
        title: 'Upload a file',
        description:
          "Stores a file in the team's media (PDF, text, images, office documents, zip, mp4, mp3) from base64 " +
          'content. Answers the media object; pass its id in create_artifact / update_artifact `media` to attach ' +
          'it.',
      },
    }),
    defineOperation({
      name: 'media.list',
      access: { level: 'read', app: 'core' },
      input: pageQuerySchema,
      output: pageSchema(mediaSchema),
      handler: (ctx, { team }, page) => listMedia(ctx.db, team.id, page, ctx.config.baseUrl),
      http: {
        method: 'get',
        path: '/media',
        tag,
        summary: "List the team's files",
        status: 200,
        answer: 'A page of files',
        query: pageQuerySchema,
      },
      mcp: {
        name: 'media_list',
        title: 'List files',
        description: "The team's media files (id, filename, contentType, size), a page at a time.",
      },
    }),
    defineOperation({
      name: 'media.delete',
      access: { level: 'write', app: 'core', sensitive: 'media-delete' },
      handler: (ctx, { team }, { mediaId }) => deleteMedia(ctx.db, ctx.storage, team.id, mediaId),
      http: {
        method: 'delete',
        path: '/media/{mediaId}',
        tag,
        summary: 'Delete a file no artifact uses',
        status: 204,
        answer: 'Deleted',
        params: z.object({ mediaId: z.string() }),
        errors: [409],
      },
      mcp: {
        name: 'media_delete',
        title: 'Delete a file',
        description: `Deletes a media file that no artifact uses (detach it first). ${PENDING_NOTE}`,
      },
    }),
  ],
};
