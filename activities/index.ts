import { createDeliveryActivities, DeliveryActivityDeps } from './deliveries';
import { createJobActivities, JobActivityDeps } from './jobs';

/** Every activity the worker registers. */
export function createActivities(deps: JobActivityDeps & DeliveryActivityDeps) {
  return { ...createJobActivities(deps), ...createDeliveryActivities(deps) };
}
