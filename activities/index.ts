import { CampaignActivityDeps, createCampaignActivities } from './campaigns';
import { createDeliveryActivities, DeliveryActivityDeps } from './deliveries';
import { createJobActivities, JobActivityDeps } from './jobs';
import { createTemplateActivities } from './whatsappTemplates';

/** Every activity the worker registers. */
export function createActivities(deps: JobActivityDeps & DeliveryActivityDeps & CampaignActivityDeps) {
  return { ...createJobActivities(deps), ...createDeliveryActivities(deps), ...createCampaignActivities(deps), ...createTemplateActivities(deps) };
}
