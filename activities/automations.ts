import { finishEnrollment, runEnrollmentStep } from '../services/automations/steps';
import type { AppContext } from '../services/platform/context';
import type { EnrollmentActivities } from '../workflows/contracts/enrollment';

export interface AutomationActivityDeps {
  /** Journey steps run the same service functions as campaigns and warps. */
  appContext: AppContext;
}

/** The activities of `enrollment-<id>` (services/automations/steps.ts). */
export function createAutomationActivities({ appContext }: AutomationActivityDeps) {
  return {
    runEnrollmentStep: (enrollmentId, step) => runEnrollmentStep(appContext, enrollmentId, step),
    finishEnrollment: (enrollmentId, outcome) => finishEnrollment(appContext, enrollmentId, outcome),
  } satisfies EnrollmentActivities;
}
