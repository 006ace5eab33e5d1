import type { Db } from '../../db/knex';
import { offsetPage, Page, pageOffset } from '../platform/pagination';
import { requireAgent } from './character';
import { COLUMNS, present, type MemoryHit, type MemoryRow, type MemorySearch } from './memories';

// ---- Search: full text and misspellings corrected against the vocabulary, fused by reciprocal rank ----

/** Reciprocal rank fusion's constant: a hit at rank r of one ranker adds 1 / (RRF_K + r). */
const RRF_K = 60;
/** Each ranker hands over at most this many candidates: fusion never ranks the whole table. */
const CANDIDATES = 50;
/**
 * Each ranker scores at most this many matches (the most important, then the most recent, of
 * those its words find), so a common word costs a bounded amount of ranking whatever the table holds.
 */
const POOL = 300;
/** A misspelt word stands for at most this many vocabulary words (the most similar). */
const CORRECTIONS = 3;

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
 * longest first and distinct: safe to join into a tsquery, and what the vocabulary is looked up by.
 */
export function searchTerms(text: string, max: number, minLength = 2): string[] {
  const words = (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter(
    (w) => w.length >= minLength && !STOP_WORDS.has(w),
  );
  return [...new Set(words)].sort((x, y) => y.length - x.length).slice(0, max);
}

/** A vocabulary word standing in for a misspelt query word, with how close it is (0..1). */
interface Correction {
  /** The misspelt word's position among the query's misspelt words. */
  of: number;
  word: string;
  similarity: number;
}

interface QueryWords {
  /**
   * The query's words for full text, rarest first, with how many memories hold each: 0 for a number
   * (not in the vocabulary), -1 for a short word no memory holds (kept as typed).
   */
  known: { word: string; count: number }[];
  /** Words no memory holds, left out of full text: misspelt or another form of a word. */
  misspelt: string[];
  corrections: Correction[];
}

const hasLetter = (word: string) => /\p{L}/u.test(word);

/** Optimal string alignment distance: letters inserted, dropped, changed or two swapped. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.length][b.length];
}

/** Vocabulary words looked at per misspelt word: its nearest by trigram distance. */
const NEAREST = 10;

/**
 * How close a vocabulary word is to a misspelt one (0: not a correction). A correction is similar
 * by trigrams (similarity ≥ 0.3, pg_trgm's default), holds the word (word_similarity ≥ 0.6:
 * `deploy` in "deployment"), or is one typo away (two for words of 8 letters or more), which
 * trigrams alone miss in short words ("lselie" shares 3 of 7 trigrams with "leslie").
 */
function closeness(typed: string, word: string, similarity: number, wordSimilarity: number): number {
  const distance = editDistance(typed, word);
  const typos = distance <= (typed.length >= 8 ? 2 : 1);
  if (similarity < 0.3 && wordSimilarity < 0.6 && !typos) return 0;
  return Math.max(similarity, typos ? 1 - distance / Math.max(typed.length, word.length) : 0);
}

/**
 * Looks the query's words up in the agent's vocabulary (`memory_words`, kept by triggers on
 * `memories`): how many memories hold each, and for a word none holds (of `minLength` letters or
 * more, the longest four) its nearest vocabulary words (GiST KNN on `word <-> q` within the agent),
 * of which the closest CORRECTIONS stand in for it. One statement.
 */
async function lookUpWords(db: Db, agentId: string, words: string[], minLength: number): Promise<QueryWords> {
  if (!words.length) return { known: [], misspelt: [], corrections: [] };
  const { rows } = await db.raw<{
    rows: { w: string; count: number | null; correction: string | null; sim: number | null; wsim: number | null }[];
  }>(
    `SELECT q.w, v.count, c.word AS correction, c.sim, c.wsim
     FROM unnest(?::text[]) WITH ORDINALITY AS q(w, n)
     LEFT JOIN memory_words v ON v.agent_id = ? AND v.word = q.w
     LEFT JOIN LATERAL (
       SELECT mw.word, similarity(mw.word, q.w) AS sim, word_similarity(q.w, mw.word) AS wsim
       FROM memory_words mw
       WHERE v.word IS NULL AND q.w = ANY(?::text[]) AND mw.agent_id = ?
       ORDER BY mw.word <-> q.w LIMIT ${NEAREST}
     ) c ON true
     ORDER BY q.n`,
    [words, agentId, words.filter((w) => w.length >= minLength && hasLetter(w)).slice(0, 4), agentId],
  );
  const known = new Map<string, number>();
  const nearest = new Map<string, { word: string; similarity: number }[]>();
  for (const row of rows) {
    if (row.count !== null) known.set(row.w, row.count);
    else if (hasLetter(row.w) && row.w.length >= minLength) {
      const list = nearest.get(row.w) ?? [];
      nearest.set(row.w, list);
      const similarity = row.correction ? closeness(row.w, row.correction, Number(row.sim), Number(row.wsim)) : 0;
      if (similarity > 0) list.push({ word: row.correction!, similarity });
    } else known.set(row.w, hasLetter(row.w) ? -1 : 0); // short and held by none (-1), or a number: as typed
  }
  const misspelt = [...nearest.keys()];
  const corrections = misspelt.flatMap((typed, of) =>
    nearest
      .get(typed)!
      .sort((a, b) => b.similarity - a.similarity || a.word.localeCompare(b.word))
      .slice(0, CORRECTIONS)
      .map((c) => ({ of, ...c })),
  );
  return {
    known: [...known].map(([word, count]) => ({ word, count })).sort((a, b) => a.count - b.count),
    misspelt,
    corrections,
  };
}

interface Rankers {
  /** Full text: a tsquery expression (SQL with its bindings) for a query in websearch syntax. */
  fullText?: { sql: string; bindings: string[] };
  /** Full text over the known words: all of them, or any (a message, not a query). */
  match: 'all' | 'any';
  /** Corrections of the misspelt words: memories holding them, by similarity. */
  corrections: Correction[];
  /** Words the query excludes (`-word`): the corrections side must not bring back what full text left out. */
  excludedWords?: string[];
  /** The agent's most important memories as a ranker of their own (what a turn always wants). */
  important: boolean;
}

/**
 * The fused ranking: each ranker orders its own candidates (full text by ts_rank_cd, corrections by
 * the similarity of the vocabulary words a memory holds, importance by importance), ties broken by
 * importance then recency; a memory's score is the sum of 1 / (RRF_K + rank) over the rankers
 * that found it. One statement; every ranker reads at most POOL rows.
 */
async function fusedSearch(
  db: Db,
  agentId: string,
  words: QueryWords,
  rankers: Rankers,
  limit: number,
  offset = 0,
): Promise<MemoryHit[]> {
  const ctes: string[] = [];
  const names: string[] = [];
  const bindings: (string | number | string[] | number[])[] = [];
  const ranked = (name: string, inner: string, order: string) => {
    names.push(name);
    return `${name} AS (SELECT id, row_number() OVER (ORDER BY ${order}) AS r FROM (${inner}) ${name}_c)`;
  };
  // Full text: the tsquery that ranks, and the one that finds the pool (for "any", the rarest
  // words up to about POOL matches: a common word ranks the pool but does not flood it).
  type Tsq = { sql: string; bindings: string[] };
  const simple = (text: string): Tsq => ({ sql: "to_tsquery('simple', ?)", bindings: [text] });
  let fullText: { rank: Tsq; find: Tsq } | undefined;
  if (rankers.fullText) fullText = { rank: rankers.fullText, find: rankers.fullText };
  else if (words.known.length && rankers.match === 'all') {
    const all = simple(words.known.map((k) => k.word).join(' & '));
    fullText = { rank: all, find: all };
  } else {
    // Any: the words some memory may hold; the pool comes from the rarest (numbers, whose count the
    // vocabulary does not keep, count as rare) until about POOL matches, at least one counted word.
    const usable = words.known.filter((k) => k.count >= 0);
    let total = 0;
    let counted = false;
    const rare = usable.filter((k) => {
      total += k.count;
      const take = total <= POOL || !counted;
      counted ||= take && k.count > 0;
      return take;
    });
    if (usable.length)
      fullText = {
        rank: simple(usable.map((k) => k.word).join(' | ')),
        find: simple(rare.map((k) => k.word).join(' | ')),
      };
  }
  if (fullText) {
    ctes.push(
      ranked(
        'fts',
        `SELECT id, importance, updated_at, ts_rank_cd(search, ${fullText.rank.sql}) AS rank
         FROM (SELECT id, importance, updated_at, search FROM memories
               WHERE agent_id = ? AND search @@ ${fullText.find.sql}
               ORDER BY importance DESC, updated_at DESC LIMIT ${POOL}) pool
         ORDER BY rank DESC, importance DESC, updated_at DESC LIMIT ${CANDIDATES}`,
        'rank DESC, importance DESC, updated_at DESC',
      ),
    );
    bindings.push(...fullText.rank.bindings, agentId, ...fullText.find.bindings);
  }
  const corrections = rankers.corrections;
  if (corrections.length) {
    const excluded = rankers.excludedWords ?? [];
    ctes.push(
      `corrected AS MATERIALIZED (
         SELECT c.of, to_tsquery('simple', c.word) AS tsq, c.sim
         FROM unnest(?::int[], ?::text[], ?::float8[]) AS c(of, word, sim))`,
    );
    bindings.push(
      corrections.map((c) => c.of),
      corrections.map((c) => c.word),
      corrections.map((c) => c.similarity),
    );
    ctes.push(
      ranked(
        'corr',
        // A memory scores the similarity of the closest correction it holds, summed over the
        // misspelt words.
        `SELECT id, importance, updated_at,
                (SELECT sum(best) FROM (SELECT max(c.sim) AS best FROM corrected c
                                        WHERE pool.search @@ c.tsq GROUP BY c.of) b) AS sim
         FROM (SELECT id, importance, updated_at, search FROM memories
               WHERE agent_id = ? AND search @@ to_tsquery('simple', ?)
                 ${excluded.length ? "AND NOT search @@ to_tsquery('simple', ?)" : ''}
               ORDER BY importance DESC, updated_at DESC LIMIT ${POOL}) pool
         ORDER BY sim DESC, importance DESC, updated_at DESC LIMIT ${CANDIDATES}`,
        'sim DESC, importance DESC, updated_at DESC',
      ),
    );
    bindings.push(agentId, [...new Set(corrections.map((c) => c.word))].join(' | '));
    if (excluded.length) bindings.push(excluded.join(' | '));
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
  if (!names.length) return [];
  const { rows } = await db.raw<{ rows: MemoryRow[] }>(
    `WITH ${ctes.join(',\n')}
     SELECT ${COLUMNS.map((c) => `m.${c}`).join(', ')},
            ${names.map((n) => `coalesce(1.0::float8 / (${RRF_K} + ${n}.r), 0)`).join(' + ')} AS score
     FROM (${names.map((n) => `SELECT id FROM ${n}`).join(' UNION ')}) found
     JOIN memories m ON m.id = found.id
     ${names.map((n) => `LEFT JOIN ${n} ON ${n}.id = m.id`).join('\n')}
     ORDER BY score DESC, m.importance DESC, m.updated_at DESC
     LIMIT ? OFFSET ?`,
    [...bindings, limit, offset],
  );
  return rows.map((row) => ({ ...present(row), score: Number(row.score!.toFixed(6)) }));
}

/** The agent's memories by importance, then the most recently written: what an empty query lists. */
async function topByImportance(db: Db, agentId: string, limit: number, offset: number): Promise<MemoryHit[]> {
  const rows: MemoryRow[] = await db('memories')
    .where({ agent_id: agentId })
    .orderBy([
      { column: 'importance', order: 'desc' },
      { column: 'updated_at', order: 'desc' },
    ])
    .offset(offset)
    .limit(limit)
    .select(COLUMNS);
  return rows.map((row) => ({ ...present(row), score: 0 }));
}

/**
 * Searches an agent's memories: Postgres full text (`websearch_to_tsquery`, so "quoted phrases"
 * and -exclusions work) fused with the memories holding the corrections of misspelt words (a word
 * no memory holds, matched against the agent's vocabulary by trigrams and edit distance, so "kubernets"
 * finds "Kubernetes"). Without a query: the top memories by importance, then recency.
 */
export async function searchMemories(
  db: Db,
  teamId: string,
  agentId: string,
  { q, limit, cursor }: MemorySearch,
): Promise<Page<MemoryHit>> {
  await requireAgent(db, teamId, agentId);
  // Pages by offset over the ranking (hits have no stable key to resume after); one extra says more exist.
  const offset = pageOffset({ cursor, limit });
  const paged = (hits: MemoryHit[]) => offsetPage(hits, offset, limit, (hit) => hit);
  const query = q?.trim() ?? '';
  if (!searchTerms(query, 1).length) return paged(await topByImportance(db, agentId, limit + 1, offset));
  const exclusions = /(?:^|\s)-\S+/g;
  // Plain words must all match, except those no memory holds (misspelt: their corrections are the
  // second ranker); quotes, -word or "or" are websearch_to_tsquery's syntax, taken as written.
  const syntax = /["]|(?:^|\s)-\S|\sor\s/i.test(query);
  const excludedWords = searchTerms((query.match(exclusions) ?? []).join(' '), 16, 1);
  const words = await lookUpWords(
    db,
    agentId,
    syntax ? searchTerms(query.replace(exclusions, ' '), 16) : searchTerms(query, 16),
    4,
  );
  const rankers: Rankers = {
    fullText: syntax ? { sql: "websearch_to_tsquery('simple', ?)", bindings: [query] } : undefined,
    match: 'all',
    corrections: words.corrections,
    excludedWords,
    important: false,
  };
  return paged(await fusedSearch(db, agentId, words, rankers, limit + 1, offset));
}

/**
 * For a turn: the memories worth loading for `text` (the incoming message). A message is not a
 * query, so full text matches any of its words (the pool found by the rarest, ranked by how many
 * and how close), misspelt longer words go through their corrections, and the agent's most
 * important memories rank as a third list: a turn sees what bears on the message and what always
 * matters. Two statements, each ranker bounded (POOL rows at most), whatever the agent holds.
 */
export async function topMemories(db: Db, agentId: string, text: string, limit: number): Promise<MemoryHit[]> {
  const words = await lookUpWords(db, agentId, searchTerms(text, 16), 5);
  return fusedSearch(db, agentId, words, { match: 'any', corrections: words.corrections, important: true }, limit);
}
