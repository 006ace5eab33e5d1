import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import { firstRow, statement } from '../../db/statement';
import { installedOf, type AppSlug } from '../agents/apps';
import { MODEL_API_KEY } from '../agents/agentSecrets';
import type { ErrorBody } from '../platform/errors';
import type { TeamRef } from '../platform/context';
import { appendRoomEvents } from './roomEvents';

/** A turn with what its steps need: the room, the team, the agent and its settings. */
export interface TurnRecord {
  id: string;
  roomId: string;
  team: TeamRef;
  agent: {
    id: string;
    name: string;
    mode: 'auto' | 'manual';
    persona: string | null;
    instructions: string | null;
    modelBaseUrl: string | null;
    modelName: string | null;
    /** The agent's own model key (its `AI_API_KEY` secret), sealed; null without one. */
    modelApiKeySealed: string | null;
    /** What the agent has to recall from: a turn searches only what there is (services/rooms/turnContext.ts). */
    has: { skills: boolean; memories: boolean; knowledge: boolean };
  };
  /** The apps the team has installed: what the turn's tools are drawn from. */
  installedApps: Set<AppSlug>;
  /** Model steps recorded so far (a step's record and this count are written together). */
  steps: number;
  messageId: string;
  /** What the user asked: the turn's message, which picks the skills, memories and knowledge it loads. */
  question: string;
  messageSeq: number;
  authorUserId: string | null;
  /** Set when an outside caller (another team) posted the message: its turn is offered no tools. */
  callerTeamId: string | null;
  status: 'queued' | 'running' | 'waiting_approval' | 'completed' | 'failed';
}

/**
 * Every model step and tool call reads it first, before anything else: one text, written as SQL
 * and prepared once per connection (Postgres plans its joins for longer than it runs them, and
 * building it with the query builder cost the worker more than the round trip). The installed
 * apps and the model's key come with it: as statements of their own they slowed the turn's
 * context reads. Its columns are named: a column a migration adds must not change what the
 * statement returns.
 */
const turnRecord = statement<TurnRow>(
  `SELECT room_turns.id, room_turns.room_id, room_turns.team_id, room_turns.message_id, room_turns.message_seq,
          room_turns.author_user_id, room_turns.status, room_turns.steps, question.content AS question,
          teams.slug AS team_slug, teams.plan AS team_plan, rooms.caller_team_id,
          agents.id AS agent_id, agents.name AS agent_name, agents.mode AS agent_mode, agents.persona,
          agents.instructions, agents.model_base_url, agents.model_name,
          ARRAY(SELECT app FROM team_apps WHERE team_apps.team_id = room_turns.team_id) AS installed_apps,
          (SELECT value_sealed FROM agent_secrets
            WHERE agent_secrets.agent_id = agents.id AND agent_secrets.key = ?
              AND agent_secrets.team_id = room_turns.team_id) AS model_api_key_sealed,
          EXISTS (SELECT 1 FROM skills WHERE skills.agent_id = agents.id) AS has_skills,
          EXISTS (SELECT 1 FROM memories WHERE memories.agent_id = agents.id) AS has_memories,
          EXISTS (SELECT 1 FROM knowledge_documents WHERE knowledge_documents.agent_id = agents.id) AS has_knowledge
   FROM room_turns
   JOIN rooms ON rooms.id = room_turns.room_id
   JOIN agents ON agents.id = rooms.agent_id
   JOIN teams ON teams.id = rooms.team_id
   LEFT JOIN room_messages AS question ON question.id = room_turns.message_id
   WHERE room_turns.id = ?`,
);

type TurnRow = {
  id: string;
  room_id: string;
  team_id: string;
  message_id: string;
  message_seq: number;
  author_user_id: string | null;
  status: TurnRecord['status'];
  steps: number;
  question: string | null;
  team_slug: string;
  team_plan: string;
  caller_team_id: string | null;
  agent_id: string;
  agent_name: string;
  agent_mode: 'auto' | 'manual';
  persona: string | null;
  instructions: string | null;
  model_base_url: string | null;
  model_name: string | null;
  installed_apps: string[];
  model_api_key_sealed: string | null;
  has_skills: boolean;
  has_memories: boolean;
  has_knowledge: boolean;
};

export async function loadTurn(db: Db, turnId: string): Promise<TurnRecord> {
  const row = await firstRow(db, turnRecord, [MODEL_API_KEY, turnId]);
  if (!row) throw new Error(`Turn ${turnId} is not in the database`);
  return {
    id: row.id,
    roomId: row.room_id,
    team: { id: row.team_id, slug: row.team_slug, plan: row.team_plan },
    agent: {
      id: row.agent_id,
      name: row.agent_name,
      mode: row.agent_mode,
      persona: row.persona,
      instructions: row.instructions,
      modelBaseUrl: row.model_base_url,
      modelName: row.model_name,
      modelApiKeySealed: row.model_api_key_sealed,
      has: { skills: row.has_skills, memories: row.has_memories, knowledge: row.has_knowledge },
    },
    installedApps: installedOf(row.installed_apps),
    steps: row.steps,
    messageId: row.message_id,
    question: row.question ?? '',
    messageSeq: row.message_seq,
    authorUserId: row.author_user_id,
    callerTeamId: row.caller_team_id,
    status: row.status,
  };
}

export async function beginTurn(db: Db, turnId: string): Promise<void> {
  await db('room_turns').where({ id: turnId, status: 'queued' }).update({ status: 'running' });
}

export const setTurnStatus = (db: Db | Knex.Transaction, turnId: string, status: 'running' | 'waiting_approval') =>
  db('room_turns').where({ id: turnId }).whereNotIn('status', ['completed', 'failed']).update({ status });

/** Ends a turn once, with its `turn.completed` / `turn.failed` event (a retry finds it ended). */
export async function finishTurn(
  db: Db,
  turnId: string,
  outcome: { status: 'completed' } | { status: 'failed'; error: ErrorBody },
): Promise<void> {
  await db.transaction(async (trx) => {
    const turn = await trx('room_turns').where({ id: turnId }).forUpdate().first();
    if (!turn || turn.status === 'completed' || turn.status === 'failed') return;
    const reply = await trx('room_messages')
      .where({ turn_id: turnId, role: 'assistant' })
      .orderBy('seq', 'desc')
      .first('id', 'content');
    await trx('room_turns')
      .where({ id: turnId })
      .update({
        status: outcome.status,
        reply_message_id: reply?.id ?? null,
        error: outcome.status === 'failed' ? JSON.stringify(outcome.error) : null,
        completed_at: trx.fn.now(),
      });
    const usage = { steps: turn.steps, promptTokens: turn.prompt_tokens, completionTokens: turn.completion_tokens };
    await appendRoomEvents(trx, turn.room_id, [
      outcome.status === 'completed'
        ? {
            type: 'turn.completed',
            data: { turnId, replyMessageId: reply?.id ?? null, reply: reply?.content ?? '', ...usage },
          }
        : { type: 'turn.failed', data: { turnId, ...outcome.error, ...usage } },
    ]);
  });
}
