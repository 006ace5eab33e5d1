import { defineQuery } from '@temporalio/workflow';
import type { PlanStep } from './enrollment';
import type { ErrorBody } from './errorBody';
import type { WorkflowStart } from './start';

/**
 * The contract of `cohort-<cohortId>`: the contacts that entered one version of an automation
 * together, moved through its steps together (docs/AUTOMATIONS.md › Cohorts). The workflow carries
 * the version's control flow and counts only; its members are rows (`automation_enrollments`
 * naming the cohort), read and moved by the step activities a chunk at a time. Every active member
 * is at the cohort's step: a branch that sends some elsewhere, and an event that ends some
 * members' wait early, hand those members to a new cohort.
 */

export const cohortWorkflowName = 'cohortWorkflow';

export const cohortWorkflowId = (cohortId: string) => `cohort-${cohortId}`;

export interface CohortArgs {
  cohortId: string;
  automationId: string;
  plan: PlanStep[];
  /** The step the members are at (where the cohort was formed, or where it continued as new). */
  step: number;
  /** Its active members when it was formed (or continued as new); a wait does not count them again. */
  members: number;
  /** What each step did so far (carried over when the run continues as new). */
  tallies?: StepTally[];
  /** Tests: continue as new after this many history events. */
  continueAfterEvents?: number;
}

/** What one step did to the cohort's members. */
export interface StepTally {
  step: number;
  kind: PlanStep['kind'];
  /** Members that were at the step when the cohort reached it. */
  entered: number;
  /** How they left it: `movedOn`, `sent`, `skipped`, `failed`, `splitOff` (a branch), `timedOut`, `exited`… */
  outcomes: Record<string, number>;
}

export interface CohortProgress {
  step: number;
  /** `waiting` (a timer), `waitingForEvent`, `sending`, `runningWarps`, `branching`, `done`. */
  phase: string;
  /** Active members, as the last step counted them. */
  active: number;
  steps: StepTally[];
}

/** The cohort's members per step: how many entered each step and how they left it. */
export const membersPerStep = defineQuery<CohortProgress>('membersPerStep');

export interface CohortResult {
  /** The step it ended at (the plan's length when it ran to the end). */
  step: number;
  steps: StepTally[];
}

export type CohortWorkflow = (args: CohortArgs) => Promise<CohortResult>;

export const cohortStart = {
  name: cohortWorkflowName,
  id: (args) => cohortWorkflowId(args.cohortId),
  searchAttributes: (args) => ({
    JobType: 'automation.cohort',
    BusinessId: args.cohortId,
    AutomationId: args.automationId,
    JourneyStep: args.step,
  }),
  // A cohort runs once: a start repeated after it ended is refused too.
  idReusePolicy: 'REJECT_DUPLICATE',
} as const satisfies WorkflowStart<CohortWorkflow>;

/** What a batched step activity (send, runWarp) answers. */
export interface CohortBatch {
  /** Members this call moved on, skipped or failed. */
  processed: number;
  /** Members still at the step: the workflow calls again until none is left. */
  remaining: number;
  /** With the last batch (none remaining): what became of every member at the step (sent, skipped, failed, succeeded). */
  outcomes?: Record<string, number>;
  /** A send's: the `seq` its next batch claims after (0, or absent: from the step's first member). */
  continueAfterSeq?: number;
}

export interface CohortActivities {
  /** waitForEvent: the members record what they wait for; answers how many wait. */
  markCohortWaiting(cohortId: string, step: number): Promise<number>;
  /** waitForEvent's timeout: the members still waiting go to `target`; answers how many. */
  timeOutCohortWait(cohortId: string, step: number, target: number): Promise<number>;
  /** A send step for up to CAMPAIGN_BATCH_SIZE members, recorded a chunk at a time (heartbeats its position). */
  sendCohortStep(cohortId: string, step: number, afterSeq?: number): Promise<CohortBatch>;
  /** A runWarp step for a batch of members, each keyed by enrollment and step. */
  runCohortWarps(cohortId: string, step: number): Promise<CohortBatch>;
  /**
   * A branch over every member in SQL: those going to the nearer target stay (answered as `next`),
   * the others are handed to a new cohort at their target.
   */
  branchCohort(cohortId: string, step: number): Promise<{ next: number; stayed: number; splitOff: number }>;
  /** The end: the active members are completed (the plan's end) or exited (an exit step); answers how many. */
  finishCohort(cohortId: string, outcome: { status: 'completed' | 'exited'; step: number }): Promise<number>;
  /** A step whose retries ran out: its active members fail with the cause; answers how many. */
  failCohort(cohortId: string, step: number, error: ErrorBody): Promise<number>;
}
