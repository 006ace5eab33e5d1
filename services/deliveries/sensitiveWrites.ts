import { deletion } from '../warps/sensitiveWrite';
import { deleteArtifact } from './artifacts';

/** The artifacts' sensitive write (services/warps/sensitiveWrite.ts). Delivery has its own workflow (its message is editable) and is not one. */
export const artifactWrites = {
  'artifact-delete': deletion('artifactId', 'artifact', (ctx, team, artifactId) =>
    deleteArtifact(ctx.db, team.id, artifactId),
  ),
};
