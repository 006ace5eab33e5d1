import { z } from 'zod';
import type { Db } from '../../db/knex';
import { searchTerms } from '../agents/memorySearch';
import { notFound } from '../platform/errors';
import { decodeCursor, encodeCursor, Page, pageQuerySchema } from '../platform/pagination';

/**
 * `search` / `GET /search`: one query over the team's contacts, artifacts, campaigns and, for one
 * agent, its knowledge documents and memories, as one ranked list (docs/API.md › Search).
 *
 * Two rankers, as memory search has, fused by reciprocal rank (k = 60): full text (every word of
 * the query as a prefix, `ts_rank_cd` across all types) and trigram word similarity of the query
 * with each hit's label (a contact's name, email and company; a title or campaign name), which
 * finds what is misspelt or partly typed. A hit found by both comes first. Each ranker reads a
 * bounded pool per type, so a common word costs the same whatever the team holds.
 */

export const SEARCH_TYPES = ['contact', 'artifact', 'campaign', 'document', 'memory'] as const;
const searchTypeSchema = z.enum(SEARCH_TYPES);
export type SearchType = z.infer<typeof searchTypeSchema>;

/** Each type's full-text pool (its most recent matches) is ranked; this many per type go on. */
const POOL = 300;
const CANDIDATES = 50;
const RRF_K = 60;
/**
 * The trigram ranker joins only when full text finds fewer hits than this (in all types): a
 * misspelt or partial query. Trigram matching of a common fragment ("example.com", "company")
 * reads every label sharing it, which full text, when it finds enough, makes unnecessary.
 */
const FUSE_BELOW = 10;

const searchFields = {
  q: z.string().trim().min(1).max(200).describe('What to look for: words, a name, an email, a title'),
  agentId: z
    .string()
    .max(100)
    .optional()
    .describe("Whose documents and memories are searched (default: the connected agent, else the team's first)"),
};

/** `GET /search?q=&types=contact,memory`. */
export const searchQuerySchema = pageQuerySchema.extend({
  ...searchFields,
  types: z
    .string()
    .max(100)
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(z.array(searchTypeSchema).min(1))
    .optional()
    .describe('Only these types, comma-separated: contact, artifact, campaign, document, memory'),
});

/** The `search` tool: the same, with `types` as a list. */
export const searchToolSchema = z.strictObject({
  ...pageQuerySchema.shape,
  ...searchFields,
  types: z.array(searchTypeSchema).min(1).optional().describe('Only these types (default: all five)'),
});
export type SearchQuery = z.infer<typeof searchQuerySchema> | z.infer<typeof searchToolSchema>;

export const searchHitSchema = z.object({
  type: searchTypeSchema,
  id: z.string(),
  title: z.string(),
  snippet: z.string().nullable(),
  /** Documents and memories belong to an agent. */
  agentId: z.string().nullable(),
  score: z.number(),
  updatedAt: z.iso.datetime(),
});
export type SearchHit = z.infer<typeof searchHitSchema>;

interface HitRow {
  type: SearchType;
  id: string;
  title: string;
  snippet: string | null;
  agent_id: string | null;
  updated_at: Date;
  score: number;
}

type Part = { sql: string; bindings: string[] };

const CONTACT_DOC = `to_tsvector('simple', contact_search_text(name, email, phone, company, title, location, tags))`;
const CONTACT_LABEL = `lower(coalesce(name, '') || ' ' || coalesce(email, '') || ' ' || coalesce(company, ''))`;
const CAMPAIGN_DOC = `to_tsvector('simple', name || ' ' || coalesce(subject, '') || ' ' || content)`;
const HIT_COLUMNS = 'type, id, title, snippet, agent_id, updated_at';
/** A team row as a hit (its columns but the rank), one text for the full-text and the trigram candidates. */
const TEAM_HIT = {
  contact: `'contact' AS type, id, coalesce(name, email, phone, id) AS title,
            nullif(concat_ws(' · ', email, phone, company), '') AS snippet, NULL::uuid AS agent_id, updated_at`,
  artifact: `'artifact' AS type, id, title, type || ' · ' || status AS snippet, NULL::uuid AS agent_id, updated_at`,
  campaign: `'campaign' AS type, id, name AS title, left(coalesce(subject, content), 160) AS snippet,
             NULL::uuid AS agent_id, updated_at`,
};

