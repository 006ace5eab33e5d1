import { once } from 'node:events';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { stringify } from 'csv-stringify/sync';
import { preparedOnce, type Db } from '../db/knex';
import { ImportConsentGrant, normalizeImportRow, writeImportBatch } from '../services/contacts/contactImport';
import { consentTime, contactRowValues, ContactRow } from '../services/contacts/contacts';
import { markJobRunning, markJobRunningAndRead, settleJob } from '../services/jobs/jobs';
import type { ExportInput, IngestInput } from '../services/jobs/jobTypes';
import { newId } from '../services/platform/ids';
import { chunkText } from '../services/agents/knowledge';
import type { MediaStorage } from '../services/media/storage';
import type {
  ExportResult,
  ImportRowError,
  ImportSummary,
  JobActivities,
  JobError,
  JobResult,
} from '../workflows/contracts/job';

export interface JobActivityDeps {
  db: Db;
  storage: MediaStorage;
}

const MAX_ERRORS_PER_BATCH = 200;
const EXPORT_PAGE_SIZE = 5_000;
/** The export's CSV columns, as the contacts table names them; the header is their camelCase. */
const CSV_CONTACT_COLUMNS = [
  'id',
  'name',
  'first_name',
  'last_name',
  'email',
  'phone',
  'company',
  'title',
  'location',
  'tags',
  'marketing_consent',
  'consent_source',
  'consent_at',
  'created_at',
] as const satisfies readonly (keyof ContactRow)[];
const CSV_HEADER = CSV_CONTACT_COLUMNS.map((column) =>
  column.replace(/_(\w)/g, (_, letter: string) => letter.toUpperCase()),
);

/** What an export reads of a contact: its CSV's columns, and `seq` for the next page. */
const EXPORTED_CONTACT_COLUMNS = ['seq', ...CSV_CONTACT_COLUMNS] as const;
type ExportedContact = Pick<ContactRow, (typeof EXPORTED_CONTACT_COLUMNS)[number]>;

/** Tags are written `;`-separated, times in ISO 8601. */
const csvCell = (value: ExportedContact[keyof ExportedContact]) =>
  Array.isArray(value) ? value.join(';') : value instanceof Date ? value.toISOString() : value;
const csvRow = (contact: ExportedContact) => CSV_CONTACT_COLUMNS.map((column) => csvCell(contact[column]));

function heartbeat(details?: unknown): void {
  // Outside a worker (plain function calls in scripts) there is no activity context.
  try {
    Context.current().heartbeat(details);
  } catch {
    /* not running as an activity */
  }
}

