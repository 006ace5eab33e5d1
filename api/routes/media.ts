import { Router } from 'express';
import type { AppContext } from '../../services/context';
import { notFound } from '../../services/errors';
import type { MediaStorage } from '../../services/storage';
import { authOf, teamAccess } from '../auth';

export function mediaRouter(ctx: AppContext, storage: MediaStorage): Router {
  const router = Router();
  router.get('/media/:mediaId/content', teamAccess(ctx, 'read'), async (req, res) => {
    const media = await ctx.db('media').where({ team_id: authOf(req).team.id, id: String(req.params.mediaId) }).first();
    if (!media) throw notFound('Media');
    res.setHeader('Content-Type', media.content_type);
    res.setHeader('Content-Length', String(media.size_bytes));
    res.setHeader('Content-Disposition', `attachment; filename="${media.filename.replace(/"/g, '')}"`);
    const stream = storage.createReadStream(media.storage_key);
    stream.on('error', (err) => res.destroy(err));
    stream.pipe(res);
  });
  return router;
}
