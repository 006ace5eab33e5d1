import { ApplicationFailure } from '@temporalio/common';
import { stepCatalog } from '../catalog/features';
import type { AppContext } from '../platform/context';
import { AppError } from '../platform/errors';
import { evaluateCondition, finishPrivateWarp, privateWarpSteps, runPrivateWarpStep } from './privateWarpRuns';
import { runWarpJob } from './warpJob';
import type { WarpJobActivities } from '../../workflows/contracts/job';
import type { PrivateWarpActivities } from '../../workflows/contracts/privateWarp';

export interface WarpRunActivityDeps {
  /** Warps run the same service functions the API and the MCP tools do. */
  appContext: AppContext;
}

/** The activities of private warps and `warp.run` jobs. */
export function createWarpRunActivities({ appContext }: WarpRunActivityDeps) {
  return {
    loadPrivateWarpSteps: (executionId) => privateWarpSteps(appContext, executionId),
    runPrivateWarpStep: (executionId, stepKey) => runPrivateWarpStep(appContext, stepCatalog, executionId, stepKey),
    evaluatePrivateWarpCondition: (executionId, stepKey) => evaluateCondition(appContext, executionId, stepKey),
    finishPrivateWarp: (executionId, error) => finishPrivateWarp(appContext, executionId, error),
    async runWarpJob(jobId) {
      try {
        return await runWarpJob(appContext, jobId);
      } catch (err) {
        // A rule the warp broke is the job's answer: not retried.
        if (err instanceof AppError && err.status < 500)
          throw ApplicationFailure.nonRetryable(`${err.code}: ${err.message}`, 'WarpFailed', err.toBody());
        throw err;
      }
    },
  } satisfies PrivateWarpActivities & WarpJobActivities;
}
