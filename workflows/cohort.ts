import {
  ActivityFailure,
  continueAsNew,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import {
  membersPerStep,
  type CohortActivities,
  type CohortArgs,
  type CohortProgress,
  type CohortResult,
  type CohortWorkflow,
  type StepTally,
} from './contracts/cohort';
import { JourneyStepKey } from './contracts/searchAttributeKeys';
import { shouldContinueAsNew } from './continueAsNew';

// Our side or a provider away: retried for about an hour; every member's step is keyed, so a retry repeats nothing.
const { markCohortWaiting, timeOutCohortWait, branchCohort, finishCohort, failCohort } =
  proxyActivities<CohortActivities>({
    startToCloseTimeout: '2 minutes',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 20 },
  });
const { sendCohortStep, runCohortWarps } = proxyActivities<CohortActivities>({
  startToCloseTimeout: '10 minutes',
  // A worker that died mid-batch is noticed within 10 s; the retry resumes after the last recorded chunk.
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 20 },
});

/**
 * The members of one cohort through the journey, step by step (docs/AUTOMATIONS.md › Cohorts):
 * a wait is one timer; a waitForEvent records what the members wait for, then one timer for
 * those whose event does not come (the dispatcher hands the others on one by one); a send or a
 * runWarp is a batched activity called until no member is left at the step; a branch keeps the
 * members of one target and hands the others on; an exit or the plan's end ends the members.
 */
export async function cohortWorkflow(args: CohortArgs): Promise<CohortResult> {
  const { cohortId, plan } = args;
  const state: CohortProgress = { step: args.step, phase: 'starting', active: args.members, steps: args.tallies ?? [] };
  setHandler(membersPerStep, () => state);
  const tally = (entered: number): StepTally => {
    const t: StepTally = { step: state.step, kind: plan[state.step].kind, entered, outcomes: {} };
    state.steps.push(t);
    return t;
  };
  const count = (t: StepTally, outcomes: Record<string, number>) => {
    for (const [k, n] of Object.entries(outcomes)) if (n) t.outcomes[k] = (t.outcomes[k] ?? 0) + n;
  };
  const show = (what: string) => {
    setCurrentDetails(`Cohort ${cohortId} of automation ${args.automationId}: step ${state.step}, ${what}.`);
  };

  try {
    while (state.step < plan.length && state.active !== 0) {
      const step = plan[state.step];
      upsertSearchAttributes([{ key: JourneyStepKey, value: state.step }]);
      if (step.kind === 'wait') {
        state.phase = 'waiting';
        show(`waiting ${step.ms / 1000} s`);
        count(tally(state.active), { movedOn: state.active });
        await sleep(step.ms);
        state.step += 1;
      } else if (step.kind === 'waitForEvent') {
        state.phase = 'waitingForEvent';
        show(`waiting for ${step.event}, at most ${step.timeoutMs / 1000} s`);
        const waiting = await markCohortWaiting(cohortId, state.step);
        const t = tally(waiting);
        if (waiting) await sleep(step.timeoutMs);
        const target = step.onTimeout ?? state.step + 1;
        state.active = await timeOutCohortWait(cohortId, state.step, target);
        // The rest were handed on by their event, or exited.
        count(t, { timedOut: state.active, leftEarly: waiting - state.active });
        state.step = target;
      } else if (step.kind === 'send' || step.kind === 'runWarp') {
        state.phase = step.kind === 'send' ? 'sending' : 'runningWarps';
        show(step.kind === 'send' ? 'sending' : 'running a warp per member');
        const t = tally(0);
        // A send's next batch claims after where the last one ended, not from the step's first member.
        let after = 0;
        for (;;) {
          const batch =
            step.kind === 'send'
              ? await sendCohortStep(cohortId, state.step, after)
              : await runCohortWarps(cohortId, state.step);
          after = batch.continueAfterSeq ?? 0;
          t.entered += batch.processed;
          if (batch.remaining > 0) continue;
          // The step's own record of every member (exact across retries and crashes).
          t.outcomes = batch.outcomes ?? {};
          t.entered = Object.values(t.outcomes).reduce((a, b) => a + b, 0);
          break;
        }
        state.active = t.entered - (t.outcomes.failed ?? 0);
        state.step += 1;
      } else if (step.kind === 'branch') {
        state.phase = 'branching';
        show('branching');
        const { next, stayed, splitOff } = await branchCohort(cohortId, state.step);
        count(tally(stayed + splitOff), { stayed, splitOff });
        state.active = stayed;
        state.step = next;
      } else {
        const exited = await finishCohort(cohortId, { status: 'exited', step: state.step });
        count(tally(exited), { exited });
        return done();
      }
      if (shouldContinueAsNew(args.continueAfterEvents, () => false))
        await continueAsNew<CohortWorkflow>({ ...args, step: state.step, members: state.active, tallies: state.steps });
    }
    if (state.step >= plan.length) await finishCohort(cohortId, { status: 'completed', step: plan.length });
    return done();
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    // A step whose retries ran out (our side or a provider away for an hour): its members fail with the cause.
    const message = err.cause instanceof Error ? err.cause.message : err.message;
    await failCohort(cohortId, state.step, { error: { code: 'step_failed', message } });
    return done();
  }

  function done(): CohortResult {
    state.phase = 'done';
    show('done');
    return { step: state.step, steps: state.steps };
  }
}
cohortWorkflow satisfies CohortWorkflow;
