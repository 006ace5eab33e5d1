import type { Db } from '../../db/knex';
import { knowledgeChunks } from '../agents/documents';
import { topMemories } from '../agents/memorySearch';
import { relevantSkills } from '../agents/skills';
import type { ChatMessage, ChatToolCall } from '../agents/models/chatModel';
import type { TurnRecord } from './turnRecord';

/** What a turn may spend on the recent transcript (estimated at 4 characters a token). */
export const TRANSCRIPT_TOKEN_BUDGET = 8_000;
const SKILLS_LOADED = 3;
const MEMORIES_LOADED = 8;
const CHUNKS_LOADED = 4;

const estimateTokens = (text: string) => Math.ceil(text.length / 4);

interface TranscriptRow {
  role: 'user' | 'assistant' | 'tool';
  content: string;
  tool_calls: ChatToolCall[] | null;
  tool_call_id: string | null;
}

/**
 * What the model reads in a turn: the character, the skills that apply to the message, the top
 * memories, the knowledge chunks that match it, then the recent transcript within a token budget.
 * Messages posted meanwhile (turns still queued) are not in it.
 */
export async function loadTurnContext(db: Db, turn: TurnRecord): Promise<ChatMessage[]> {
  const { question, agent } = turn;
  // An agent with no skills, memories or knowledge is not searched for them: each search is a
  // round trip or two before the model is asked (memories: the vocabulary, then the ranking).
  const [skills, memories, chunks, transcript] = await Promise.all([
    agent.has.skills ? relevantSkills(db, agent.id, question, SKILLS_LOADED) : [],
    agent.has.memories ? topMemories(db, agent.id, question, MEMORIES_LOADED) : [],
    agent.has.knowledge ? knowledgeChunks(db, agent.id, question, CHUNKS_LOADED) : [],
    recentTranscript(db, turn),
  ]);

  const system = [
    `You are ${turn.agent.name}, an AI agent of the team "${turn.team.slug}".`,
    turn.agent.persona ? `Persona:\n${turn.agent.persona}` : '',
    turn.agent.instructions ? `Instructions:\n${turn.agent.instructions}` : '',
    skills.length
      ? `Skills that may apply:\n${skills.map((s) => `### ${s.name}\n${s.instructions}`).join('\n\n')}`
      : '',
    memories.length ? `What you remember:\n${memories.map((m) => `- ${m.content}`).join('\n')}` : '',
    chunks.length ? `Knowledge that may help:\n${chunks.map((c) => `[${c.title}] ${c.content}`).join('\n\n')}` : '',
    'Use the tools when they help. A write that needs a person answers when they decide; do not repeat it.',
  ]
    .filter(Boolean)
    .join('\n\n');
  return [{ role: 'system', content: system }, ...transcript];
}

/**
 * The conversation as it happened: the turns that ended before this one, in the order they ended
 * (whole turns, newest first, while they fit the budget), then this turn's own messages, always.
 */
async function recentTranscript(db: Db, turn: TurnRecord): Promise<ChatMessage[]> {
  const newestFirst: (TranscriptRow & { turn_id: string })[] = await db('room_messages as m')
    .join('room_turns as t', 't.id', 'm.turn_id')
    .where('m.room_id', turn.roomId)
    .where((q) => {
      void q.where('m.turn_id', turn.id).orWhereNotNull('t.completed_at');
    })
    .orderByRaw('(m.turn_id = ?) DESC, t.completed_at DESC, m.seq DESC', [turn.id])
    .limit(400)
    .select('m.turn_id', 'm.role', 'm.content', 'm.tool_calls', 'm.tool_call_id');

  const own = newestFirst.filter((row) => row.turn_id === turn.id);
  const earlier = new Map<string, TranscriptRow[]>();
  for (const row of newestFirst)
    if (row.turn_id !== turn.id) earlier.set(row.turn_id, [...(earlier.get(row.turn_id) ?? []), row]);
  const cost = (rows: TranscriptRow[]) =>
    rows.reduce((sum, r) => sum + estimateTokens(r.content) + estimateTokens(JSON.stringify(r.tool_calls ?? '')), 0);
  let budget = TRANSCRIPT_TOKEN_BUDGET - cost(own);
  const kept: TranscriptRow[] = [...own];
  for (const rows of earlier.values()) {
    budget -= cost(rows);
    if (budget < 0) break;
    kept.push(...rows);
  }
  return withEveryCallAnswered(kept.reverse());
}

/** A model refuses a transcript with a tool call left unanswered (a turn that failed mid-way): say so in its place. */
function withEveryCallAnswered(rows: TranscriptRow[]): ChatMessage[] {
  const answered = new Set(rows.filter((r) => r.role === 'tool').map((r) => r.tool_call_id));
  const messages: ChatMessage[] = [];
  for (const row of rows) {
    if (row.role === 'user') messages.push({ role: 'user', content: row.content });
    else if (row.role === 'tool') messages.push({ role: 'tool', toolCallId: row.tool_call_id!, content: row.content });
    else {
      const calls = row.tool_calls ?? [];
      messages.push({ role: 'assistant', content: row.content, ...(calls.length ? { toolCalls: calls } : {}) });
      for (const call of calls)
        if (!answered.has(call.id))
          messages.push({
            role: 'tool',
            toolCallId: call.id,
            content: '{"error":"the turn ended before this call ran"}',
          });
    }
  }
  return messages;
}
