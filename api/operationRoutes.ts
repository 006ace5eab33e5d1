import type { AppContext } from '../services/platform/context';
import type { Caller, Feature, Operation } from '../services/platform/operation';
import { authOf } from './auth';
import { idempotencyHeaderSchema, respondIdempotently } from './http';
import { json, locationHeader, noContent, Reply, ResponseSpec, Route, SuccessStatus } from './routeTable';

/** The HTTP face of an operation, as a route of the table (api/routeTable.ts runs and documents it). */
export function routeOf(ctx: AppContext, operation: Operation): Route {
  const face = operation.http;
  if (!face) throw new Error(`${operation.name} has no HTTP face`);
  const answer = face.answerSchema ?? operation.output;
  const responses: Partial<Record<SuccessStatus, ResponseSpec>> = {};
  if (face.status === 204) responses[204] = noContent(face.answer);
  else {
    if (!answer) throw new Error(`${operation.name} answers ${face.status} with no output schema`);
    responses[face.status] = json(answer, face.answer, face.location ? locationHeader : undefined);
  }
  for (const [status, [schema, description]] of Object.entries(face.otherAnswers ?? {})) {
    responses[Number(status) as SuccessStatus] = json(schema, description);
  }
  const toInput = (face.input ?? mergeParts) as (parts: Parts) => unknown;
  const scope = face.idempotent;
  const headers = scope
    ? face.headers
      ? face.headers.extend(idempotencyHeaderSchema.shape)
      : idempotencyHeaderSchema
    : face.headers;
  return {
    method: face.method,
    path: face.path,
    summary: face.summary,
    ...(face.description ? { description: face.description } : {}),
    tag: face.tag,
    access: operation.access.level,
    ...(face.params ? { params: face.params } : {}),
    ...(face.query ? { query: face.query } : {}),
    ...(headers ? { headers } : {}),
    ...(face.body ? { body: { kind: 'json', ...face.body } } : {}),
    responses,
    ...(face.errors ? { errors: face.errors } : {}),
    handler: async ({ req, res, params, query, headers, body }): Promise<Reply | void> => {
      const { team, principal } = authOf(req);
      const key = scope ? (headers as { 'idempotency-key'?: string })['idempotency-key'] : undefined;
      const caller: Caller = { team, principal, ...(key ? { idempotencyKey: key } : {}) };
      const answer = async (): Promise<Reply> => {
        const output = await operation.handler(ctx, caller, toInput({ params, query, headers, body }));
        if (face.reply) return face.reply(output as never, ctx);
        if (face.status === 204) return { status: 204 };
        return {
          status: face.status,
          body: output,
          ...(face.location ? { headers: { Location: face.location(output as never, ctx) } } : {}),
        };
      };
      // `respondIdempotently` writes the response itself, a replay included.
      if (scope)
        await respondIdempotently(ctx, req, res, scope, async () => ({ body: undefined, ...(await answer()) }));
      else return answer();
    },
  };
}

type Parts = { params: object; query: object; headers: object; body: unknown };

const mergeParts = ({ params, query, body }: Parts) => ({
  ...params,
  ...query,
  ...(body && typeof body === 'object' ? body : {}),
});

/** A feature's routes, in its operations' order. */
export const routesOf = (ctx: AppContext, feature: Feature): Route[] =>
  feature.operations.filter((operation) => operation.http).map((operation) => routeOf(ctx, operation));
