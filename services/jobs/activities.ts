import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Db } from '../../db/knex';
import { ingestJobKnowledge } from '../agents/knowledgeIngest';
import { recordExportFile, storeExportFile, writeContactsCsv } from '../contacts/contactExport';
import { importJobSlice } from '../contacts/contactImport';
import type { MediaStorage } from '../media/storage';
import type { ExportResult, JobActivities, JobError, JobResult } from '../../workflows/contracts/job';
import { findJobRow, markJobRunning, markJobRunningAndRead, settleJob, type JobWorkRow } from './jobs';

/** The activities of `job-<id>` (workflows/job.ts): each a call into the job's service. */

export interface JobActivityDeps {
  db: Db;
  storage: MediaStorage;
}

function heartbeat(details?: unknown): void {
  // Outside a worker (plain function calls in scripts) there is no activity context.
  try {
    Context.current().heartbeat(details);
  } catch {
    /* not running as an activity */
  }
}

const missingJob = (jobId: string) => ApplicationFailure.nonRetryable(`Job ${jobId} does not exist`, 'InvalidJobInput');

export function createJobActivities({ db, storage }: JobActivityDeps) {
  async function loadJob(jobId: string): Promise<JobWorkRow> {
    const job = await findJobRow(db, jobId);
    if (!job) throw missingJob(jobId);
    return job;
  }

  async function exportContactsCsv(jobId: string, onePageOnly: boolean): Promise<ExportResult | null> {
    const written = await writeContactsCsv(db, storage, await loadJob(jobId), onePageOnly, heartbeat);
    if (!written) return null;
    await storeExportFile(db, written.file);
    return written.result;
  }

  return {
    async markJobRunning(jobId: string): Promise<void> {
      await markJobRunning(db, jobId);
    },

    async completeJob(jobId: string, result: JobResult): Promise<void> {
      await settleJob(db, jobId, { status: 'succeeded', result });
    },

    async failJob(jobId: string, error: JobError): Promise<void> {
      await settleJob(db, jobId, { status: 'failed', error });
    },

    async countImportRows(jobId: string): Promise<number> {
      const job = await loadJob(jobId);
      return Number(job.input.rowCount ?? 0);
    },

    /** Rows [offset, offset+limit) with their events, idempotent per row (services/contacts/contactImport.ts). */
    async importContactsBatch({ jobId, offset, limit }: { jobId: string; offset: number; limit: number }) {
      heartbeat({ offset });
      const { team_id: teamId } = await loadJob(jobId);
      return importJobSlice(db, { jobId, teamId, offset, limit }, heartbeat);
    },

    /** Writes the team's contacts as CSV into team media; the media id is derived from the job, so a retry overwrites. */
    async exportContacts(jobId: string): Promise<ExportResult> {
      return (await exportContactsCsv(jobId, false))!;
    },

    /** The same export, done only if the contacts fit in one page (else null, and nothing is written). */
    async exportContactsInOnePage(jobId: string): Promise<ExportResult | null> {
      return exportContactsCsv(jobId, true);
    },

    /**
     * The whole job when its contacts fit in one page: three statements, the first marking it
     * running, the last recording its file and settling it together.
     */
    async exportJobInOnePage(jobId: string): Promise<ExportResult | null> {
      const job = await markJobRunningAndRead(db, jobId);
      if (!job) throw missingJob(jobId);
      const written = await writeContactsCsv(db, storage, job, true, heartbeat);
      if (!written) return null;
      await settleJob(
        db,
        jobId,
        { status: 'succeeded', result: { ...written.result } },
        recordExportFile(written.file),
      );
      return written.result;
    },

    /** Chunks the job's text into the agent's knowledge; one document per job, so a retry adds nothing. */
    async ingestKnowledge(jobId: string) {
      const job = await loadJob(jobId);
      const ingested = await ingestJobKnowledge(db, job, heartbeat);
      if (!ingested)
        throw ApplicationFailure.nonRetryable(
          `Agent ${(job.input as { agentId?: string }).agentId} no longer exists`,
          'InvalidJobInput',
        );
      return ingested;
    },
  } satisfies JobActivities;
}
