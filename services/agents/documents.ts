import { z } from 'zod';
import type { Db } from '../../db/knex';
import { createJob } from '../jobs/jobs';
import type { AppContext, TeamRef } from '../platform/context';
import { keysetPage, Page, PageQuery } from '../platform/pagination';
import { requireAgent } from './character';
import { searchTerms } from './memorySearch';

/** A knowledge document: a title and its text, chunked by the `knowledge.ingest` job. */
export const documentCreateSchema = z.strictObject({
  title: z.string().trim().min(1).max(200).describe('What the document is, e.g. "Price list 2026"'),
  text: z
    .string()
    .min(1)
    .max(5_000_000)
    .describe('The full text; it is split into chunks that turns retrieve by the words of a message'),
});
export type DocumentCreate = z.infer<typeof documentCreateSchema>;

export const documentSchema = z.object({
  id: z.string(),
  agentId: z.uuid(),
  title: z.string(),
  charCount: z.number().int(),
  chunkCount: z.number().int(),
  /** The ingestion job that wrote it. */
  jobId: z.string().nullable(),
  createdAt: z.iso.datetime(),
});
export type DocumentJson = z.infer<typeof documentSchema>;

interface DocumentRow {
  seq: number;
  id: string;
  agent_id: string;
  title: string;
  char_count: number;
  chunk_count: number;
  job_id: string | null;
  created_at: Date;
}

const present = (row: DocumentRow): DocumentJson => ({
  id: row.id,
  agentId: row.agent_id,
  title: row.title,
  charCount: row.char_count,
  chunkCount: row.chunk_count,
  jobId: row.job_id,
  createdAt: row.created_at.toISOString(),
});

/** The agent's knowledge documents, newest first, each with how many chunks it was split into. */
export async function listDocuments(
  db: Db,
  teamId: string,
  agentId: string,
  page: PageQuery,
): Promise<Page<DocumentJson>> {
  await requireAgent(db, teamId, agentId);
  return keysetPage(
    db('knowledge_documents').where({ team_id: teamId, agent_id: agentId }).select('*'),
    page,
    present,
    { newestFirst: true },
  );
}

/**
 * Adds a document to the agent's knowledge: the existing `knowledge.ingest` job (the one
 * `ingest_knowledge` starts), so chunking runs in the background and a retry adds nothing twice.
 * Answers the job; the document is listed once the job has run.
 */
export async function createDocument(
  ctx: AppContext,
  team: TeamRef,
  userId: string | null,
  agentId: string,
  input: DocumentCreate,
  idempotencyKey?: string,
) {
  await requireAgent(ctx.db, team.id, agentId);
  return createJob(ctx, team, userId, { type: 'knowledge.ingest', input: { agentId, ...input } }, idempotencyKey);
}

export interface KnowledgeChunk {
  documentId: string;
  title: string;
  position: number;
  content: string;
  score: number;
}

/**
 * For a turn: the chunks of the agent's documents that bear on `text` (the incoming message),
 * best first: full text over the chunks' `search` column (GIN), any of the message's words,
 * ranked by ts_rank_cd (how many, how close); each with its document's title to cite.
 */
export async function knowledgeChunks(db: Db, agentId: string, text: string, limit: number): Promise<KnowledgeChunk[]> {
  const words = searchTerms(text, 16);
  if (!words.length) return [];
  const { rows } = await db.raw(
    `SELECT c.document_id, d.title, c.position, c.content, ts_rank_cd(c.search, q) AS rank
     FROM knowledge_chunks c
     JOIN knowledge_documents d ON d.id = c.document_id,
          to_tsquery('simple', ?) q
     WHERE d.agent_id = ? AND c.search @@ q
     ORDER BY rank DESC, d.seq DESC, c.position
     LIMIT ?`,
    [words.join(' | '), agentId, limit],
  );
  return rows.map((r: { document_id: string; title: string; position: number; content: string; rank: number }) => ({
    documentId: r.document_id,
    title: r.title,
    position: r.position,
    content: r.content,
    score: Number(r.rank.toFixed(6)),
  }));
}
