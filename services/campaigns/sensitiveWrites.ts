import { sensitive, deletion, writeId } from '../warps/sensitiveWrite';
import { deleteCampaign } from './archive';
import { campaignSendSchema, sendCampaign } from './send';

/** The campaign's sensitive writes (services/warps/sensitiveWrite.ts): a send reaches people outside the team, a delete cannot be undone. */
export const campaignWrites = {
  'svc-campaign-send': sensitive({
    schema: campaignSendSchema.extend({ campaignId: writeId }),
    // Without scheduledAt the campaign's own time (if any) decides: the approval page reads it.
    describe: (a) =>
      `Send campaign ${a.campaignId}${a.scheduledAt ? ` at ${a.scheduledAt}` : a.scheduledAt === null ? ' now' : ''}`,
    run: async (ctx, caller, a, executionId) => ({
      campaign: await sendCampaign(ctx, caller.team, a.campaignId, { scheduledAt: a.scheduledAt }, executionId),
    }),
    alreadyDone: (err) =>
      err.code === 'invalid_state' &&
      ['sending', 'scheduled', 'completed', 'failed'].includes(String(err.details?.status)),
  }),
  'svc-campaign-delete': deletion('campaignId', 'campaign', (ctx, team, campaignId) =>
    deleteCampaign(ctx, team.id, campaignId),
  ),
};
