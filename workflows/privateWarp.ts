import { proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import {
  durationMs,
  PrivateWarpActivities,
  PrivateWarpArgs,
  PrivateWarpProgress,
  PrivateWarpStep,
  PrivateWarpWorkflow,
  progress,
} from './contracts/privateWarp';
import type { ErrorBody } from './contracts/errorBody';

const activities = proxyActivities<PrivateWarpActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 10 },
});

class StepFailed {
  constructor(readonly error: ErrorBody) {}
}

/**
 * A private warp: its steps interpreted here, in order. A `wait` is a durable timer, an `if` asks
 * an activity for its condition and runs one branch, a tool or prompt step is one activity whose
 * idempotency id is `<executionId>:<stepKey>`. The first failed step ends the run as failed.
 */
export async function privateWarpWorkflow(args: PrivateWarpArgs): Promise<PrivateWarpProgress> {
  const state: PrivateWarpProgress = { status: 'running', step: null };
  setHandler(progress, () => state);

  async function run(steps: PrivateWarpStep[], prefix: string): Promise<void> {
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i];
      const key = `${prefix}${i}`;
      state.step = key;
      if ('wait' in step) await sleep(durationMs(step.wait));
      else if ('if' in step) {
        const yes = await activities.evaluatePrivateWarpCondition(args.executionId, key);
        await run(yes ? step.then : (step.else ?? []), `${key}.${yes ? 'then' : 'else'}.`);
      } else {
        const outcome = await activities.runPrivateWarpStep(args.executionId, key);
        if (outcome.status === 'failed') throw new StepFailed(outcome.error);
      }
    }
  }

  let error: ErrorBody | null = null;
  try {
    await run(await activities.loadPrivateWarpSteps(args.executionId), '');
  } catch (err) {
    if (!(err instanceof StepFailed)) throw err;
    error = err.error;
  }
  state.step = null;
  state.status = await activities.finishPrivateWarp(args.executionId, error);
  return state;
}
privateWarpWorkflow satisfies PrivateWarpWorkflow;