/** The full-text candidates of one type: a pool of its recent matches, ranked. `?` order: scope, tsquery. */
function fullText(type: SearchType, scope: string): Part {
  const rank = (doc: string) => `ts_rank_cd(${doc}, q.tsq, 1)`;
  const sql: Record<SearchType, string> = {
    contact: `SELECT ${TEAM_HIT.contact}, ${rank(CONTACT_DOC)} AS rank
              FROM (SELECT * FROM contacts WHERE team_id = ? AND ${CONTACT_DOC} @@ (SELECT tsq FROM q)
                    ORDER BY seq DESC LIMIT ${POOL}) pool, q`,
    artifact: `SELECT ${TEAM_HIT.artifact}, ${rank(`to_tsvector('simple', title)`)} AS rank
               FROM (SELECT * FROM artifacts WHERE team_id = ? AND to_tsvector('simple', title) @@ (SELECT tsq FROM q)
                     ORDER BY seq DESC LIMIT ${POOL}) pool, q`,
    campaign: `SELECT ${TEAM_HIT.campaign}, ${rank(CAMPAIGN_DOC)} AS rank
               FROM (SELECT * FROM campaigns WHERE team_id = ? AND ${CAMPAIGN_DOC} @@ (SELECT tsq FROM q)
                     ORDER BY seq DESC LIMIT ${POOL}) pool, q`,
    // A document matches by its best chunk or by its title (two rows: the better one stands, below).
    document: `SELECT 'document' AS type, d.id, d.title, left(m.content, 160) AS snippet, d.agent_id,
                      d.created_at AS updated_at, m.rank
               FROM (SELECT document_id, content, rank FROM (
                       SELECT c.document_id, c.content, ts_rank_cd(c.search, q.tsq, 1) AS rank,
                              row_number() OVER (PARTITION BY c.document_id
                                                 ORDER BY ts_rank_cd(c.search, q.tsq, 1) DESC) AS nth
                       FROM (SELECT c.* FROM knowledge_chunks c JOIN knowledge_documents kd ON kd.id = c.document_id
                             WHERE kd.agent_id = ? AND c.search @@ (SELECT tsq FROM q) LIMIT ${POOL}) c, q) best
                     WHERE nth = 1
                     UNION ALL
                     SELECT id, NULL, ts_rank_cd(to_tsvector('simple', title), q.tsq, 1) FROM knowledge_documents, q
                     WHERE agent_id = ? AND to_tsvector('simple', title) @@ q.tsq) m
               JOIN knowledge_documents d ON d.id = m.document_id`,
    memory: `SELECT 'memory' AS type, id, left(content, 80) AS title, left(content, 160) AS snippet, agent_id,
                    updated_at, ts_rank_cd(search, q.tsq, 1) AS rank
             FROM (SELECT * FROM memories WHERE agent_id = ? AND search @@ (SELECT tsq FROM q)
                   ORDER BY importance DESC, updated_at DESC LIMIT ${POOL}) pool, q`,
  };
  const body =
    type === 'document' ? `SELECT DISTINCT ON (id) * FROM (${sql.document}) d ORDER BY id, rank DESC` : sql[type];
  return {
    sql: `(SELECT * FROM (${body}) ${type}_fts ORDER BY rank DESC LIMIT ${CANDIDATES})`,
    bindings: type === 'document' ? [scope, scope] : [scope],
  };
}

/** The trigram candidates of one type: labels the query is word-similar to (pg_trgm `<%`, threshold 0.6). */
type LabelledType = Exclude<SearchType, 'memory'>;

function trigram(type: LabelledType, scope: string, text: string): Part {
  const of: Record<LabelledType, { select: string; label: string; from: string; by: string }> = {
    contact: {
      select: TEAM_HIT.contact,
      label: CONTACT_LABEL,
      from: 'contacts',
      by: 'team_id',
    },
    artifact: {
      select: TEAM_HIT.artifact,
      label: 'lower(title)',
      from: 'artifacts',
      by: 'team_id',
    },
    campaign: {
      select: TEAM_HIT.campaign,
      label: 'lower(name)',
      from: 'campaigns',
      by: 'team_id',
    },
    document: {
      select: `'document' AS type, id, title, NULL AS snippet, agent_id, created_at AS updated_at`,
      label: 'lower(title)',
      from: 'knowledge_documents',
      by: 'agent_id',
    },
  };
  const t = of[type];
  // A bounded pool of the labels that pass, then ranked: the cost stays flat however many pass.
  return {
    sql: `(SELECT *, word_similarity(?, label) AS sim FROM (
             SELECT ${t.select}, ${t.label} AS label FROM ${t.from}
             WHERE ${t.by} = ? AND ? <% ${t.label} LIMIT ${POOL}) ${type}_pool
           ORDER BY sim DESC LIMIT ${CANDIDATES})`,
    bindings: [text, scope, text],
  };
}

