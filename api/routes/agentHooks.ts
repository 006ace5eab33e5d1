import type { Request } from 'express';
import { z } from 'zod';
import { agentExists, agentForKey } from '../../services/hooks/authKeys';
import { deliveryIdOf, inboundAnswerSchema, receiveInbound } from '../../services/hooks/inbound';
import {
  lifecycleBodySchema,
  lifecycleType,
  permissionAnswerSchema,
  permissionRequest,
  pollPermission,
  recordedAnswerSchema,
  recordLifecycleEvent,
  sessionContextSchema,
  sessionStart,
  waitQuerySchema,
} from '../../services/hooks/lifecycle';
import type { AppContext } from '../../services/platform/context';
import { AppError, notFound } from '../../services/platform/errors';
import { defineRoute, json, Route } from '../routeTable';

const TAG = 'Agent hooks';
const agentParams = z.object({ agentUuid: z.string().min(1).max(100) });
const hooksQuery = waitQuerySchema.extend({
  source: z.string().min(1).max(64).optional().describe('An inbound hook source; omitted: a lifecycle hook'),
});

/** The bearer AGENT_AUTH_KEY of the agent the path names; an unknown agent is 404, a wrong key 401. */
async function authenticate(ctx: AppContext, req: Request, agentUuid: string) {
  if (!(await agentExists(ctx.db, agentUuid))) throw notFound('Agent');
  const agent = await agentForKey(ctx.db, agentUuid, req.headers.authorization);
  if (!agent)
    throw new AppError(
      'unauthorized',
      'A valid AGENT_AUTH_KEY of this agent is required (Authorization: Bearer ak_…)',
      undefined,
      {
        'WWW-Authenticate': 'Bearer realm="agent-hooks"',
      },
    );
  return agent;
}

function jsonOf(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new AppError('validation_error', 'Invalid body: the request body must be JSON', {
      issues: [{ path: '', message: 'not JSON', code: 'invalid_json' }],
    });
  }
}

/**
 * The agent hooks path of the spec (docs/HOOKS.md): external runtimes and systems call it with
 * the agent's AGENT_AUTH_KEY, not a team credential. `?source=` makes it an inbound hook.
 */
export function agentHooksRoutes(ctx: AppContext): Route[] {
  return [
    defineRoute({
      method: 'post',
      path: '/agents/{agentUuid}/hooks',
      tag: TAG,
      access: 'public',
      summary: 'Inbound hook (?source=) or lifecycle hook (body type) of an external runtime; Bearer AGENT_AUTH_KEY',
      description:
        'With ?source=<source>: the JSON payload is mapped and every enabled inbound hook of the agent for that ' +
        'source runs its warp; the delivery id (webhook-id header, else Idempotency-Key, else the body’s sha256) ' +
        'makes a replay run nothing twice; 202 with the runs. Without source: a lifecycle hook by body type: ' +
        'session.start (200, character, memories, skills), permission.request (200 with the decision, or 202 ' +
        'pending with a pollUrl after ?wait= seconds, at most 25), board.callback, stop, session.end, ' +
        'notification (202, recorded).',
      params: agentParams,
      query: hooksQuery,
      body: { kind: 'raw', schema: lifecycleBodySchema, contentType: 'application/json', limit: '256kb' },
      responses: {
        200: json(z.union([sessionContextSchema, permissionAnswerSchema]), 'session.start context, or a decision'),
        202: json(
          z.union([inboundAnswerSchema, permissionAnswerSchema, recordedAnswerSchema]),
          'Inbound runs, a pending permission, or a recorded event',
        ),
      },
      errors: [401, 404],
      handler: async ({ req, params, query, body }) => {
        const agent = await authenticate(ctx, req, params.agentUuid);
        const payload = jsonOf(body);
        if (query.source !== undefined)
          return {
            status: 202,
            body: await receiveInbound(ctx, agent, query.source, deliveryIdOf(req.headers, body), payload),
          };
        switch (lifecycleType(payload)) {
          case 'session.start':
            return { status: 200, body: await sessionStart(ctx, agent, payload) };
          case 'permission.request': {
            const answer = await permissionRequest(ctx, agent, payload, query.wait);
            return answer.decision === 'pending'
              ? { status: 202, body: answer, headers: { Location: answer.pollUrl } }
              : { status: 200, body: answer };
          }
          default:
            return { status: 202, body: await recordLifecycleEvent(ctx, agent, payload) };
        }
      },
    }),
    defineRoute({
      method: 'get',
      path: '/agents/{agentUuid}/hooks/permissions/{executionId}',
      tag: TAG,
      access: 'public',
      summary: 'Poll a permission.request (long poll up to ?wait= seconds, at most 25); Bearer AGENT_AUTH_KEY',
      params: agentParams.extend({ executionId: z.string().min(1).max(100) }),
      query: waitQuerySchema,
      responses: {
        200: json(permissionAnswerSchema, 'Decided: approved, declined or expired'),
        202: json(permissionAnswerSchema, 'Still pending'),
      },
      errors: [401, 404],
      handler: async ({ req, params, query }) => {
        const agent = await authenticate(ctx, req, params.agentUuid);
        const answer = await pollPermission(ctx, agent, params.executionId, query.wait);
        return { status: answer.decision === 'pending' ? 202 : 200, body: answer };
      },
    }),
  ];
}
