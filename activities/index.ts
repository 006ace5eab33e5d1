import { createAutomationActivities } from './automations';
import { CampaignActivityDeps, createCampaignActivities } from './campaigns';
import { createDeliveryActivities, DeliveryActivityDeps } from './deliveries';
import { createHookActivities } from './hooks';
import { createJobActivities, JobActivityDeps } from './jobs';
import { createRoomActivities, RoomActivityDeps } from './rooms';
import { createStudioActivities } from './studio';
import { createWarpActivities, WarpActivityDeps } from './warps';
import { createWarpRunActivities } from './warpRuns';
import { createWebhookActivities, WebhookActivityDeps } from './webhooks';
import { createTemplateActivities } from './whatsappTemplates';

/** Every activity the worker registers. */
export function createActivities(
  deps: JobActivityDeps &
    DeliveryActivityDeps &
    CampaignActivityDeps &
    WarpActivityDeps &
    RoomActivityDeps &
    WebhookActivityDeps,
) {
  return {
    ...createJobActivities(deps),
    ...createDeliveryActivities(deps),
    ...createCampaignActivities(deps),
    ...createTemplateActivities(deps),
    ...createWarpActivities(deps),
    ...createRoomActivities(deps),
    ...createWarpRunActivities(deps),
    ...createWebhookActivities(deps),
    ...createStudioActivities(deps),
    ...createHookActivities(deps),
    ...createAutomationActivities(deps),
  };
}
