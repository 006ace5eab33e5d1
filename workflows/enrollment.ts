import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import {
  contactEventHappened,
  EnrollmentActivities,
  EnrollmentArgs,
  EnrollmentProgress,
  EnrollmentResult,
  EnrollmentWorkflow,
  exitJourney,
  progress,
} from './contracts/enrollment';

const { runEnrollmentStep, finishEnrollment } = proxyActivities<EnrollmentActivities>({
  startToCloseTimeout: '2 minutes',
  // Our side or a provider away: retried for about an hour; a step is keyed, so a retry never repeats it.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 20 },
});

/**
 * One contact's journey: waits are durable timers, a waitForEvent waits for the dispatcher's
 * signal or its timeout, send/runWarp/branch are one activity each. An exit (the signal, after
 * the row says `exited`) ends any wait at once.
 */
export async function enrollmentWorkflow({ enrollmentId, plan }: EnrollmentArgs): Promise<EnrollmentResult> {
  const state: EnrollmentProgress = { status: 'active', step: 0, waitingFor: null };
  let exitRequested = false;
  let eventArrived = false;
  setHandler(progress, () => state);
  setHandler(exitJourney, () => {
    exitRequested = true;
  });
  // Only an event matched at this very wait: one matched for an earlier wait may arrive late.
  setHandler(contactEventHappened, ({ type, step }) => {
    if (type === state.waitingFor && (step === undefined || step === state.step)) eventArrived = true;
  });
  const exited = (): EnrollmentResult => {
    state.status = 'exited';
    return { status: 'exited', step: state.step };
  };

  while (state.step < plan.length) {
    const step = plan[state.step];
    if (step.kind === 'wait') {
      if (await condition(() => exitRequested, step.ms)) return exited();
      state.step += 1;
    } else if (step.kind === 'waitForEvent') {
      state.waitingFor = step.event;
      eventArrived = false;
      const recorded = await runStep(state.step);
      if ('ended' in recorded) return end(recorded.ended);
      const happened = await condition(() => exitRequested || eventArrived, step.timeoutMs);
      state.waitingFor = null;
      if (exitRequested) return exited();
      state.step = happened ? state.step + 1 : (step.onTimeout ?? state.step + 1);
    } else if (step.kind === 'exit') {
      await finishEnrollment(enrollmentId, { status: 'exited', step: state.step });
      return exited();
    } else {
      const answer = await runStep(state.step);
      if ('ended' in answer) return end(answer.ended);
      if (exitRequested) return exited();
      state.step = answer.next;
    }
  }
  await finishEnrollment(enrollmentId, { status: 'completed', step: state.step });
  state.status = 'completed';
  return { status: 'completed', step: state.step };

  async function runStep(index: number) {
    try {
      return await runEnrollmentStep(enrollmentId, index);
    } catch (err) {
      // Retries used up (a provider or our side away for an hour): the journey fails with the cause.
      const message = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : 'failed';
      await finishEnrollment(enrollmentId, {
        status: 'failed',
        step: index,
        error: { error: { code: 'step_failed', message } },
      });
      return { ended: 'failed' as const };
    }
  }

  function end(status: EnrollmentResult['status']): EnrollmentResult {
    if (status === 'exited') return exited();
    state.status = status;
    return { status, step: state.step };
  }
}
enrollmentWorkflow satisfies EnrollmentWorkflow;
