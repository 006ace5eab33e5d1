import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { DeliveryDraft, DeliveryState } from '../services/deliveryTypes';

/** The delivery workflow's messages, shared by the workflow and its callers (the API). */

/** Approve, optionally with an edited message or subject (validated: only while pending approval). */
export const approve = defineUpdate<DeliveryDraft, [{ message?: string; subject?: string }]>('approve');
export const decline = defineSignal<[{ reason?: string }]>('decline');
export const progress = defineQuery<DeliveryState>('progress');
