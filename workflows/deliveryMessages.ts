import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { DeliveryDraft, DeliveryState } from '../services/deliveryTypes';
import { approve as anyApproval } from './approvalMessages';

/** The delivery workflow's messages, shared by the workflow and its callers (the API). */

/** `approve` (the one every warp execution takes), answering the delivery's approved draft. */
export const approve = defineUpdate<DeliveryDraft, [{ message?: string; subject?: string }]>(anyApproval.name);
export { decline } from './approvalMessages';
export const progress = defineQuery<DeliveryState>('progress');
