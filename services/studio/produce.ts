import { z } from 'zod';
import { studioProduceStart, studioProduceWorkflowId } from '../../workflows/contracts/studioProduce';
import { MODEL_API_KEY, secretValue } from '../agents/agentSecrets';
import { characterOf } from '../agents/character';
import { ChatMessage, ModelError } from '../agents/models/chatModel';
import { modelFor } from '../agents/models/resolveModel';
import type { AppContext, TeamRef } from '../platform/context';
import { errorBody, type ErrorBody } from '../platform/errors';
import {
  findSession,
  presentProduction,
  ProductionRow,
  studioProductionSchema,
  StudioProductionJson,
} from './sessions';

export const studioProduceSchema = z.strictObject({
  sessionId: z.string().min(1).max(100).describe('The session id (ss_…) from studio_send'),
  instructions: z
    .string()
    .trim()
    .min(1)
    .max(4000)
    .optional()
    .describe('For this production only, e.g. "shorter, for a board audience"'),
});
export type StudioProduce = z.infer<typeof studioProduceSchema>;

/** `studio_produce`'s answer: the production, and whether this call started it. */
export const productionStartedSchema = studioProductionSchema.extend({ started: z.boolean() });

/**
 * `studio_produce`: starts production n+1 of the session, the workflow
 * `studio-produce-<sessionId>:<n>`, over the brief as it stands. Asked again with nothing new
 * (no message since, the same instructions) it answers the production that covers it, unless
 * that one failed; one that is still queued or running is answered as it is (its start retried).
 */
export async function startProduction(
  ctx: AppContext,
  team: TeamRef,
  input: StudioProduce,
  onlyAgent: string | null = null,
): Promise<StudioProductionJson & { started: boolean }> {
  const { row, started } = await ctx.db.transaction(async (trx) => {
    const session = await findSession(trx, team.id, input.sessionId, true, onlyAgent);
    const latest: ProductionRow | undefined = await trx('studio_productions')
      .where({ session_id: session.id })
      .orderBy('n', 'desc')
      .first();
    const throughSeq = Number(
      (await trx('studio_messages').where({ session_id: session.id }).max('seq as last').first())?.last ?? 0,
    );
    if (latest && (latest.status === 'queued' || latest.status === 'running')) return { row: latest, started: false };
    if (
      latest &&
      latest.status === 'succeeded' &&
      latest.through_seq === throughSeq &&
      latest.instructions === (input.instructions ?? null)
    )
      return { row: latest, started: false };
    const n = (latest?.n ?? 0) + 1;
    const id = `${session.id}:${n}`;
    const [inserted] = await trx('studio_productions')
      .insert({
        id,
        session_id: session.id,
        n,
        through_seq: throughSeq,
        instructions: input.instructions ?? null,
        workflow_id: studioProduceWorkflowId(id),
      })
      .returning('*');
    return { row: inserted as ProductionRow, started: true };
  });
  if (row.status === 'queued') await startWorkflow(ctx, team, row);
  return { ...presentProduction(row), started };
}

async function startWorkflow(ctx: AppContext, team: TeamRef, row: ProductionRow) {
  await ctx.temporal.startTracked(
    studioProduceStart,
    { productionId: row.id },
    { team, staticSummary: `studio production ${row.id} for team ${team.slug}` },
    {
      // Never reached Temporal: the production fails now, and the next studio_produce starts another.
      onFailure: async ({ neverReached }) =>
        neverReached &&
        settle(ctx, row.id, {
          status: 'failed',
          error: errorBody('temporal_unavailable', 'The production could not be started; ask again'),
        }),
      details: { productionId: row.id },
    },
  );
}

const settle = (
  ctx: AppContext,
  productionId: string,
  outcome:
    | { status: 'failed'; error: ErrorBody }
    | {
        status: 'succeeded';
        result: string;
        generated: boolean;
        model: string;
        promptTokens: number;
        completionTokens: number;
      },
) =>
  ctx
    .db('studio_productions')
    .where({ id: productionId })
    .whereIn('status', ['queued', 'running'])
    .update(
      outcome.status === 'failed'
        ? { status: 'failed', error: JSON.stringify(outcome.error), finished_at: ctx.db.fn.now() }
        : {
            status: 'succeeded',
            result: outcome.result,
            generated: outcome.generated,
            model: outcome.model,
            prompt_tokens: outcome.promptTokens,
            completion_tokens: outcome.completionTokens,
            finished_at: ctx.db.fn.now(),
          },
    );

const STUDIO_INSTRUCTIONS =
  'You are working in the Studio: turn the brief the person gives you, over one or more messages, into the ' +
  'deliverable it asks for. Answer with the complete deliverable only, in Markdown, ready to hand to a client: ' +
  'no preamble, no questions, no notes about yourself. Where the brief leaves something open, choose sensibly. ' +
  'When you are given an earlier draft and more of the brief, write the whole deliverable again with the changes.';

