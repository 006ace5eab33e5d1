import { z } from 'zod';

/** A warp execution (`wx_…`): the read model every approval-gated workflow writes its status to. */
export const executionStatusSchema = z.enum([
  'pending_approval',
  'running',
  'succeeded',
  'failed',
  'declined',
  'expired',
]);
export type ExecutionStatus = z.infer<typeof executionStatusSchema>;

/** The status write both the delivery and the warp-execution workflows make (one activity, `recordExecution`). */
export interface ExecutionActivities {
  recordExecution(
    executionId: string,
    patch: { status: ExecutionStatus; draft?: { subject?: string; message: string; links: string }; error?: unknown },
  ): Promise<void>;
}
