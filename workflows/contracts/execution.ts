import type { ExecutionStatus } from './schemas';

/** A warp execution's status; its schema is in ./schemas (kept out of the workflow bundle). */
export type { ExecutionStatus };

/** The status write both the delivery and the warp-execution workflows make (one activity, `recordExecution`). */
export interface ExecutionActivities {
  recordExecution(
    executionId: string,
    patch: { status: ExecutionStatus; draft?: { subject?: string; message: string; links: string }; error?: unknown },
  ): Promise<void>;
}
