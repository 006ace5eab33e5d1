import { once } from 'node:events';
import { stringify } from 'csv-stringify/sync';
import type { Db } from '../../db/knex';
import { runStatement, statement, statementOf, type SqlPart } from '../../db/statement';
import type { ExportInput } from '../jobs/jobTypes';
import type { MediaStorage } from '../media/storage';
import type { ExportResult } from '../../workflows/contracts/job';
import type { ContactRow } from './contacts';

/**
 * A `contacts.export` job's file (the job's activities: services/jobs/activities.ts): the team's
 * contacts as CSV in team media, read a page at a time in `seq` order.
 */

export const EXPORT_PAGE_SIZE = 5_000;
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

// Two texts (with tags or without), each prepared once per connection: planning this page cost
// Postgres more than reading it. The columns are named, so that a column a migration adds to
// contacts does not change what the prepared statement returns.
const PAGE_COLUMNS = EXPORTED_CONTACT_COLUMNS.join(', ');
const pageAfterSeq = statement<ExportedContact>(
  `SELECT ${PAGE_COLUMNS} FROM contacts WHERE team_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
);
const taggedPageAfter = statement<ExportedContact>(
  `SELECT ${PAGE_COLUMNS} FROM contacts WHERE team_id = ? AND seq > ? AND tags && ?::text[] ORDER BY seq LIMIT ?`,
);

/** Tags are written `;`-separated, times in ISO 8601. */
const csvCell = (value: ExportedContact[keyof ExportedContact]) =>
  Array.isArray(value) ? value.join(';') : value instanceof Date ? value.toISOString() : value;
const csvRow = (contact: ExportedContact) => CSV_CONTACT_COLUMNS.map((column) => csvCell(contact[column]));

/** The job an export writes for: its team and its input. */
export interface ExportJob {
  id: string;
  team_id: string;
  input: Record<string, unknown>;
}

/** The export's media row, to record once the file is written. */
export interface ExportFile {
  id: string;
  team_id: string;
  filename: string;
  content_type: string;
  size_bytes: number;
  storage_key: string;
}

/**
 * Writes the job's CSV to storage and answers its result and the media row to record.
 * `onePageOnly`: give up (null) before writing anything when the contacts do not fit in one page.
 */
export async function writeContactsCsv(
  db: Db,
  storage: MediaStorage,
  job: ExportJob,
  onePageOnly: boolean,
  heartbeat: (details: unknown) => void,
): Promise<{ result: ExportResult; file: ExportFile } | null> {
  const input = job.input as ExportInput;
  const pageAfter = (after: number, limit: number): Promise<ExportedContact[]> =>
    input.tags
      ? runStatement(db, taggedPageAfter, [job.team_id, after, input.tags, limit])
      : runStatement(db, pageAfterSeq, [job.team_id, after, limit]);
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

/**
 * The export's file, as a row of team media, to run alone (`runStatement(db, statementOf(…))`) or
 * with the job's settlement; its id is derived from the job, so a retry overwrites.
 */
export const recordExportFile = (file: ExportFile): SqlPart => ({
  sql: `INSERT INTO media (id, team_id, filename, content_type, size_bytes, storage_key) VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT (id) DO UPDATE SET filename = excluded.filename, size_bytes = excluded.size_bytes`,
  values: [file.id, file.team_id, file.filename, file.content_type, file.size_bytes, file.storage_key],
});

/** Records the export's file on its own (an export that ran as an activity of its own). */
export async function storeExportFile(db: Db, file: ExportFile): Promise<void> {
  const part = recordExportFile(file);
  await runStatement(db, statementOf(part.sql), part.values);
}
