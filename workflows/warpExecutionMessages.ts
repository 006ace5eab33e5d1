import { defineQuery } from '@temporalio/workflow';
import type { ExecutionStatus } from '../services/deliveryTypes';

export { approve, decline } from './approvalMessages';
/** Where a sensitive write stands: waiting for a person, running, or settled. */
export const progress = defineQuery<{ status: ExecutionStatus }>('progress');
