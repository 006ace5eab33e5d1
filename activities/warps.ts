import { Context } from '@temporalio/activity';
import type { AppContext } from '../services/platform/context';
import { runApprovedWrite } from '../services/deliveries/warps';
import type { WarpActivities } from '../workflows/contracts/warpExecution';

export interface WarpActivityDeps {
  /** Approved writes run the same service functions the API does. */
  appContext: AppContext;
}

export function createWarpActivities({ appContext }: WarpActivityDeps) {
  return {
    async runApprovedWrite(executionId: string) {
      return runApprovedWrite(appContext, executionId, Context.current().info.attempt);
    },
  } satisfies WarpActivities;
}
