import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { characterOf } from '../agents/character';
import { topMemories } from '../agents/memorySearch';
import { relevantSkills } from '../agents/skills';
import { requestApproval } from '../deliveries/warps';
import type { AppContext, TeamRef } from '../platform/context';
import { AppError, notFound, parseOrThrow } from '../platform/errors';

/**
 * Lifecycle hooks of external agent runtimes on `POST /agents/{agentUuid}/hooks` (docs/HOOKS.md ›
 * Lifecycle): `session.start` answers the curated context, `permission.request` waits for a
 * person on the same approval gate as a sensitive write, and the rest (board auto-execution
 * callbacks, stop-hook adapters) are recorded. Every one is a row of `hook_lifecycle_events`.
 */

export const RECORDED_TYPES = ['board.callback', 'stop', 'session.end', 'notification'] as const;
export const LIFECYCLE_TYPES = ['session.start', 'permission.request', ...RECORDED_TYPES] as const;

const sessionId = z.string().max(200).optional().describe("The runtime's session id");
const requestId = z
  .string()
  .min(1)
  .max(200)
  .optional()
  .describe('Your id of this request: a repeat with the same id answers the first one’s outcome');

export const sessionStartSchema = z.looseObject({
  type: z.literal('session.start'),
  sessionId,
  /** What the session is about: ranks memories and skills; omitted, the important memories and every skill. */
  query: z.string().max(2000).optional(),
});
export const permissionRequestSchema = z.looseObject({
  type: z.literal('permission.request'),
  tool: z.string().trim().min(1).max(200).describe('The tool the runtime wants to use'),
  input: z.unknown().optional().describe("The tool's input, shown to the person who decides"),
  sessionId,
  requestId,
});
export const recordedEventSchema = z.looseObject({
  type: z.enum(RECORDED_TYPES),
  sessionId,
  requestId,
});
/** For the document: the body is one of these, chosen by `type`. */
export const lifecycleBodySchema = z.union([sessionStartSchema, permissionRequestSchema, recordedEventSchema]);

export const sessionContextSchema = z.object({
  type: z.literal('session.start'),
  agent: z.object({ id: z.string(), name: z.string() }),
  character: z.object({ persona: z.string().nullable(), instructions: z.string().nullable() }),
  memories: z.array(
    z.object({ id: z.string(), content: z.string(), tags: z.array(z.string()), importance: z.number() }),
  ),
  skills: z.array(z.object({ id: z.string(), name: z.string(), description: z.string(), instructions: z.string() })),
});

export const permissionAnswerSchema = z.object({
  type: z.literal('permission.request'),
  decision: z.enum(['approved', 'declined', 'expired', 'pending']),
  executionId: z.string(),
  requestId: z.string().nullable(),
  /** While pending: GET it with the same bearer key (it long-polls too). */
  pollUrl: z.url(),
});
export type PermissionAnswer = z.infer<typeof permissionAnswerSchema>;

export const recordedAnswerSchema = z.object({ type: z.string(), received: z.literal(true), id: z.string() });

/** `?wait=` on permission requests and their poll: seconds to hold the answer while nobody decided. */
export const MAX_WAIT_SECONDS = 25;
export const waitQuerySchema = z.object({
  wait: z.coerce.number().int().min(0).max(MAX_WAIT_SECONDS).default(MAX_WAIT_SECONDS).describe('Seconds, 0‥25'),
});

export interface HookAgent {
  teamId: string;
  agentId: string;
}

const newEventId = () => `hle_${randomBytes(12).toString('hex')}`;

/** The `type` first: an unknown one is a 400 that lists the known ones. */
export function lifecycleType(body: unknown): (typeof LIFECYCLE_TYPES)[number] {
  const type = (body as { type?: unknown })?.type;
  if (typeof type === 'string' && (LIFECYCLE_TYPES as readonly string[]).includes(type))
    return type as (typeof LIFECYCLE_TYPES)[number];
  throw new AppError(
    'validation_error',
    `Invalid body: type: ${typeof type === 'string' ? `unknown type ${type}` : 'required'}; known types: ${LIFECYCLE_TYPES.join(', ')}`,
    { knownTypes: LIFECYCLE_TYPES, issues: [{ path: 'type', message: 'unknown lifecycle type', code: 'custom' }] },
  );
}

async function record(
  ctx: AppContext,
  agent: HookAgent,
  body: { type: string; sessionId?: string; requestId?: string },
  executionId: string | null = null,
): Promise<{ id: string; execution_id: string | null }> {
  const values = {
    id: newEventId(),
    team_id: agent.teamId,
    agent_id: agent.agentId,
    type: body.type,
    session_id: body.sessionId ?? null,
    request_id: body.requestId ?? null,
    payload: JSON.stringify(body),
    execution_id: executionId,
  };
  const [row] = await ctx
    .db('hook_lifecycle_events')
    .insert(values)
    .onConflict(['agent_id', 'type', 'request_id'])
    .ignore()
    .returning(['id', 'execution_id']);
  if (row) return row;
  return ctx
    .db('hook_lifecycle_events')
    .where({ agent_id: agent.agentId, type: body.type, request_id: body.requestId })
    .first('id', 'execution_id');
}

