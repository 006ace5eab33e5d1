import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { ErrorBody } from './errorBody';

/**
 * The contract of `enrollment-<enrollmentId>`: one contact's journey through one version of an
 * automation (docs/AUTOMATIONS.md). The workflow carries the version's control flow only (kinds,
 * durations, targets); what a send says or which warp runs is read by the step activity, so
 * ten thousand enrollments do not carry ten thousand copies of a message.
 */

export const enrollmentWorkflowName = 'enrollmentWorkflow';

export const enrollmentWorkflowId = (enrollmentId: string) => `enrollment-${enrollmentId}`;

/** One step's control flow. `next` targets are step indexes, always later steps (a journey ends). */
export type PlanStep =
  | { kind: 'wait'; ms: number }
  /** Waits for a platform event about the contact, at most `timeoutMs`; on timeout goes to `onTimeout` (else the next step). */
  | { kind: 'waitForEvent'; event: string; timeoutMs: number; onTimeout?: number }
  /** send, runWarp, branch: one activity each, which answers the next step. */
  | { kind: 'send' }
  | { kind: 'runWarp' }
  | { kind: 'branch' }
  | { kind: 'exit' };

export interface EnrollmentArgs {
  enrollmentId: string;
  plan: PlanStep[];
}

export type EnrollmentStatus = 'active' | 'completed' | 'exited' | 'failed';

export interface EnrollmentResult {
  status: Exclude<EnrollmentStatus, 'active'>;
  /** The step it ended at (the plan's length when it ran to the end). */
  step: number;
}

export type EnrollmentWorkflow = (args: EnrollmentArgs) => Promise<EnrollmentResult>;

/** A person (or an agent) took the contact out of the journey; the row already says `exited`. */
export const exitJourney = defineSignal<[]>('exitJourney');

/**
 * The event dispatcher: an event about the enrolled contact happened (its id, to drop a repeat),
 * matched while the enrollment waited at `step` (absent on signals queued before migration 022).
 */
export const contactEventHappened =
  defineSignal<[{ eventId: string; type: string; step?: number }]>('contactEventHappened');

export interface EnrollmentProgress {
  status: EnrollmentStatus;
  step: number;
  /** The event type a waitForEvent step waits for, while it waits. */
  waitingFor: string | null;
}
export const progress = defineQuery<EnrollmentProgress>('progress');

/** What a step activity answers: the step to go on with, or that the enrollment has ended (recorded by the activity). */
export type StepAnswer = { next: number } | { ended: Exclude<EnrollmentStatus, 'active'> };

export interface EnrollmentActivities {
  /**
   * A send, runWarp or branch step, once (a send's provider key and step row are
   * `<enrollmentId>:<step>`); a waitForEvent step records what it waits for. Answers `ended`
   * when the enrollment is no longer active (exited meanwhile) or the step failed it.
   */
  runEnrollmentStep(enrollmentId: string, step: number): Promise<StepAnswer>;
  /** Records the end (completed at the plan's end, exited by an exit step, failed), if still active. */
  finishEnrollment(
    enrollmentId: string,
    outcome: { status: 'completed' | 'exited' | 'failed'; step: number; error?: ErrorBody },
  ): Promise<void>;
}
