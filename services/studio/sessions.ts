import type { Knex } from 'knex';
import { z } from 'zod';
import type { Db } from '../../db/knex';
import type { StudioProductionStatus } from '../../workflows/contracts/studioProduce';
import type { ErrorBody } from '../platform/errors';
import { notFound } from '../platform/errors';
import { newId } from '../../db/ids';

/**
 * Studio sessions (docs/STUDIO.md): a brief, built up by `studio_send`, that the session's agent
 * turns into a deliverable with `studio_produce`. A session belongs to the team and to the agent
 * that opened it; its productions use that agent's model.
 */

const sessionIdSchema = z.string().min(1).max(100).describe('The session id (ss_…) from studio_send');

export const studioSendSchema = z.strictObject({
  sessionId: sessionIdSchema.optional().describe('Add to this session; without it a new session starts'),
  message: z
    .string()
    .trim()
    .min(1)
    .max(20_000)
    .describe('The brief, or more of it: audience, purpose, tone, facts to use, the form of the deliverable'),
  title: z.string().trim().min(1).max(200).optional().describe("A new session's title (default: the brief's start)"),
});
export type StudioSend = z.infer<typeof studioSendSchema>;

export const productionRefSchema = z.strictObject({
  sessionId: sessionIdSchema,
  n: z.number().int().min(1).optional().describe('Which production (default: the latest)'),
});

export const studioMessageSchema = z.object({ seq: z.number(), content: z.string(), createdAt: z.iso.datetime() });

export const studioProductionSchema = z.object({
  id: z.string(),
  sessionId: z.string(),
  n: z.number(),
  status: z.enum(['queued', 'running', 'succeeded', 'failed']),
  /** The deliverable (Markdown), once succeeded. */
  result: z.string().nullable(),
  /** False: no model is configured and `result` is a placeholder that says so; nothing was generated. */
  generated: z.boolean().nullable(),
  model: z.string().nullable(),
  /** The brief's messages it was made from: 1..throughSeq. */
  throughSeq: z.number(),
  instructions: z.string().nullable(),
  promptTokens: z.number().nullable(),
  completionTokens: z.number().nullable(),
  error: z.unknown().nullable(),
  workflowId: z.string(),
  artifactId: z.string().nullable(),
  mediaId: z.string().nullable(),
  createdAt: z.iso.datetime(),
  finishedAt: z.iso.datetime().nullable(),
});
export type StudioProductionJson = z.infer<typeof studioProductionSchema>;

export const studioSessionSchema = z.object({
  id: z.string(),
  agentId: z.string(),
  title: z.string(),
  messages: z.array(studioMessageSchema),
  productions: z.array(studioProductionSchema.omit({ result: true })),
  createdAt: z.iso.datetime(),
});

/** `studio_send`'s answer: the message as stored, and the session it is in (`created`: opened by it). */
export const studioSentSchema = z.object({
  created: z.boolean(),
  message: studioMessageSchema,
  session: studioSessionSchema,
});

export interface SessionRow {
  id: string;
  team_id: string;
  agent_id: string;
  title: string;
  created_at: Date;
}

export interface ProductionRow {
  id: string;
  session_id: string;
  n: number;
  through_seq: number;
  instructions: string | null;
  status: StudioProductionStatus;
  result: string | null;
  generated: boolean | null;
  model: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  error: ErrorBody | null;
  workflow_id: string;
  artifact_id: string | null;
  media_id: string | null;
  created_at: Date;
  finished_at: Date | null;
}

export const presentProduction = (row: ProductionRow): StudioProductionJson => ({
  id: row.id,
  sessionId: row.session_id,
  n: row.n,
  status: row.status,
  result: row.result,
  generated: row.generated,
  model: row.model,
  throughSeq: row.through_seq,
  instructions: row.instructions,
  promptTokens: row.prompt_tokens,
  completionTokens: row.completion_tokens,
  error: row.error,
  workflowId: row.workflow_id,
  artifactId: row.artifact_id,
  mediaId: row.media_id,
  createdAt: row.created_at.toISOString(),
  finishedAt: row.finished_at?.toISOString() ?? null,
});

