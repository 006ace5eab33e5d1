import { z } from 'zod';
import { ArtifactJson, artifactSchema, artifactTypeSchema, createArtifact, getArtifact } from '../deliveries/artifacts';
import { MediaJson, mediaSchema, presentMedia, storeMedia } from '../media/media';
import type { AppContext } from '../platform/context';
import { AppError, invalidState } from '../platform/errors';
import { slugify } from '../platform/teams';
import { settingsSchema } from '../teams/schemas';
import { presentProduction, productionRefSchema, studioProductionSchema, StudioProductionJson } from './sessions';
import { findProduction } from './wait';

export const studioExportSchema = productionRefSchema.extend({
  title: z.string().trim().min(1).max(300).optional().describe("The artifact's title (default: the session's)"),
  type: artifactTypeSchema
    .optional()
    .describe('The artifact type (default: the team setting studio.artifactType, else "other")'),
  status: z
    .enum(['draft', 'ready'])
    .optional()
    .describe('The artifact status (default: the team setting studio.artifactStatus, else "draft")'),
  contactId: z.string().min(1).max(100).optional().describe('The client the deliverable is for'),
});
export type StudioExport = z.infer<typeof studioExportSchema>;

/** `studio_export`'s answer: the artifact and its file (`exported` false: exported before). */
export const productionExportedSchema = z.object({
  exported: z.boolean(),
  artifact: artifactSchema,
  media: mediaSchema,
  production: studioProductionSchema,
});

/**
 * `studio_export`: stores a succeeded production as a Markdown file in the team's media and an
 * artifact with that file, once: exporting it again answers the same artifact (`exported: false`).
 * Deliver it with deliver_artifacts like any other artifact.
 */
export async function exportProduction(
  ctx: AppContext,
  teamId: string,
  input: StudioExport,
  onlyAgent: string | null = null,
): Promise<{ exported: boolean; artifact: ArtifactJson; media: MediaJson; production: StudioProductionJson }> {
  const baseUrl = ctx.config.baseUrl;
  return ctx.db.transaction(async (trx) => {
    const row = await findProduction(trx, teamId, input.sessionId, input.n, true, onlyAgent);
    if (row.artifact_id && row.media_id) {
      const media = await trx('media').where({ id: row.media_id }).first();
      return {
        exported: false,
        artifact: await getArtifact(trx, teamId, row.artifact_id, baseUrl),
        media: presentMedia(media, baseUrl),
        production: presentProduction(row),
      };
    }
    if (row.status !== 'succeeded' || row.result === null)
      throw invalidState(`Production ${row.n} is ${row.status}; only a succeeded production can be exported`, {
        status: row.status,
        waitWith: 'studio_wait',
      });
    // Checked before the file is written, so a refused export leaves no file behind.
    if (input.contactId && !(await trx('contacts').where({ team_id: teamId, id: input.contactId }).first('id')))
      throw new AppError('unknown_contact', 'contactId is not a contact of this team', {
        contactId: input.contactId,
      });
    const session = await trx('studio_sessions').where({ id: row.session_id }).first('title');
    const team = await trx('teams').where({ id: teamId }).first('settings');
    const defaults = settingsSchema.parse(team.settings).studio ?? {};
    const title = input.title ?? session.title;
    const media = await storeMedia(
      trx,
      ctx.storage,
      teamId,
      {
        originalname: `${slugify(title)}.md`,
        mimetype: 'text/markdown',
        buffer: Buffer.from(row.result, 'utf8'),
      },
      baseUrl,
    );
    const artifact = await createArtifact(
      trx,
      teamId,
      {
        title,
        type: input.type ?? defaults.artifactType ?? 'other',
        status: input.status ?? defaults.artifactStatus ?? 'draft',
        media: [media.id],
        ...(input.contactId ? { contactId: input.contactId } : {}),
      },
      baseUrl,
    );
    const [updated] = await trx('studio_productions')
      .where({ id: row.id })
      .update({ artifact_id: artifact.id, media_id: media.id })
      .returning('*');
    return { exported: true, artifact, media, production: presentProduction(updated) };
  });
}
