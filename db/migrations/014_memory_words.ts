import type { Knex } from 'knex';

/**
 * An agent's vocabulary: the distinct words of its memories, with how many memories hold each
 * (docs/AGENTS.md › Memories). Memory search corrects a misspelt query word against this short
 * list (its nearest words by trigram distance) instead of against every memory's whole content,
 * and reads a word's count to know how common it is.
 *
 * Kept by statement-level triggers on `memories` rather than by the service: every write path
 * (the service, a bulk INSERT … SELECT, the cascade when an agent or team is deleted, this
 * backfill) stays in step, in the writer's own transaction, and a bulk write costs one aggregated
 * upsert instead of one per row.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE memory_words (
      agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
      word text NOT NULL,
      count integer NOT NULL,
      PRIMARY KEY (agent_id, word)
    )`);
  // Nearest words of one agent by trigram distance (`ORDER BY word <-> q`): GiST over the agent
  // (btree_gist) and the word, so a misspelling is matched within the agent's own vocabulary.
  await knex.raw('CREATE EXTENSION IF NOT EXISTS btree_gist');
  await knex.raw('CREATE INDEX memory_words_trgm ON memory_words USING gist (agent_id, word gist_trgm_ops)');

  // The words of a memory worth a vocabulary entry: the lexemes of its `search` tsvector made of
  // letters and digits with at least one letter (numbers are not corrected, punctuated tokens such
  // as e-mail addresses are not tsquery-safe words).
  await knex.raw(`
    CREATE FUNCTION memory_vocabulary(search tsvector) RETURNS SETOF text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT lexeme FROM unnest(search) WHERE lexeme ~ '^[[:alnum:]]*[[:alpha:]][[:alnum:]]*$'
    $$`);

  // One function for the three triggers: the net change per (agent, word) of the statement, applied
  // in (agent, word) order (concurrent writers lock the same rows in the same order), then the
  // words no memory holds any more are dropped.
  await knex.raw(`
    CREATE FUNCTION memory_words_track() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      agents uuid[];
      words text[];
      deltas integer[];
    BEGIN
      IF TG_OP = 'INSERT' THEN
        SELECT array_agg(d.agent_id ORDER BY d.agent_id, d.word), array_agg(d.word ORDER BY d.agent_id, d.word),
               array_agg(d.n ORDER BY d.agent_id, d.word)
        INTO agents, words, deltas
        FROM (SELECT r.agent_id, w AS word, count(*)::integer AS n
              FROM new_rows r, memory_vocabulary(r.search) w GROUP BY 1, 2) d;
      ELSIF TG_OP = 'DELETE' THEN
        SELECT array_agg(d.agent_id ORDER BY d.agent_id, d.word), array_agg(d.word ORDER BY d.agent_id, d.word),
               array_agg(d.n ORDER BY d.agent_id, d.word)
        INTO agents, words, deltas
        FROM (SELECT r.agent_id, w AS word, -count(*)::integer AS n
              FROM old_rows r, memory_vocabulary(r.search) w GROUP BY 1, 2) d;
      ELSE
        SELECT array_agg(d.agent_id ORDER BY d.agent_id, d.word), array_agg(d.word ORDER BY d.agent_id, d.word),
               array_agg(d.n ORDER BY d.agent_id, d.word)
        INTO agents, words, deltas
        FROM (SELECT c.agent_id, c.word, sum(c.n)::integer AS n
              FROM (SELECT r.agent_id, w AS word, 1 AS n FROM new_rows r, memory_vocabulary(r.search) w
                    UNION ALL
                    SELECT r.agent_id, w, -1 FROM old_rows r, memory_vocabulary(r.search) w) c
              GROUP BY 1, 2 HAVING sum(c.n) <> 0) d;
      END IF;
      IF agents IS NULL THEN
        RETURN NULL;
      END IF;
      INSERT INTO memory_words AS mw (agent_id, word, count)
      SELECT * FROM unnest(agents, words, deltas)
      ON CONFLICT (agent_id, word) DO UPDATE SET count = mw.count + excluded.count;
      DELETE FROM memory_words mw USING unnest(agents, words, deltas) AS d(agent_id, word, n)
      WHERE d.n < 0 AND mw.agent_id = d.agent_id AND mw.word = d.word AND mw.count <= 0;
      RETURN NULL;
    END $$`);
  // Transition tables cannot go with a column list (UPDATE OF content): an update that leaves the
  // content alone nets to no change.
  await knex.raw(`CREATE TRIGGER memory_words_insert AFTER INSERT ON memories
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION memory_words_track()`);
  await knex.raw(`CREATE TRIGGER memory_words_update AFTER UPDATE ON memories
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION memory_words_track()`);
  await knex.raw(`CREATE TRIGGER memory_words_delete AFTER DELETE ON memories
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION memory_words_track()`);

  // The memories there are already.
  await knex.raw(`
    INSERT INTO memory_words (agent_id, word, count)
    SELECT m.agent_id, w, count(*) FROM memories m, memory_vocabulary(m.search) w GROUP BY 1, 2`);

  // Misspellings are now matched against the vocabulary: the trigram index over every memory's
  // content (the dear part of each write and of a misspelt search) has no reader left.
  await knex.raw('DROP INDEX IF EXISTS memories_trgm');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX IF NOT EXISTS memories_trgm ON memories USING gin (content gin_trgm_ops)');
  for (const event of ['insert', 'update', 'delete'])
    await knex.raw(`DROP TRIGGER IF EXISTS memory_words_${event} ON memories`);
  await knex.raw('DROP FUNCTION IF EXISTS memory_words_track()');
  await knex.raw('DROP FUNCTION IF EXISTS memory_vocabulary(tsvector)');
  await knex.raw('DROP TABLE IF EXISTS memory_words');
}
