import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  ContinueAsNew,
  continueAsNew,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
  type WorkflowInfo,
} from '@temporalio/workflow';
import {
  ExportResult,
  ImportSummary,
  JobActivities,
  JobProgress,
  JobResult,
  JobWorkflow,
  JobWorkflowArgs,
  progress as progressQuery,
  WarpJobActivities,
} from './contracts/job';
import { shouldContinueAsNew } from './continueAsNew';

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

/** An export that fits in one page takes well under the workflow task's timeout. */
const inTheWorkflowTask = proxyLocalActivities<JobActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/** Marks the workflows that try the one-page export first (histories from before replay as they ran). */
const ONE_PAGE_EXPORTS_IN_THE_WORKFLOW_TASK = 'one-page-exports-in-the-workflow-task';
/**
 * Marks the workflows that run a one-page export job as one local activity, bookkeeping included,
 * among those started without `onePageExportFirst` (which needs no marker).
 */
const ONE_PAGE_EXPORT_JOBS_IN_ONE_LOCAL_ACTIVITY = 'one-page-export-jobs-in-one-local-activity';

/** A `warp.run` job: one activity; a rule the warp breaks fails it at once (non-retryable). */
const warpJob = proxyActivities<WarpJobActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 10 },
});

export async function jobWorkflow(args: JobWorkflowArgs): Promise<JobResult> {
  const progress: JobProgress = { phase: 'starting', completed: 0, total: null };
  setHandler(progressQuery, () => progress);

  try {
    // Most exports fit in one page: the whole job is then one local activity, in the first
    // workflow task. A larger one comes back marked running, and goes on as an activity.
    const onePageTried =
      args.type === 'contacts.export' &&
      (args.onePageExportFirst === true ? onePageByFlag() : patched(ONE_PAGE_EXPORT_JOBS_IN_ONE_LOCAL_ACTIVITY));
    if (onePageTried) {
      progress.phase = 'exporting';
      const exported = await inTheWorkflowTask.exportJobInOnePage(args.jobId);
      if (exported) return { ...exported };
    } else if (!args.resume) await bookkeeping.markJobRunning(args.jobId);
    let result: JobResult;
    switch (args.type) {
      case 'contacts.import':
        result = { ...(await importContacts(args, progress)) };
        break;
      case 'contacts.export':
        progress.phase = 'exporting';
        result = { ...(await exportContacts(args.jobId, onePageTried)) };
        break;
      case 'knowledge.ingest':
        progress.phase = 'ingesting';
        result = { ...(await work.ingestKnowledge(args.jobId)) };
        break;
      case 'warp.run':
        result = await warpJob.runWarpJob(args.jobId);
        break;
      default:
        throw ApplicationFailure.nonRetryable(
          `Unknown job type ${String((args as { type: unknown }).type)}`,
          'InvalidJobInput',
        );
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

jobWorkflow satisfies JobWorkflow;

/**
 * A run started with `onePageExportFirst` takes the one-page path and records no patch marker. A
 * worker from before the flag (during a rolling deploy) ignores it and records the marker: when
 * such a history replays here, the marker is taken back up (`patched` while replaying records
 * nothing when the history has none), so it replays as it ran.
 */
function onePageByFlag(): true {
  if (workflowInfo().unsafe.isReplaying) patched(ONE_PAGE_EXPORT_JOBS_IN_ONE_LOCAL_ACTIVITY);
  return true;
}

/**
 * The export after the one-page try (`onePageTried`) failed: an activity that heartbeats, page by
 * page. Workflows started before that try existed replay their own one-page local activity first.
 */
async function exportContacts(jobId: string, onePageTried: boolean): Promise<ExportResult> {
  if (!onePageTried && patched(ONE_PAGE_EXPORTS_IN_THE_WORKFLOW_TASK)) {
    const onePage = await inTheWorkflowTask.exportContactsInOnePage(jobId);
    if (onePage) return onePage;
  }
  return work.exportContacts(jobId);
}

async function importContacts(args: JobWorkflowArgs, progress: JobProgress): Promise<ImportSummary> {
  progress.phase = 'importing';
  const total = await work.countImportRows(args.jobId);
  progress.total = total;
  let summary: ImportSummary = args.resume?.summary ?? {
    total,
    imported: 0,
    duplicates: 0,
    failed: 0,
    errors: [],
    errorsTruncated: false,
  };
  for (let offset = args.resume?.offset ?? 0; offset < total; offset += args.importBatchSize) {
    const before = (info: WorkflowInfo) =>
      info.historyLength > (args.continueAfterEvents ?? 5_000) || info.continueAsNewSuggested;
    if (shouldContinueAsNew(args.continueAfterEvents, before))
      await continueAsNew<JobWorkflow>({ ...args, resume: { offset, summary } });
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
