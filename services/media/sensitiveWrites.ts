import { deletion } from '../warps/sensitiveWrite';
import { deleteMedia } from './media';

/** The media library's sensitive write (services/warps/sensitiveWrite.ts). */
export const mediaWrites = {
  'media-delete': deletion('mediaId', 'file', (ctx, team, mediaId) =>
    deleteMedia(ctx.db, ctx.storage, team.id, mediaId),
  ),
};
