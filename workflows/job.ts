import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  ContinueAsNew,
  continueAsNew,
  defineQuery,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { JobActivities, ImportSummary } from '../activities/jobs';
import type { JobProgress } from '../services/jobs';
import type { JobType } from '../services/jobTypes';

/** Arguments of `job-<jobId>`; the input itself stays in Postgres so that history stays small. */
export interface JobWorkflowArgs {
  jobId: string;
  type: JobType;
  importBatchSize: number;
  /** History length after which an import continues as new (default 5 000; tests use less). */
  continueAfterEvents?: number;
  /** Set when an import continues as new: where it stopped and what it counted so far. */
  resume?: { offset: number; summary: ImportSummary };
}

export type { JobProgress };

export const progressQuery = defineQuery<JobProgress>('progress');

/** Short status writes to the jobs table: local activities, so they cost no extra server round trips. */
const bookkeeping = proxyLocalActivities<JobActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/**
 * Batch activities heartbeat, so a worker that dies mid-batch is noticed within the heartbeat
 * timeout. On cancellation the workflow waits for the batch in flight to end, so nothing is
 * written after the job reads `failed`.
 */
const work = proxyActivities<JobActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '10 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', nonRetryableErrorTypes: ['InvalidJobInput'] },
});

/** Continue-as-new well before Temporal's history limits (50 000 events), for imports of any size. */
const DEFAULT_CONTINUE_AFTER_EVENTS = 5_000;

export async function jobWorkflow(args: JobWorkflowArgs): Promise<Record<string, unknown>> {
  const progress: JobProgress = { phase: 'starting', completed: 0, total: null };
  setHandler(progressQuery, () => progress);

  try {
    if (!args.resume) await bookkeeping.markJobRunning(args.jobId);
    let result: Record<string, unknown>;
    switch (args.type) {
      case 'contacts.import':
        result = { ...(await importContacts(args, progress)) };
        break;
      case 'contacts.export':
        progress.phase = 'exporting';
        result = { ...(await work.exportContacts(args.jobId)) };
        break;
      case 'knowledge.ingest':
        progress.phase = 'ingesting';
        result = { ...(await work.ingestKnowledge(args.jobId)) };
        break;
      default:
        throw ApplicationFailure.nonRetryable(`Unknown job type ${String((args as { type: unknown }).type)}`, 'InvalidJobInput');
    }
    progress.phase = 'finishing';
    await bookkeeping.completeJob(args.jobId, result);
    return result;
  } catch (err) {
    if (err instanceof ContinueAsNew) throw err;
    const error = isCancellation(err)
      ? { code: 'job_cancelled', message: 'The job was cancelled by an operator before it finished' }
      : { code: 'job_failed', message: rootMessage(err) };
    await CancellationScope.nonCancellable(() => bookkeeping.failJob(args.jobId, { error }));
    throw err;
  }
}

async function importContacts(args: JobWorkflowArgs, progress: JobProgress): Promise<ImportSummary> {
  progress.phase = 'importing';
  const total = await work.countImportRows(args.jobId);
  progress.total = total;
  let summary: ImportSummary = args.resume?.summary ?? { total, imported: 0, duplicates: 0, failed: 0, errors: [], errorsTruncated: false };
  for (let offset = args.resume?.offset ?? 0; offset < total; offset += args.importBatchSize) {
    const { historyLength, continueAsNewSuggested } = workflowInfo();
    if (historyLength > (args.continueAfterEvents ?? DEFAULT_CONTINUE_AFTER_EVENTS) || continueAsNewSuggested) {
      await continueAsNew<typeof jobWorkflow>({ ...args, resume: { offset, summary } });
    }
    progress.completed = offset;
    const batch = await work.importContactsBatch({ jobId: args.jobId, offset, limit: args.importBatchSize });
    summary = mergeImportSummaries(summary, batch);
  }
  progress.completed = total;
  return summary;
}

const MAX_REPORTED_ERRORS = 1_000;

function mergeImportSummaries(into: ImportSummary, batch: Omit<ImportSummary, 'total'>): ImportSummary {
  const room = MAX_REPORTED_ERRORS - into.errors.length;
  return {
    total: into.total,
    imported: into.imported + batch.imported,
    duplicates: into.duplicates + batch.duplicates,
    failed: into.failed + batch.failed,
    errors: into.errors.concat(batch.errors.slice(0, Math.max(0, room))),
    errorsTruncated: into.errorsTruncated || batch.errorsTruncated || batch.errors.length > room,
  };
}

function rootMessage(err: unknown): string {
  let current: unknown = err;
  while (current instanceof ActivityFailure && current.cause) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}
