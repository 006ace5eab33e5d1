import { Context } from '@temporalio/activity';
import type { SendPosition } from '../campaigns/pooledSend';
import { textGeneratorFor } from '../campaigns/content';
import { sendCohortStep } from './cohortSend';
import {
  branchCohort,
  failCohort,
  finishCohort,
  markCohortWaiting,
  runCohortWarps,
  timeOutCohortWait,
} from './cohortSteps';
import { finishEnrollment, runEnrollmentStep } from './steps';
import type { AppContext } from '../platform/context';
import type { CohortActivities } from '../../workflows/contracts/cohort';
import type { EnrollmentActivities } from '../../workflows/contracts/enrollment';

export interface AutomationActivityDeps {
  /** Journey steps run the same service functions as campaigns and warps. */
  appContext: AppContext;
}

/** A batch of sends stops taking members after this long, so a slow send rate still ends its activities. */
const SEND_BATCH_MS = 60_000;

/** The activities of `cohort-<id>` (services/automations/cohort*.ts) and of the per-contact `enrollment-<id>` of before. */
export function createAutomationActivities({ appContext: ctx }: AutomationActivityDeps) {
  const sendDeps = {
    db: ctx.db,
    secretBox: ctx.secretBox,
    textGenerator: textGeneratorFor(ctx.config),
    baseUrl: ctx.config.baseUrl,
    defaultRates: ctx.config.CAMPAIGN_RATE_LIMITS,
    batchSize: ctx.config.CAMPAIGN_BATCH_SIZE,
  };
  const cohortActivities: CohortActivities = {
    markCohortWaiting: (cohortId, step) => markCohortWaiting(ctx, cohortId, step),
    timeOutCohortWait: (cohortId, step, target) => timeOutCohortWait(ctx, cohortId, step, target),
    async sendCohortStep(cohortId, step, afterSeq = 0) {
      const context = Context.current();
      const resumeFrom = context.info.heartbeatDetails as SendPosition | undefined;
      const stopAt = Date.now() + SEND_BATCH_MS;
      return sendCohortStep(
        sendDeps,
        {
          cohortId,
          step,
          afterSeq: resumeFrom?.lastSeq ?? afterSeq,
          recorded: resumeFrom?.recorded ?? 0,
          // Out of time, or Temporal gave this attempt up (its retry may already be sending).
          stopTaking: () => Date.now() > stopAt || context.cancellationSignal.aborted,
        },
        { progress: (position) => context.heartbeat(position) },
      );
    },
    runCohortWarps: (cohortId, step) => runCohortWarps(ctx, cohortId, step, () => Context.current().heartbeat()),
    branchCohort: (cohortId, step) => branchCohort(ctx, cohortId, step),
    finishCohort: (cohortId, outcome) => finishCohort(ctx, cohortId, outcome),
    failCohort: (cohortId, step, error) => failCohort(ctx, cohortId, step, error),
  };
  const enrollmentActivities: EnrollmentActivities = {
    runEnrollmentStep: (enrollmentId, step) => runEnrollmentStep(ctx, enrollmentId, step),
    finishEnrollment: (enrollmentId, outcome) => finishEnrollment(ctx, enrollmentId, outcome),
  };
  return { ...cohortActivities, ...enrollmentActivities };
}
