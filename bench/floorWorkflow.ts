import { proxyLocalActivities } from '@temporalio/workflow';

/** What the floor's worker does for a job: the same three statements and file as ours (bench/floorJobs.ts). */
export interface FloorActivities {
  exportJobInOnePage(jobId: string): Promise<unknown>;
}

const { exportJobInOnePage } = proxyLocalActivities<FloorActivities>({ startToCloseTimeout: '1 minute' });

/** The floor of bench (b): a job workflow that is one local activity and nothing else (its argument as the API's). */
export async function floorJobWorkflow({ jobId }: { jobId: string }): Promise<unknown> {
  return exportJobInOnePage(jobId);
}