/** The agent whose documents and memories are searched: the named one (another team's is 404), else the default. */
async function searchedAgent(db: Db, teamId: string, named: string | undefined, fallback: string | null) {
  if (named) {
    const agent = /^[0-9a-f-]{36}$/i.test(named)
      ? await db('agents').where({ team_id: teamId, id: named }).first('id')
      : undefined;
    if (!agent) throw notFound('Agent');
    return agent.id as string;
  }
  if (fallback) return fallback;
  const first = await db('agents').where({ team_id: teamId }).orderBy('seq').first('id');
  return (first?.id as string | undefined) ?? null;
}

interface RankedList {
  name: string;
  order: string;
  parts: Part[];
}

/** One page of the lists fused by reciprocal rank, each row with how many hits there are in all. */
async function fusedPage(
  db: Db,
  tsquery: string,
  lists: RankedList[],
  page: { limit: number; offset: number },
): Promise<(HitRow & { total: string })[]> {
  const ranked = lists.map(
    (l) =>
      `${l.name} AS (SELECT ${HIT_COLUMNS}, row_number() OVER (ORDER BY ${l.order}) AS r
                     FROM (${l.parts.map((p) => p.sql).join(' UNION ALL ')}) ${l.name}_all)`,
  );
  const { rows } = await db.raw<{ rows: (HitRow & { total: string })[] }>(
    `WITH q AS (SELECT to_tsquery('simple', ?) AS tsq), ${ranked.join(', ')}
     SELECT type, id, max(title) AS title, max(snippet) AS snippet, max(agent_id::text) AS agent_id,
            max(updated_at) AS updated_at, sum(1.0::float8 / (${RRF_K} + r)) AS score, count(*) OVER () AS total
     FROM (${lists.map((l) => `SELECT ${HIT_COLUMNS}, r FROM ${l.name}`).join(' UNION ALL ')}) hits
     GROUP BY type, id
     ORDER BY score DESC, updated_at DESC, id
     LIMIT ? OFFSET ?`,
    [tsquery, ...lists.flatMap((l) => l.parts.flatMap((p) => p.bindings)), page.limit + 1, page.offset],
  );
  return rows;
}

export async function searchTeam(
  db: Db,
  teamId: string,
  query: SearchQuery,
  defaultAgentId: string | null,
): Promise<Page<SearchHit>> {
  const offset = decodeCursor(query.cursor) ?? 0;
  const types = new Set<SearchType>(query.types ?? SEARCH_TYPES);
  const agentId = await searchedAgent(db, teamId, query.agentId, defaultAgentId);
  if (!agentId) for (const type of ['document', 'memory'] as const) types.delete(type);
  const scope = (type: SearchType) => (type === 'document' || type === 'memory' ? agentId! : teamId);

  // Every word as a prefix ("lov" finds "Lovelace"); words are letters and digits only, safe in a tsquery.
  const terms = searchTerms(query.q, 8);
  const text = query.q.toLowerCase();
  const fts = terms.length ? [...types].map((type) => fullText(type, scope(type))) : [];
  const tri = [...types]
    .filter((t): t is LabelledType => t !== 'memory')
    .map((type) => trigram(type, scope(type), text));
  const tsquery = terms.map((t) => `${t}:*`).join(' & ') || 'x';
  const fullTextList = { name: 'fts', order: 'rank DESC, updated_at DESC', parts: fts };
  const trigramList = { name: 'tri', order: 'sim DESC, updated_at DESC', parts: tri };
  const page = { limit: query.limit, offset };
  let rows = fts.length ? await fusedPage(db, tsquery, [fullTextList], page) : [];
  if (Number(rows[0]?.total ?? 0) < FUSE_BELOW && tri.length)
    rows = await fusedPage(db, tsquery, fts.length ? [fullTextList, trigramList] : [trigramList], page);
  const hasMore = rows.length > query.limit;
  return {
    data: rows.slice(0, query.limit).map((row) => ({
      type: row.type,
      id: row.id,
      title: row.title,
      snippet: row.snippet,
      agentId: row.agent_id,
      score: Number(Number(row.score).toFixed(6)),
      updatedAt: new Date(row.updated_at).toISOString(),
    })),
    pagination: { nextCursor: hasMore ? encodeCursor(offset + query.limit) : null, limit: query.limit },
  };
}
