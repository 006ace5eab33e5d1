import { CampaignActivityDeps, createCampaignActivities } from './campaigns';
import { createDeliveryActivities, DeliveryActivityDeps } from './deliveries';
import { createJobActivities, JobActivityDeps } from './jobs';
import { createRoomActivities, RoomActivityDeps } from './rooms';
import { createWarpActivities, WarpActivityDeps } from './warps';
import { createWarpRunActivities } from './warpRuns';
import { createTemplateActivities } from './whatsappTemplates';

/** Every activity the worker registers. */
export function createActivities(
  deps: JobActivityDeps & DeliveryActivityDeps & CampaignActivityDeps & WarpActivityDeps & RoomActivityDeps,
) {
  return {
    ...createJobActivities(deps),
    ...createDeliveryActivities(deps),
    ...createCampaignActivities(deps),
    ...createTemplateActivities(deps),
    ...createWarpActivities(deps),
    ...createRoomActivities(deps),
    ...createWarpRunActivities(deps),
  };
}