/** The placeholder of the offline default: it says what it is, and quotes the brief; it never pretends to be a draft. */
function placeholder(title: string, agentName: string, brief: string[]): string {
  return [
    `# ${title}`,
    '',
    `> **Placeholder: nothing was generated.** No model is configured for the agent ${agentName}, so this ` +
      'text is fixed, not written from the brief.',
    '',
    '## The brief',
    '',
    ...brief.map((message) => message.replace(/^/gm, '> ') + '\n'),
    '## To produce a real draft',
    '',
    'Give the agent a model (PATCH /v1/agents/{agentId} with model.baseUrl and model.name, and its AI_API_KEY secret), or set AI_BASE_URL, AI_MODEL and AI_API_KEY for the platform; then call studio_produce again.',
  ].join('\n');
}

/**
 * The activity of `studio-produce-<id>`: the brief (and the drafts made before it) to the agent's
 * model, the answer recorded. A production already settled answers as recorded.
 */
export async function produceDraft(ctx: AppContext, productionId: string): Promise<{ status: 'succeeded' | 'failed' }> {
  const row: ProductionRow | undefined = await ctx.db('studio_productions').where({ id: productionId }).first();
  if (!row) throw new Error(`Studio production ${productionId} does not exist`);
  if (row.status === 'succeeded' || row.status === 'failed') return { status: row.status };
  await ctx.db('studio_productions').where({ id: productionId, status: 'queued' }).update({ status: 'running' });
  const session = await ctx.db('studio_sessions').where({ id: row.session_id }).first();
  const agent = await ctx.db('agents').where({ id: session.agent_id }).first();
  const [character, messages, earlier] = await Promise.all([
    characterOf(ctx.db, agent.id),
    ctx
      .db('studio_messages')
      .where({ session_id: session.id })
      .where('seq', '<=', row.through_seq)
      .orderBy('seq')
      .select('seq', 'content'),
    ctx
      .db('studio_productions')
      .where({ session_id: session.id, status: 'succeeded', generated: true })
      .where('n', '<', row.n)
      .orderBy('n')
      .select('through_seq', 'result'),
  ]);
  const apiKey = agent.model_base_url
    ? await secretValue(ctx.db, ctx.secretBox, session.team_id, agent.id, MODEL_API_KEY)
    : null;
  const model = modelFor(
    { agentBaseUrl: agent.model_base_url, agentModel: agent.model_name, agentApiKey: apiKey },
    ctx.config,
  );
  const brief = messages.map((m: { content: string }) => m.content);
  if (model.label === 'offline') {
    await settle(ctx, productionId, {
      status: 'succeeded',
      result: placeholder(session.title, agent.name, brief),
      generated: false,
      model: model.label,
      promptTokens: 0,
      completionTokens: 0,
    });
    return { status: 'succeeded' };
  }

  // The brief in order, each earlier draft after the messages it was made from.
  const system = [character?.persona, character?.instructions, STUDIO_INSTRUCTIONS, `Title: ${session.title}`]
    .filter(Boolean)
    .join('\n\n');
  const chat: ChatMessage[] = [{ role: 'system', content: system }];
  for (const message of messages as { seq: number; content: string }[]) {
    chat.push({ role: 'user', content: message.content });
    for (const draft of earlier.filter((d: { through_seq: number }) => d.through_seq === message.seq))
      chat.push({ role: 'assistant', content: draft.result });
  }
  chat.push({ role: 'user', content: row.instructions ?? 'Write the deliverable now.' });

  let text = '';
  let usage = { promptTokens: 0, completionTokens: 0 };
  try {
    for await (const event of model.stream({ messages: chat, tools: [] })) {
      if (event.type === 'text') text += event.text;
      if (event.type === 'finish') usage = event.usage;
    }
  } catch (err) {
    // Retryable (429, 5xx, a cut stream): the activity fails and Temporal asks again; otherwise it is the answer.
    if (err instanceof ModelError && !err.retryable) {
      await settle(ctx, productionId, {
        status: 'failed',
        error: errorBody('model_error', err.message, { status: err.status }),
      });
      return { status: 'failed' };
    }
    throw err;
  }
  // An empty answer is worth another attempt; when none helps, the workflow records the failure.
  if (!text.trim()) throw new Error('The model answered with no text');
  await settle(ctx, productionId, {
    status: 'succeeded',
    result: text.trim(),
    generated: true,
    model: model.label,
    ...usage,
  });
  return { status: 'succeeded' };
}

export const failProduction = (ctx: AppContext, productionId: string, error: ErrorBody) =>
  settle(ctx, productionId, { status: 'failed', error }).then(() => undefined);