/**
 * A session of the team (another team's is 404), optionally locked for a write. `onlyAgent`: the
 * calling agent, whose own sessions only it finds (another agent's is 404); null for a user.
 */
export async function findSession(
  db: Db | Knex.Transaction,
  teamId: string,
  sessionId: string,
  lock = false,
  onlyAgent: string | null = null,
): Promise<SessionRow> {
  const query = db('studio_sessions').where({ team_id: teamId, id: sessionId }).first();
  if (onlyAgent !== null) query.where({ agent_id: onlyAgent });
  const row: SessionRow | undefined = await (lock ? query.forUpdate() : query);
  if (!row) throw notFound('Studio session');
  return row;
}

export async function presentSession(db: Db | Knex.Transaction, row: SessionRow) {
  const [messages, productions] = await Promise.all([
    db('studio_messages').where({ session_id: row.id }).orderBy('seq').select('seq', 'content', 'created_at'),
    db('studio_productions').where({ session_id: row.id }).orderBy('n').select('*'),
  ]);
  return {
    id: row.id,
    agentId: row.agent_id,
    title: row.title,
    messages: messages.map((m: { seq: number; content: string; created_at: Date }) => ({
      seq: m.seq,
      content: m.content,
      createdAt: m.created_at.toISOString(),
    })),
    productions: productions.map((p: ProductionRow) => {
      const { result: _omitted, ...summary } = presentProduction(p);
      return summary;
    }),
    createdAt: row.created_at.toISOString(),
  };
}

/**
 * `studio_send`: adds a message to the brief, opening a session (for the connected agent) when no
 * `sessionId` is given. A resent message is added once: with the caller's idempotency key (a
 * turn's tool-call id), or, without one, when it repeats the session's last message and nothing
 * was produced since.
 */
export async function studioSend(
  db: Db,
  teamId: string,
  agentId: string,
  userId: string | null,
  input: StudioSend,
  idempotencyKey?: string,
  onlyAgent: string | null = null,
) {
  return db.transaction(async (trx) => {
    let session: SessionRow;
    let created = false;
    if (input.sessionId) session = await findSession(trx, teamId, input.sessionId, true, onlyAgent);
    else {
      const title = input.title ?? (input.message.length > 80 ? `${input.message.slice(0, 77)}…` : input.message);
      [session] = await trx('studio_sessions')
        .insert({ id: newId('ss'), team_id: teamId, agent_id: agentId, title, created_by: userId })
        .returning('*');
      created = true;
    }
    const last = await trx('studio_messages').where({ session_id: session.id }).orderBy('seq', 'desc').first();
    const keyed = idempotencyKey
      ? await trx('studio_messages').where({ session_id: session.id, idempotency_key: idempotencyKey }).first()
      : undefined;
    const producedSince = last
      ? await trx('studio_productions')
          .where({ session_id: session.id })
          .where('through_seq', '>=', last.seq)
          .first('n')
      : undefined;
    const repeated = !idempotencyKey && last && last.content === input.message && !producedSince ? last : undefined;
    const message =
      keyed ??
      repeated ??
      (
        await trx('studio_messages')
          .insert({
            session_id: session.id,
            seq: (last?.seq ?? 0) + 1,
            content: input.message,
            idempotency_key: idempotencyKey ?? null,
          })
          .returning('*')
      )[0];
    await trx('studio_sessions').where({ id: session.id }).update({ updated_at: trx.fn.now() });
    return {
      created,
      message: { seq: message.seq, content: message.content, createdAt: message.created_at.toISOString() },
      session: await presentSession(trx, session),
    };
  });
}

/** The agent a call is limited to: an agent's own principal (docs/STUDIO.md); null for a user. */
export const callingAgent = (principal: { kind: string; agentId?: string | null }): string | null =>
  principal.kind === 'agent' ? (principal.agentId ?? null) : null;
