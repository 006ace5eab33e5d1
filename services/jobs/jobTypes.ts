import { parse as parseCsv } from 'csv-parse/sync';
import { z } from 'zod';
import type { Db } from '../../db/knex';
import { findAgent } from '../agents/agents';
import { AppError, parseOrThrow } from '../platform/errors';
import { prepareWarpRun, warpRunInputSchema, type WarpRunInput } from '../warps/warpJob';

export const MAX_IMPORT_ROWS = 1_000_000;

const importInputSchema = z
  .object({
    rows: z
      .array(z.record(z.string(), z.unknown()))
      .min(1)
      .max(MAX_IMPORT_ROWS)
      .optional()
      .describe('Contact objects (name, email, phone, company, title, location, tags, properties, consent)'),
    csv: z
      .string()
      .min(1)
      .optional()
      .describe('CSV text with a header row naming the same fields; other columns become custom properties'),
  })
  .strict()
  .refine((i) => (i.rows === undefined) !== (i.csv === undefined), { message: 'give exactly one of rows or csv' });

const exportInputSchema = z
  .object({
    tags: z
      .array(z.string().min(1))
      .min(1)
      .max(100)
      .optional()
      .describe('Only contacts having any of these tags; omitted: every contact'),
  })
  .strict();

const ingestFieldsSchema = z
  .object({
    agentId: z.uuid(),
    title: z.string().trim().min(1).max(200),
    text: z.string().min(1).max(5_000_000),
    chunkSize: z.number().int().min(200).max(8000).default(1200),
    chunkOverlap: z.number().int().min(0).max(1000).default(150),
  })
  .strict();
const overlapBelowChunk = (i: { chunkSize: number; chunkOverlap: number }) => i.chunkOverlap < i.chunkSize;
const overlapMessage = { message: 'chunkOverlap must be smaller than chunkSize', path: ['chunkOverlap'] };
const ingestInputSchema = ingestFieldsSchema.refine(overlapBelowChunk, overlapMessage);
/** `ingest_knowledge` over MCP: the agent defaults to the connected one. */
export const ingestRequestSchema = ingestFieldsSchema
  .partial({ agentId: true })
  .refine(overlapBelowChunk, overlapMessage);

export type ExportInput = z.infer<typeof exportInputSchema>;
export type IngestInput = z.infer<typeof ingestInputSchema>;

/** What is stored for a job's activities: its input, and rows kept apart in batch-sized slices. */
export interface PreparedJobInput {
  input: Record<string, unknown>;
  rows?: Record<string, unknown>[];
}

interface JobTypeDefinition {
  description: string;
  schema: z.ZodType;
  /** Checks that need the database and turns the input into what is stored for the activities. */
  prepare(db: Db, teamId: string, input: unknown): Promise<PreparedJobInput>;
}

function parseCsvRows(csv: string): Record<string, unknown>[] {
  try {
    return parseCsv(csv, {
      columns: (header: string[]) => header.map((h) => h.trim()),
      skip_empty_lines: true,
      trim: true,
      bom: true,
    });
  } catch (err) {
    throw new AppError('validation_error', `Invalid input: csv could not be parsed: ${(err as Error).message}`, {
      issues: [{ path: 'input.csv', message: (err as Error).message, code: 'custom' }],
    });
  }
}

/** The registry of job types: `POST /v1/jobs` accepts exactly these. */
export const jobTypes = {
  'contacts.import': {
    description: 'Import contacts from rows or CSV; dedupes by email; per-row errors in the result.',
    schema: importInputSchema,
    async prepare(_db, _teamId, input) {
      const parsed = input as z.infer<typeof importInputSchema>;
      const rows = parsed.rows ?? parseCsvRows(parsed.csv!);
      if (rows.length === 0) throw new AppError('validation_error', 'Invalid input: the csv has no data rows');
      if (rows.length > MAX_IMPORT_ROWS) {
        throw new AppError('validation_error', `Invalid input: at most ${MAX_IMPORT_ROWS} rows per import`);
      }
      return { input: { rowCount: rows.length, source: parsed.csv !== undefined ? 'csv' : 'rows' }, rows };
    },
  },
  'contacts.export': {
    description: "Export the team's contacts (optionally by tags) as a CSV file in team media.",
    schema: exportInputSchema,
    async prepare(_db, _teamId, input) {
      return { input: input as ExportInput };
    },
  },
  'knowledge.ingest': {
    description: "Chunk a text into an agent's knowledge.",
    schema: ingestInputSchema,
    async prepare(db, teamId, input) {
      const parsed = input as IngestInput;
      if (!(await findAgent(db, teamId, parsed.agentId))) {
        throw new AppError('not_found', `Agent ${parsed.agentId} not found`);
      }
      return { input: parsed };
    },
  },
  'warp.run': {
    description: 'Run a named warp (built-in or private) for an agent; the result is what execute answers.',
    schema: warpRunInputSchema,
    async prepare(db, teamId, input) {
      return { input: await prepareWarpRun(db, teamId, input as WarpRunInput) };
    },
  },
} satisfies Record<string, JobTypeDefinition>;

export type JobType = keyof typeof jobTypes;
export const jobTypeNames = Object.keys(jobTypes) as JobType[];

export function isJobType(type: string): type is JobType {
  return Object.prototype.hasOwnProperty.call(jobTypes, type);
}

/** A job type's name is one of the registry's, else 400 `validation_error` listing them (`details.knownTypes`). */
export function requireJobType(type: string): asserts type is JobType {
  if (!isJobType(type)) {
    throw new AppError('validation_error', `Unknown job type "${type}"; known types: ${jobTypeNames.join(', ')}`, {
      issues: [{ path: 'type', message: 'unknown job type', code: 'invalid_value' }],
      knownTypes: jobTypeNames,
    });
  }
}

/**
 * The body of `POST /v1/jobs`: one variant per job type, `type` its literal and `input` its schema
 * (required when the type needs some), so the route validates by the schema OpenAPI documents as a
 * oneOf with a discriminator on `type`. Each variant is a component (`ContactsImportJob`, …).
 */
export const jobRequestSchema = z.discriminatedUnion(
  'type',
  jobTypeNames.map((type) => {
    const definition: JobTypeDefinition = jobTypes[type];
    const input = definition.schema.safeParse({}).success ? definition.schema.optional() : definition.schema;
    const id = `${type.replace(/(^|\.)([a-z])/g, (_m, _dot, c: string) => c.toUpperCase())}Job`;
    return z
      .object({ type: z.literal(type), input: input.describe(`The input of a ${type} job`) })
      .meta({ id, description: definition.description });
  }) as [JobRequestVariant, ...JobRequestVariant[]],
);
type JobRequestVariant = z.ZodObject<{ type: z.ZodLiteral<JobType>; input: z.ZodType }>;

/** Validates a job's type and input, returning what is stored for the workflow's activities. */
export async function prepareJobInput(db: Db, teamId: string, type: string, input: unknown): Promise<PreparedJobInput> {
  requireJobType(type);
  const definition: JobTypeDefinition = jobTypes[type];
  const parsed = parseOrThrow(definition.schema, input ?? {}, `input for ${type}`);
  return definition.prepare(db, teamId, parsed);
}
