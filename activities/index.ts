import { createJobActivities, JobActivityDeps } from './jobs';

/** Every activity the worker registers. */
export function createActivities(deps: JobActivityDeps) {
  return { ...createJobActivities(deps) };
}
