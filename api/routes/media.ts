import { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import multer from 'multer';
import type { AppContext } from '../../services/context';
import { AppError, parseOrThrow } from '../../services/errors';
import { deleteMedia, fileTooLarge, findMedia, listMedia, MediaRow, storeMedia, verifySignedMedia } from '../../services/media';
import { pageQuerySchema } from '../../services/pagination';
import { authOf, teamAccess } from '../auth';

/** Team media: upload (multipart, field `file`), list, download, delete. */
export function mediaRouter(ctx: AppContext): Router {
  const router = Router();
  const { storage } = ctx;
  const maxBytes = ctx.config.MEDIA_MAX_BYTES;
  const receiveFile = multer({ storage: multer.memoryStorage(), limits: { fileSize: maxBytes, files: 1, fields: 10 } }).single('file');

  const upload: RequestHandler = (req: Request, res: Response, next: NextFunction) => {
    if (!req.is('multipart/form-data')) {
      throw new AppError(415, 'unsupported_media_type', 'Upload a file as multipart/form-data in the field "file"');
    }
    receiveFile(req, res, (err: unknown) => {
      if (!err) return next();
      if (err instanceof multer.MulterError) {
        if (err.code === 'LIMIT_FILE_SIZE') return next(fileTooLarge(maxBytes));
        return next(new AppError(400, 'validation_error', `Invalid upload: ${err.message}`, { issues: [{ path: err.field ?? 'file', message: err.message, code: err.code }] }));
      }
      next(new AppError(400, 'validation_error', `Invalid upload: ${(err as Error).message}`));
    });
  };

  router.post('/media', teamAccess(ctx, 'write'), upload, async (req, res) => {
    if (!req.file) throw new AppError(400, 'validation_error', 'Send the file in the multipart field "file"', { issues: [{ path: 'file', message: 'required', code: 'invalid_type' }] });
    const media = await storeMedia(ctx.db, storage, authOf(req).team.id, req.file, ctx.config.baseUrl);
    res.status(201).setHeader('Location', `${ctx.config.baseUrl}/media/${media.id}`).json(media);
  });

  router.get('/media', teamAccess(ctx, 'read'), async (req, res) => {
    res.json(await listMedia(ctx.db, authOf(req).team.id, parseOrThrow(pageQuerySchema, req.query, 'query'), ctx.config.baseUrl));
  });

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
  router.get('/media/:mediaId/content', async (req, res, next) => {
    const mediaId = String(req.params.mediaId);
    if (req.query.sig === undefined) return next();
    if (!verifySignedMedia(ctx.secretBox, mediaId, req.query.expires, req.query.sig)) throw new AppError(403, 'forbidden', 'This download link is invalid or has expired');
    const media = await ctx.db('media').where({ id: mediaId }).first();
    if (!media) throw new AppError(404, 'not_found', 'Media not found');
    sendFile(res, media);
  }, teamAccess(ctx, 'read'), async (req, res) => {
    sendFile(res, await findMedia(ctx.db, authOf(req).team.id, String(req.params.mediaId)));
  });

  router.delete('/media/:mediaId', teamAccess(ctx, 'write'), async (req, res) => {
    await deleteMedia(ctx.db, storage, authOf(req).team.id, String(req.params.mediaId));
    res.status(204).end();
  });

  return router;
}
