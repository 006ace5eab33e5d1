import { defineQuery } from '@temporalio/workflow';
import type { ErrorBody } from './errorBody';
import type { JobProgress } from './schemas';
import type { WorkflowStart } from './start';

/** The contract of `job-<jobId>`: what the API starts and queries, and what the worker's activities implement. */

export const jobWorkflowName = 'jobWorkflow';

/** The job types the workflow runs; services/jobs/jobTypes.ts registers one schema per name. */
export const jobTypeNames = ['contacts.import', 'contacts.export', 'knowledge.ingest', 'warp.run'] as const;
export type JobType = (typeof jobTypeNames)[number];

export interface ImportRowError {
  /** 0-based position of the row in the job's rows (for CSV: data rows, header excluded). */
  index: number;
  /** The field at fault, when one is (e.g. `email`, `marketingConsent`, `consentAt`). */
  field?: string;
  message: string;
}

export interface ImportSummary {
  total: number;
  imported: number;
  duplicates: number;
  failed: number;
  errors: ImportRowError[];
  errorsTruncated: boolean;
}

/** Arguments of `job-<jobId>`; the input itself stays in Postgres so that history stays small. */
export interface JobWorkflowArgs {
  jobId: string;
  type: JobType;
  importBatchSize: number;
  /** History length after which an import continues as new (default: the one limit in workflows/continueAsNew.ts; tests use less). */
  continueAfterEvents?: number;
  /** Set when an import continues as new: where it stopped and what it counted so far. */
  resume?: { offset: number; summary: ImportSummary };
  /**
   * An export tries the whole job as one local activity first. The API sets it on every export it
   * starts, so those runs take that path without a patch marker: `patched()` records one, and with
   * it a `TemporalChangeVersion` search-attribute upsert, a second visibility write per job. Runs
   * started without it (before it existed) decide by their history's marker, as they always did.
   */
  onePageExportFirst?: boolean;
}

export type JobResult = Record<string, unknown>;
export type JobWorkflow = (args: JobWorkflowArgs) => Promise<JobResult>;

export const jobWorkflowId = (jobId: string) => `job-${jobId}`;

export const jobStart = {
  name: jobWorkflowName,
  id: (args) => jobWorkflowId(args.jobId),
  searchAttributes: (args) => ({ JobType: args.type, BusinessId: args.jobId }),
} as const satisfies WorkflowStart<JobWorkflow>;

export type { JobProgress };
export const progress = defineQuery<JobProgress>('progress');

/** A job's `error` is the spec's Error resource. */
export type JobError = ErrorBody;

export interface ExportResult {
  mediaId: string;
  filename: string;
  contentType: string;
  rowCount: number;
  bytes: number;
}

export interface IngestResult {
  documentId: string;
  agentId: string;
  title: string;
  chunkCount: number;
  charCount: number;
}

export interface JobActivities {
  markJobRunning(jobId: string): Promise<void>;
  completeJob(jobId: string, result: JobResult): Promise<void>;
  failJob(jobId: string, error: JobError): Promise<void>;
  countImportRows(jobId: string): Promise<number>;
  /** Rows [offset, offset+limit), idempotent per row: a retried batch reports the same counts. */
  importContactsBatch(args: { jobId: string; offset: number; limit: number }): Promise<Omit<ImportSummary, 'total'>>;
  exportContacts(jobId: string): Promise<ExportResult>;
  /**
   * The export, if the contacts fit in one page (5 000); else null, with nothing written. Only
   * workflows started before `exportJobInOnePage` call it; it stays registered for them.
   */
  exportContactsInOnePage(jobId: string): Promise<ExportResult | null>;
  /**
   * A whole `contacts.export` job whose contacts fit in one page: marked running, written and
   * settled `succeeded` in one go; else null, with the job marked running and no file written.
   */
  exportJobInOnePage(jobId: string): Promise<ExportResult | null>;
  ingestKnowledge(jobId: string): Promise<IngestResult>;
}

/** `warp.run`: the named warp, run as `execute` runs it (services/warps/activities.ts). */
export interface WarpJobActivities {
  runWarpJob(jobId: string): Promise<JobResult>;
}
