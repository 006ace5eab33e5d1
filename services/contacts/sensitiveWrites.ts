import { deletion } from '../warps/sensitiveWrite';
import { deleteSegment } from './segments';

/** The segments' sensitive write (services/warps/sensitiveWrite.ts). */
export const segmentWrites = {
  'segment-delete': deletion('segmentId', 'segment', (ctx, team, segmentId) =>
    deleteSegment(ctx.db, team.id, segmentId),
  ),
};