export async function sessionStart(ctx: AppContext, agent: HookAgent, raw: unknown) {
  const body = parseOrThrow(sessionStartSchema, raw, 'body');
  const text = body.query ?? '';
  const [character, memories, skills] = await Promise.all([
    characterOf(ctx.db, agent.agentId),
    topMemories(ctx.db, agent.agentId, text, 10),
    text
      ? relevantSkills(ctx.db, agent.agentId, text, 20)
      : ctx
          .db('skills')
          .where({ agent_id: agent.agentId })
          .orderBy('seq')
          .limit(50)
          .select('id', 'name', 'description', 'instructions'),
  ]);
  if (!character) throw notFound('Agent');
  await record(ctx, agent, body);
  return {
    type: 'session.start' as const,
    agent: { id: agent.agentId, name: character.name },
    character: { persona: character.persona, instructions: character.instructions },
    memories: memories.map((m) => ({ id: m.id, content: m.content, tags: m.tags, importance: m.importance })),
    skills: skills.map((s) => ({ id: s.id, name: s.name, description: s.description, instructions: s.instructions })),
  };
}

export async function recordLifecycleEvent(ctx: AppContext, agent: HookAgent, raw: unknown) {
  const body = parseOrThrow(recordedEventSchema, raw, 'body');
  const row = await record(ctx, agent, body);
  return { type: body.type, received: true as const, id: row.id };
}

const pollUrl = (ctx: AppContext, agentId: string, executionId: string) =>
  `${ctx.config.baseUrl}/agents/${agentId}/hooks/permissions/${executionId}`;

/** Waits up to `waitSeconds` for a person's decision on the permission's execution. */
async function decision(
  ctx: AppContext,
  agent: HookAgent,
  executionId: string,
  requestId: string | null,
  waitSeconds: number,
): Promise<PermissionAnswer> {
  const deadline = Date.now() + waitSeconds * 1000;
  for (;;) {
    const row = await ctx
      .db('warp_executions')
      .where({ id: executionId, team_id: agent.teamId, agent_id: agent.agentId, warp: 'agent-permission' })
      .first('status');
    if (!row) throw notFound('Permission request');
    const status = row.status as string;
    const settled =
      status === 'running' || status === 'succeeded'
        ? 'approved'
        : status === 'declined' || status === 'failed'
          ? 'declined'
          : status === 'expired'
            ? 'expired'
            : null;
    if (settled || Date.now() >= deadline)
      return {
        type: 'permission.request',
        decision: settled ?? 'pending',
        executionId,
        requestId,
        pollUrl: pollUrl(ctx, agent.agentId, executionId),
      };
    await new Promise((r) => setTimeout(r, Math.min(250, Math.max(0, deadline - Date.now()))));
  }
}

/** Opens (or, for a repeated `requestId`, finds) the approval, then long-polls it. */
export async function permissionRequest(
  ctx: AppContext,
  agent: HookAgent,
  raw: unknown,
  waitSeconds: number,
): Promise<PermissionAnswer> {
  const body = parseOrThrow(permissionRequestSchema, raw, 'body');
  const requestId = body.requestId ?? null;
  let executionId: string | null = null;
  if (requestId)
    executionId =
      (
        await ctx
          .db('hook_lifecycle_events')
          .where({ agent_id: agent.agentId, type: 'permission.request', request_id: requestId })
          .first('execution_id')
      )?.execution_id ?? null;
  if (!executionId) {
    const team: TeamRef = await ctx.db('teams').where({ id: agent.teamId }).first('id', 'slug', 'plan');
    const args = {
      tool: body.tool,
      ...(body.input !== undefined ? { input: body.input } : {}),
      ...(body.sessionId ? { sessionId: body.sessionId } : {}),
      ...(requestId ? { requestId } : {}),
    };
    // Always a person's decision, whatever the agent's mode: the runtime asks because it must.
    const pending = await requestApproval(
      ctx,
      { team, agentId: agent.agentId, userId: null },
      'agent-permission',
      args,
    );
    const row = await record(
      ctx,
      agent,
      { type: 'permission.request', sessionId: body.sessionId, requestId: requestId ?? undefined, ...args },
      pending.executionId,
    );
    executionId = row.execution_id ?? pending.executionId;
  }
  return decision(ctx, agent, executionId, requestId, waitSeconds);
}

/** `GET /agents/{agentUuid}/hooks/permissions/{executionId}`: the same answer, long-polled. */
export async function pollPermission(ctx: AppContext, agent: HookAgent, executionId: string, waitSeconds: number) {
  const row = await ctx
    .db('hook_lifecycle_events')
    .where({ agent_id: agent.agentId, type: 'permission.request', execution_id: executionId })
    .first('request_id');
  if (!row) throw notFound('Permission request');
  return decision(ctx, agent, executionId, row.request_id, waitSeconds);
}
