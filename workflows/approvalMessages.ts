import { defineSignal, defineUpdate } from '@temporalio/workflow';

/**
 * The messages every warp execution waiting for a person understands, so one HTTP endpoint (and
 * one signed link) approves or declines any of them.
 */

/** Approve, with edits where the warp takes them (a delivery's message or subject); refused unless pending. */
export const approve = defineUpdate<unknown, [{ message?: string; subject?: string }]>('approve');
export const decline = defineSignal<[{ reason?: string }]>('decline');
