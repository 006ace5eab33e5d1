import type { Knex } from 'knex';
import { z } from 'zod';
import type { Db } from '../../db/knex';
import { notFound } from '../platform/errors';
import { newId } from '../platform/ids';
import { requireAgent } from './character';

const memoryContent = z.string().trim().min(1).max(4000).describe('The fact to remember, in a sentence or two');
const memoryTags = z.array(z.string().trim().min(1).max(50)).max(20).describe('Labels, e.g. ["client", "billing"]');
const memoryImportance = z
  .number()
  .int()
  .min(1)
  .max(5)
  .describe('1 (trivia) .. 5 (always relevant); the most important memories are loaded into every turn');

export const memoryCreateSchema = z.strictObject({
  content: memoryContent,
  tags: memoryTags.default([]),
  importance: memoryImportance.default(3),
});
export type MemoryCreate = z.infer<typeof memoryCreateSchema>;

/** What an update may change; without defaults, so a field left out stays as it is. */
export const memoryChangesSchema = z.strictObject({
  content: memoryContent.optional(),
  tags: memoryTags.optional(),
  importance: memoryImportance.optional(),
});
/** An update must change something. */
export const changesSomething = (fields: Record<string, unknown>, keys: string[]) =>
  keys.some((key) => fields[key] !== undefined);
export const memoryUpdateSchema = memoryChangesSchema.refine(
  (m) => changesSomething(m, ['content', 'tags', 'importance']),
  { message: 'give content, tags or importance' },
);
export type MemoryUpdate = z.infer<typeof memoryUpdateSchema>;

export const memorySearchQuerySchema = z.object({
  q: z.string().max(500).optional().describe('Words to look for; typos are tolerated. Empty: the top memories'),
  limit: z.coerce.number().int().min(1).max(50).default(10),
});
export type MemorySearch = z.infer<typeof memorySearchQuerySchema>;

