import { STATUS_CODES } from 'node:http';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { errorBodySchema, type ErrorBody } from '../services/platform/errors';

/** The alternative error media type the spec allows (RFC 9457), answered when the client's Accept prefers it. */
export const PROBLEM_JSON = 'application/problem+json';

/**
 * An error as RFC 9457 problem details: `type` about:blank (the problem is the HTTP status, so
 * `title` is its phrase), `detail` the envelope's message, `instance` the path asked for, and the
 * envelope's `code` and `details` as extension members.
 */
export const problemSchema = z.object({
  type: z.string().describe('about:blank: the problem is described by the status; `code` names it exactly'),
  title: z.string().describe("The HTTP status's phrase"),
  status: z.number().int(),
  detail: z.string().describe("The envelope's message"),
  instance: z.string().describe('The path of the request (without its query)'),
  code: z.string().describe("The envelope's machine-readable code (docs/API.md)"),
  details: z.record(z.string(), z.unknown()).optional().describe("The envelope's details, when it has any"),
});
export type Problem = z.infer<typeof problemSchema>;

/** Whether the request's Accept prefers problem+json to plain JSON (no Accept, or any other: the envelope). */
export const wantsProblemJson = (req: Request): boolean =>
  req.accepts(['application/json', PROBLEM_JSON]) === PROBLEM_JSON;

export function problemOf(status: number, { error }: ErrorBody, instance: string): Problem {
  return {
    type: 'about:blank',
    title: STATUS_CODES[status] ?? 'Error',
    status,
    detail: error.message,
    instance,
    code: error.code,
    ...(error.details ? { details: error.details } : {}),
  };
}

/** Answers an error in the form the client asked for: problem+json if its Accept prefers it, else the envelope. */
export function sendError(req: Request, res: Response, status: number, body: ErrorBody): void {
  res.vary('Accept');
  if (!wantsProblemJson(req)) {
    res.status(status).json(body);
    return;
  }
  res
    .status(status)
    .type(PROBLEM_JSON)
    .json(problemOf(status, body, req.originalUrl.split('?')[0]));
}

/** A stored answer that is an error envelope (an idempotent replay of a refusal). */
export const isErrorBody = (status: number, body: unknown): body is ErrorBody =>
  status >= 400 && errorBodySchema.safeParse(body).success;
