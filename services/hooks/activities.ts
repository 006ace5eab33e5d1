import type { AppContext } from '../platform/context';
import { failHookRun, runHook } from './runHook';
import type { HookActivities } from '../../workflows/contracts/hookRun';

export interface HookActivityDeps {
  /** Hook runs go through the same warp executor as MCP `execute`. */
  appContext: AppContext;
}

/** The hook-run activity (services/hooks/runHook.ts). */
export function createHookActivities({ appContext }: HookActivityDeps) {
  return {
    runHook: (runId: string) => runHook(appContext, runId),
    failHookRun: (runId: string, message: string) => failHookRun(appContext, runId, message),
  } satisfies HookActivities;
}
