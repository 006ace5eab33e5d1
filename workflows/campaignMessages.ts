import { defineQuery, defineSignal } from '@temporalio/workflow';

/** The campaign workflow's messages, shared with the API. */
export const cancelSchedule = defineSignal('cancelSchedule');
export const cancelSend = defineSignal('cancelSend');
/** Approval cards were decided (the API wrote the decisions): look for approved recipients. */
export const cardsDecided = defineSignal('cardsDecided');
export interface CampaignProgress {
  phase: 'scheduled' | 'snapshot' | 'sending' | 'awaiting_approval' | 'finishing' | 'done';
  dispatched: number;
}
export const progress = defineQuery<CampaignProgress>('progress');
