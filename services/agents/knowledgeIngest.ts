import type { Db } from '../../db/knex';
import type { IngestInput } from '../jobs/jobTypes';
import type { IngestResult } from '../../workflows/contracts/job';
import { chunkText } from './knowledge';

/**
 * A `knowledge.ingest` job (its activity: services/jobs/activities.ts): the job's text chunked into
 * the agent's knowledge, one document per job (`kd_<job>`), so a retry adds nothing. Undefined:
 * the agent no longer exists.
 */
export async function ingestJobKnowledge(
  db: Db,
  job: { id: string; team_id: string; input: Record<string, unknown> },
  heartbeat: (details: unknown) => void,
): Promise<IngestResult | undefined> {
  const input = job.input as IngestInput;
  const agent = await db('agents').where({ id: input.agentId, team_id: job.team_id }).first('id');
  if (!agent) return undefined;
  const chunks = chunkText(input.text, input.chunkSize, input.chunkOverlap);
  const documentId = `kd_${job.id.slice(4)}`;
  await db.transaction(async (trx) => {
    const inserted = await trx('knowledge_documents')
      .insert({
        id: documentId,
        team_id: job.team_id,
        agent_id: input.agentId,
        job_id: job.id,
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
}