export function createJobActivities({ db, storage }: JobActivityDeps) {
  type JobRow = { id: string; team_id: string; type: string; input: Record<string, unknown> };
  const missingJob = (jobId: string) =>
    ApplicationFailure.nonRetryable(`Job ${jobId} does not exist`, 'InvalidJobInput');

  async function loadJob(jobId: string): Promise<JobRow> {
    const job = await db('jobs').where({ id: jobId }).first('id', 'team_id', 'type', 'input');
    if (!job) throw missingJob(jobId);
    return job as JobRow;
  }

  /** The export's file, as a row of team media; its id is derived from the job, so a retry overwrites. */
  const recordExportFile = (file: Record<string, unknown>) =>
    db('media').insert(file).onConflict('id').merge(['filename', 'size_bytes']);

  /**
   * Writes the job's CSV to storage and answers its result and the media row to record.
   * `onePageOnly`: give up (null) before writing anything when the contacts do not fit in one page.
   */
  async function writeContactsCsv(job: JobRow, onePageOnly: boolean) {
    const input = job.input as ExportInput;
    // Two texts (with tags or without), prepared once per connection: planning this page cost
    // Postgres more than reading it. The columns are named, so that a column a migration adds to
    // contacts does not change what the prepared statement returns.
    const pageAfter = (after: number, limit: number): Promise<ExportedContact[]> =>
      preparedOnce(
        db('contacts')
          .where({ team_id: job.team_id })
          .where('seq', '>', after)
          .modify((q) => {
            if (input.tags) q.whereRaw('tags && ?::text[]', [input.tags]);
          })
          .orderBy('seq')
          .limit(limit)
          .select(EXPORTED_CONTACT_COLUMNS),
      );
    // One row more than a page tells whether the contacts fit in it.
    let page = await pageAfter(0, onePageOnly ? EXPORT_PAGE_SIZE + 1 : EXPORT_PAGE_SIZE);
    if (onePageOnly && page.length > EXPORT_PAGE_SIZE) return null;
    const mediaId = `med_${job.id.slice(4)}`;
    const filename = `contacts-${new Date().toISOString().slice(0, 10)}-${job.id}.csv`;
    const storageKey = `${job.team_id}/${mediaId}.csv`;
    const out = storage.createWriteStream(storageKey);
    let bytes = 0;
    const write = async (text: string) => {
      bytes += Buffer.byteLength(text);
      if (!out.write(text)) await once(out, 'drain');
    };
    await write(stringify([CSV_HEADER]));
    let rowCount = 0;
    for (;;) {
      await write(stringify(page.map(csvRow)));
      rowCount += page.length;
      heartbeat({ rowCount });
      // A short page is the last one.
      if (page.length < EXPORT_PAGE_SIZE) break;
      page = await pageAfter(page[page.length - 1].seq, EXPORT_PAGE_SIZE);
    }
    out.end();
    await once(out, 'finish');
    const result: ExportResult = { mediaId, filename, contentType: 'text/csv', rowCount, bytes };
    const file = {
      id: mediaId,
      team_id: job.team_id,
      filename,
      content_type: 'text/csv',
      size_bytes: bytes,
      storage_key: storageKey,
    };
    return { result, file };
  }

  async function exportContactsCsv(jobId: string, onePageOnly: boolean): Promise<ExportResult | null> {
    const written = await writeContactsCsv(await loadJob(jobId), onePageOnly);
    if (!written) return null;
    await recordExportFile(written.file);
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

    /**
     * Imports rows [offset, offset+limit) — one stored slice (`limit` is the slice size the job was
     * created with) — in one transaction with their contact.created / contact.updated events. Each
     * contact records its job and row, so a batch that runs again after a crash inserts nothing
     * twice, records no event twice and reports the same counts.
     */
    async importContactsBatch(args: {
      jobId: string;
      offset: number;
      limit: number;
    }): Promise<Omit<ImportSummary, 'total'>> {
      const { jobId, offset, limit } = args;
      heartbeat({ offset });
      const { team_id: teamId } = await loadJob(jobId);
      const slice = await db('job_input_chunks')
        .where({ job_id: jobId, position: Math.floor(offset / limit) })
        .first('rows');
      const rows = ((slice?.rows ?? []) as unknown[]).map((row, i) => ({ idx: offset + i, row }));

      const errors: ImportRowError[] = [];
      let failed = 0;
      const values: Record<string, unknown>[] = [];
      /** Lower-cased email → the first granted consent for it in this batch. */
      const grants = new Map<string, ImportConsentGrant>();
      for (const { idx, row } of rows as { idx: number; row: unknown }[]) {
        const outcome =
          row && typeof row === 'object' && !Array.isArray(row)
            ? normalizeImportRow(row as Record<string, unknown>)
            : { ok: false as const, message: 'a row must be an object' };
        if (!outcome.ok) {
          failed++;
          if (errors.length < MAX_ERRORS_PER_BATCH)
            errors.push({ index: idx, ...(outcome.field ? { field: outcome.field } : {}), message: outcome.message });
          continue;
        }
        const { email, marketingConsent, consentSource, consentAt } = outcome.fields;
        if (email && marketingConsent === 'granted' && !grants.has(email.toLowerCase())) {
          grants.set(email.toLowerCase(), {
            email,
            source: consentSource ?? null,
            at: consentTime(consentAt).toISOString(),
            // As PATCH reports it: the consent fields the row named.
            changed: [
              'marketingConsent',
              ...(consentSource ? ['consentSource'] : []),
              ...(consentAt ? ['consentAt'] : []),
            ],
          });
        }
        values.push({
          id: newId('ct'),
          team_id: teamId,
          import_job_id: jobId,
          import_row: idx,
          ...contactRowValues(outcome.fields, outcome.extra),
        });
      }
      // The new contacts, the consent granted to existing ones, and their events, in one commit.
      await writeImportBatch(db, { teamId, jobId, values, grants: [...grants.values()] });
      heartbeat({ offset: offset + rows.length });

      const [{ count }] = await db('contacts')
        .where({ import_job_id: jobId })
        .whereBetween('import_row', [offset, offset + limit - 1])
        .count({ count: '*' });
      const imported = Number(count);
      return {
        imported,
        duplicates: values.length - imported,
        failed,
        errors,
        errorsTruncated: failed > errors.length,
      };
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
      const written = await writeContactsCsv(job, true);
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
      const input = job.input as IngestInput;
      const agent = await db('agents').where({ id: input.agentId, team_id: job.team_id }).first('id');
      if (!agent) throw ApplicationFailure.nonRetryable(`Agent ${input.agentId} no longer exists`, 'InvalidJobInput');
      const chunks = chunkText(input.text, input.chunkSize, input.chunkOverlap);
      const documentId = `kd_${jobId.slice(4)}`;
      await db.transaction(async (trx) => {
        const inserted = await trx('knowledge_documents')
          .insert({
            id: documentId,
            team_id: job.team_id,
            agent_id: input.agentId,
            job_id: jobId,
            title: input.title,
            char_count: input.text.length,
            chunk_count: chunks.length,
          })
          .onConflict('id')
          .ignore()
          .returning('id');
        if (inserted.length === 0) return;
        for (let start = 0; start < chunks.length; start += 1000) {
          await trx('knowledge_chunks').insert(
            chunks
              .slice(start, start + 1000)
              .map((content, i) => ({ document_id: documentId, position: start + i, content })),
          );
          heartbeat({ chunks: start });
        }
      });
      return {
        documentId,
        agentId: input.agentId,
        title: input.title,
        chunkCount: chunks.length,
        charCount: input.text.length,
      };
    },
  } satisfies JobActivities;
}
