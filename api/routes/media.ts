import { NextFunction, Request, RequestHandler, Response } from 'express';
import multer from 'multer';
import { z } from 'zod';
import type { AppContext } from '../../services/platform/context';
import { AppError } from '../../services/platform/errors';
import {
  fileTooLarge,
  findMedia,
  findSignedMedia,
  MediaRow,
  mediaSchema,
  storeMedia,
  verifySignedMedia,
} from '../../services/media/media';
import { authOf } from '../auth';
import { defineRoute, file, json, locationHeader, Route } from '../routeTable';

const mediaParams = z.object({ mediaId: z.string() });

/** Receives the one file of an upload, answering every multipart failure in the error envelope. */
function receiveUpload(ctx: AppContext): RequestHandler {
  const maxBytes = ctx.config.MEDIA_MAX_BYTES;
  const receiveFile = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: maxBytes, files: 1, fields: 10 },
  }).single('file');
  return (req: Request, res: Response, next: NextFunction) => {
    if (!req.is('multipart/form-data')) {
      throw new AppError('unsupported_media_type', 'Upload a file as multipart/form-data in the field "file"');
    }
    receiveFile(req, res, (err: unknown) => {
      if (!err) return next();
      if (err instanceof multer.MulterError) {
        if (err.code === 'LIMIT_FILE_SIZE') return next(fileTooLarge(maxBytes));
        return next(
          new AppError('validation_error', `Invalid upload: ${err.message}`, {
            issues: [{ path: err.field ?? 'file', message: err.message, code: err.code }],
          }),
        );
      }
      next(new AppError('validation_error', `Invalid upload: ${(err as Error).message}`));
    });
  };
}

/**
 * Team media's upload (multipart, field `file`) and download (a file; a signed link needs no
 * credential): not JSON operations. The list and the delete are the `media` feature's
 * (services/media/operations.ts), after these in the table; the API document groups methods by
 * path, so its order of paths is unchanged.
 */
export function mediaRoutes(ctx: AppContext): Route[] {
  const { storage } = ctx;
  const sendFile = (res: Response, media: MediaRow) => {
    res.setHeader('Content-Type', media.content_type);
    res.setHeader('Content-Length', String(media.size_bytes));
    res.setHeader('Content-Disposition', `attachment; filename="${media.filename.replace(/"/g, '')}"`);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const stream = storage.createReadStream(media.storage_key);
    stream.on('error', (err) => res.destroy(err));
    stream.pipe(res);
  };

  // A signed link (sent to a recipient) needs no credentials; anything else goes through the gate.
  const signedDownload = (): RequestHandler => async (req, res, next) => {
    const mediaId = String(req.params.mediaId);
    if (req.query.sig === undefined) return next();
    if (!verifySignedMedia(ctx.secretBox, mediaId, req.query.expires, req.query.sig))
      throw new AppError('forbidden', 'This download link is invalid or has expired');
    sendFile(res, await findSignedMedia(ctx.db, mediaId));
  };

  return [
    defineRoute({
      method: 'post',
      path: '/media',
      tag: 'Media',
      access: 'write',
      summary: 'Upload a file (multipart/form-data, field "file")',
      description: 'At most `MEDIA_MAX_BYTES`; documents, images, mp4 and zip (another type is 415).',
      body: {
        kind: 'multipart',
        schema: z.object({ file: z.string().meta({ format: 'binary' }) }),
        receive: receiveUpload,
      },
      responses: { 201: json(mediaSchema, 'The file', locationHeader) },
      handler: async ({ req }) => {
        if (!req.file)
          throw new AppError('validation_error', 'Send the file in the multipart field "file"', {
            issues: [{ path: 'file', message: 'required', code: 'invalid_type' }],
          });
        const media = await storeMedia(ctx.db, storage, authOf(req).team.id, req.file, ctx.config.baseUrl);
        return { status: 201, body: media, headers: { Location: `${ctx.config.baseUrl}/media/${media.id}` } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/media/{mediaId}/content',
      tag: 'Media',
      access: 'read',
      summary: 'Download a media file (e.g. a contacts.export result)',
      description:
        'With `expires` and `sig` (a signed link sent to a recipient) no credential is needed; a wrong or ' +
        'expired signature is 403.',
      params: mediaParams,
      query: z.object({
        expires: z.string().optional().describe('Signed links only'),
        sig: z.string().optional().describe('Signed links only'),
      }),
      beforeGate: signedDownload,
      responses: { 200: file('The file, as an attachment') },
      handler: async ({ req, res, params }) => {
        sendFile(res, await findMedia(ctx.db, authOf(req).team.id, params.mediaId));
      },
    }),
  ];
}
