// What the console's endpoint functions (endpoints.js) take and answer, read from the types
// generated from the OpenAPI document (openapi.d.ts, `npm run console:types`).
import type { components, paths } from './openapi';

export type Path = keyof paths;
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Operation<P extends Path, M extends Method> = NonNullable<paths[P][M]>;
type JsonOf<T> = T extends { content: { 'application/json': infer J } } ? J : undefined;
type Success = 200 | 201 | 202 | 204;

/** The JSON an operation answers on success (its 200, 201, 202 or 204; `undefined` for no body). */
export type Ok<P extends Path, M extends Method> =
  Operation<P, M> extends { responses: infer R } ? JsonOf<R[Extract<keyof R, Success>]> : never;
/** The JSON body an operation takes. */
export type Body<P extends Path, M extends Method> =
  Operation<P, M> extends { requestBody?: infer B } ? JsonOf<NonNullable<B>> : never;
/** The query parameters an operation takes. */
export type Query<P extends Path, M extends Method> =
  Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
/** One item of a list operation's `data`. */
export type Item<P extends Path, M extends Method = 'get'> = Ok<P, M> extends { data: (infer I)[] } ? I : never;

/** The API's error envelope (`{ error: { code, message, details? } }`). */
export type ErrorEnvelope = components['schemas']['Error'];

/**
 * An answer of /app/api. `body` is typed as the operation's success JSON (`T`): it is that when
 * `status` is the operation's success status, which every caller checks before reading it; any
 * other status carries the error envelope, read through `errorText(answer)`.
 */
export interface Answer<T> {
  status: number;
  body: T;
}

/** A page of a list: what pagedList asks for (the API's keyset paging). */
export interface PageAsked {
  limit: number;
  cursor?: string;
}
