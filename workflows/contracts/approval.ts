import { defineSignal, defineUpdate } from '@temporalio/workflow';

/**
 * The messages every workflow waiting for a person understands (a delivery, a sensitive write),
 * so one HTTP endpoint and one signed link approve or decline any of them. Workflows wait for
 * them through `workflows/approvalGate.ts`.
 */

/** What an approver may change: a delivery's message or subject; other approvals refuse edits. */
export interface ApprovalEdits {
  message?: string;
  subject?: string;
}

/** Approve, with edits where the workflow takes them; refused (a failed update) unless pending. */
export const approve = defineUpdate<unknown, [ApprovalEdits]>('approve');
export const decline = defineSignal<[{ reason?: string }]>('decline');

/** How a wait for a person ended. */
export type ApprovalOutcome =
  { status: 'approved'; edits: ApprovalEdits } | { status: 'declined'; reason?: string } | { status: 'expired' };