export const memorySchema = z.object({
  id: z.string(),
  agentId: z.uuid(),
  content: z.string(),
  tags: z.array(z.string()),
  importance: z.number().int(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type MemoryJson = z.infer<typeof memorySchema>;

/** A search hit: `score` is the fused reciprocal rank (higher first); 0 when listed without a query. */
export const memoryHitSchema = memorySchema.extend({ score: z.number() });
export type MemoryHit = z.infer<typeof memoryHitSchema>;

interface MemoryRow {
  id: string;
  agent_id: string;
  content: string;
  tags: string[];
  importance: number;
  created_at: Date;
  updated_at: Date;
  score?: number;
}

const COLUMNS = ['id', 'agent_id', 'content', 'tags', 'importance', 'created_at', 'updated_at'];

const present = (row: MemoryRow): MemoryJson => ({
  id: row.id,
  agentId: row.agent_id,
  content: row.content,
  tags: row.tags,
  importance: row.importance,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

export async function createMemory(db: Db, teamId: string, agentId: string, input: MemoryCreate): Promise<MemoryJson> {
  await requireAgent(db, teamId, agentId);
  const [row] = await db('memories')
    .insert({ id: newId('mem'), team_id: teamId, agent_id: agentId, ...input })
    .returning(COLUMNS);
  return present(row);
}

export async function updateMemory(
  db: Db,
  teamId: string,
  agentId: string,
  memoryId: string,
  input: MemoryUpdate,
): Promise<MemoryJson> {
  await requireAgent(db, teamId, agentId);
  const changes = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
  const [row] = await db('memories')
    .where({ team_id: teamId, agent_id: agentId, id: memoryId })
    .update({ ...changes, updated_at: db.fn.now() })
    .returning(COLUMNS);
  if (!row) throw notFound('Memory');
  return present(row);
}

export async function deleteMemory(db: Db, teamId: string, agentId: string, memoryId: string): Promise<void> {
  await requireAgent(db, teamId, agentId);
  const deleted = await db('memories').where({ team_id: teamId, agent_id: agentId, id: memoryId }).delete();
  if (!deleted) throw notFound('Memory');
}

// ---- Search: full text and trigram similarity, fused by reciprocal rank ----

/** Reciprocal rank fusion's constant: a hit at rank r of one ranker adds 1 / (RRF_K + r). */
const RRF_K = 60;
/** Each ranker hands over at most this many candidates: fusion never ranks the whole table. */
const CANDIDATES = 50;
/** The trigram matches ranked by similarity: enough to hold the best, bounded whatever the table holds. */
const TRIGRAM_POOL = 200;

/**
 * Runs `query` with sequential scans off. The planner does not know that the trigram operator's
 * recheck (a word_similarity per row) is expensive, so at 100 000 memories it prefers a seq scan
 * that computes it for every row (over a second) to the GIN index (milliseconds). The setting is
 * local to the transaction (a savepoint when `db` is one) and put back afterwards.
 */
async function withoutSeqScan<T>(db: Db, query: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return db.transaction(async (trx) => {
    const { rows } = await trx.raw(
      "SELECT current_setting('enable_seqscan') AS previous, set_config('enable_seqscan', 'off', true)",
    );
    const result = await query(trx);
    await trx.raw("SELECT set_config('enable_seqscan', ?, true)", [rows[0].previous]);
    return result;
  });
}

/** Words too common to say anything (the 'simple' text-search config has no stop words of its own). */
const STOP_WORDS = new Set(
  (
    'a about after again all also am an and any are as at be been before being but by can could did do does ' +
    'done for from get got had has have he her here hers him his how i if in into is it its just know let like ' +
    'me more most my no not now of on one only or other our out please she should so some than that the their ' +
    'them then there these they this those to too up us very was we were what when where which while who why ' +
    'will with would yes you your'
  ).split(' '),
);

/**
 * The words of a text that can match (letters and digits, lowercased, without stop words),
 * longest first and distinct: safe to join into a tsquery, and what trigram matching compares.
 */
export function searchTerms(text: string, max: number, minLength = 2): string[] {
  const words = (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter(
    (w) => w.length >= minLength && !STOP_WORDS.has(w),
  );
  return [...new Set(words)].sort((x, y) => y.length - x.length).slice(0, max);
}

interface Rankers {
  /** Full text: a tsquery expression (SQL with its bindings). */
  fullText?: { sql: string; bindings: string[] };
  /** Full text over these words (all of them, or any), less those no memory holds (the trigram side's). */
  fullTextWords?: { words: string[]; match: 'all' | 'any' };
  /** Trigram: words a memory contains, typos and all (`content %> word` uses the trigram index). */
  fuzzyWords: string[];
  /** Words the query excludes (`-word`): the trigram side must not bring back what full text left out. */
  excludedWords?: string[];
  /** The agent's most important memories as a ranker of their own (what a turn always wants). */
  important: boolean;
}

/**
 * The fused ranking: each ranker orders its own candidates (full text by ts_rank_cd, trigram by
 * word similarity, importance by importance), ties broken by importance then recency; a memory's
 * score is the sum of 1 / (RRF_K + rank) over the rankers that found it.
 */
async function fusedSearch(db: Db, agentId: string, rankers: Rankers, limit: number): Promise<MemoryHit[]> {
  return withoutSeqScan(db, (trx) => fusedSearchIn(trx, agentId, rankers, limit));
}

/**
 * The words no memory of the agent holds exactly: what the trigram side is for (misspellings,
 * other forms). A word full text finds needs no trigram match, whose recheck (a word_similarity
 * over each candidate's content) is the dear part of a search.
 */
async function wordsFullTextMisses(db: Db, agentId: string, words: string[]): Promise<string[]> {
  if (!words.length) return [];
  const { rows } = await db.raw<{ rows: { w: string }[] }>(
    `SELECT w FROM unnest(?::text[]) AS w
     WHERE NOT EXISTS (SELECT 1 FROM memories WHERE agent_id = ? AND search @@ to_tsquery('simple', w))`,
    [words, agentId],
  );
  return rows.map((r) => r.w);
}

async function fusedSearchIn(db: Db, agentId: string, rankers: Rankers, limit: number): Promise<MemoryHit[]> {
  const fuzzyWords = await wordsFullTextMisses(db, agentId, rankers.fuzzyWords);
  const known = rankers.fullTextWords?.words.filter((w) => !fuzzyWords.includes(w)) ?? [];
  const fullText =
    rankers.fullText ??
    (known.length
      ? {
          sql: "to_tsquery('simple', ?)",
          bindings: [known.join(rankers.fullTextWords!.match === 'all' ? ' & ' : ' | ')],
        }
      : undefined);
  const ctes: string[] = [];
  const names: string[] = [];
  const bindings: (string | number)[] = [];
  const ranked = (name: string, inner: string, order: string) => {
    names.push(name);
    return `${name} AS (SELECT id, row_number() OVER (ORDER BY ${order}) AS r FROM (${inner}) ${name}_c)`;
  };
  if (fullText) {
    ctes.push(
      ranked(
        'fts',
        `SELECT id, importance, updated_at, ts_rank_cd(search, tsq) AS rank
         FROM memories, ${fullText.sql} tsq
         WHERE agent_id = ? AND search @@ tsq
         ORDER BY rank DESC, importance DESC, updated_at DESC LIMIT ${CANDIDATES}`,
        'rank DESC, importance DESC, updated_at DESC',
      ),
    );
    bindings.push(...fullText.bindings, agentId);
  }
  if (fuzzyWords.length) {
    const words = fuzzyWords;
    const excluded = rankers.excludedWords ?? [];
    ctes.push(
      ranked(
        'trgm',
        // Each trigram match costs a word_similarity over the whole content (about 15 µs), so the
        // pool is the first TRIGRAM_POOL matches the index yields, ranked among themselves.
        `SELECT id, importance, updated_at, ${words.map(() => 'word_similarity(?, content)').join(' + ')} AS sim
         FROM (
           SELECT id, importance, updated_at, content FROM memories
           WHERE agent_id = ? AND (${words.map(() => 'content %> ?').join(' OR ')})
             ${excluded.length ? "AND NOT search @@ to_tsquery('simple', ?)" : ''}
           LIMIT ${TRIGRAM_POOL}
         ) pool
         ORDER BY sim DESC, importance DESC, updated_at DESC LIMIT ${CANDIDATES}`,
        'sim DESC, importance DESC, updated_at DESC',
      ),
    );
    bindings.push(...words, agentId, ...words, ...(excluded.length ? [excluded.join(' | ')] : []));
  }
  if (rankers.important) {
    ctes.push(
      ranked(
        'imp',
        `SELECT id, importance, updated_at FROM memories WHERE agent_id = ?
         ORDER BY importance DESC, updated_at DESC LIMIT ${limit}`,
        'importance DESC, updated_at DESC',
      ),
    );
    bindings.push(agentId);
  }
  if (!ctes.length) return [];
  const { rows } = await db.raw<{ rows: MemoryRow[] }>(
    `WITH ${ctes.join(',\n')}
     SELECT ${COLUMNS.map((c) => `m.${c}`).join(', ')},
            ${names.map((n) => `coalesce(1.0::float8 / (${RRF_K} + ${n}.r), 0)`).join(' + ')} AS score
     FROM (${names.map((n) => `SELECT id FROM ${n}`).join(' UNION ')}) found
     JOIN memories m ON m.id = found.id
     ${names.map((n) => `LEFT JOIN ${n} ON ${n}.id = m.id`).join('\n')}
     ORDER BY score DESC, m.importance DESC, m.updated_at DESC
     LIMIT ?`,
    [...bindings, limit],
  );
  return rows.map((row) => ({ ...present(row), score: Number(row.score!.toFixed(6)) }));
}

/** The agent's memories by importance, then the most recently written: what an empty query lists. */
async function topByImportance(db: Db, agentId: string, limit: number): Promise<MemoryHit[]> {
  const rows: MemoryRow[] = await db('memories')
    .where({ agent_id: agentId })
    .orderBy([
      { column: 'importance', order: 'desc' },
      { column: 'updated_at', order: 'desc' },
    ])
    .limit(limit)
    .select(COLUMNS);
  return rows.map((row) => ({ ...present(row), score: 0 }));
}

/**
 * Searches an agent's memories: Postgres full text (`websearch_to_tsquery`, so "quoted phrases"
 * and -exclusions work) fused with trigram similarity of the query's longer words (so "kubernets"
 * finds "Kubernetes"). Without a query: the top memories by importance, then recency.
 */
export async function searchMemories(
  db: Db,
  teamId: string,
  agentId: string,
  { q, limit }: MemorySearch,
): Promise<{ data: MemoryHit[] }> {
  await requireAgent(db, teamId, agentId);
  const query = q?.trim() ?? '';
  if (!searchTerms(query, 1).length) return { data: await topByImportance(db, agentId, limit) };
  const exclusions = /(?:^|\s)-\S+/g;
  // Plain words must all match, except those no memory holds (misspelt: the trigram side looks for
  // them); quotes, -word or "or" are websearch_to_tsquery's syntax, taken as written.
  const syntax = /["]|(?:^|\s)-\S|\sor\s/i.test(query);
  const rankers: Rankers = {
    fullText: syntax ? { sql: "websearch_to_tsquery('simple', ?)", bindings: [query] } : undefined,
    fullTextWords: { words: searchTerms(query, 16), match: 'all' },
    fuzzyWords: searchTerms(query.replace(exclusions, ' '), 4, 4),
    excludedWords: searchTerms((query.match(exclusions) ?? []).join(' '), 16, 1),
    important: false,
  };
  return { data: await fusedSearch(db, agentId, rankers, limit) };
}

/**
 * For a turn: the memories worth loading for `text` (the incoming message). A message is not a
 * query, so full text matches any of its words (ranked by how many and how close), trigram
 * matching takes its longer words, and the agent's most important memories rank as a third list:
 * a turn sees what bears on the message and what always matters.
 */
export async function topMemories(db: Db, agentId: string, text: string, limit: number): Promise<MemoryHit[]> {
  const words = searchTerms(text, 16);
  return fusedSearch(
    db,
    agentId,
    {
      fullTextWords: { words, match: 'any' },
      fuzzyWords: searchTerms(text, 4, 5),
      important: true,
    },
    limit,
  );
}
