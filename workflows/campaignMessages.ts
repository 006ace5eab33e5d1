import { defineQuery, defineSignal } from '@temporalio/workflow';

/** The campaign workflow's messages, shared with the API. */
export const cancelSchedule = defineSignal('cancelSchedule');
export const cancelSend = defineSignal('cancelSend');
export interface CampaignProgress {
  phase: 'scheduled' | 'snapshot' | 'sending' | 'finishing' | 'done';
  dispatched: number;
}
export const progress = defineQuery<CampaignProgress>('progress');
