import { z } from 'zod';
import type { AppSlug } from '../agents/apps';
import type { Access, Principal } from '../identity/principal';
import type { AppContext, TeamRef } from './context';

/**
 * One operation of the product, declared once: its input and output, who may call it, its
 * handler, and the faces it shows. The HTTP route (api/operationRoutes.ts), the MCP tool
 * (`toolOf` below, listed by mcp/server.ts and offered in agents' turns) and the OpenAPI entry
 * are all made from this declaration, so a rule stated here holds on every surface.
 */

/** Who calls: the team, the credential, and on MCP the agent the connection acts as. */
export interface Caller {
  team: TeamRef;
  principal: Principal;
  /** The agent an MCP connection (or a turn) acts as; absent on HTTP. */
  agentId?: string;
  /** The apps the team has installed (MCP: read once per request). */
  installed?: Set<AppSlug>;
  /**
   * The key a write that starts durable work makes its start idempotent with: in an agent's turn the
   * tool call's id; on HTTP, for an `idempotent` face, the request's `Idempotency-Key`.
   */
  idempotencyKey?: string;
  /** A caller of another team at a public agent's /mcp/agents/{uuid}: `team` is then the agent's. */
  callerTeamId?: string;
}

/** The agent an MCP call acts as (every MCP connection has one). */
export function connectedAgent(caller: Caller): string {
  if (!caller.agentId) throw new Error('This operation runs only for a connected agent (MCP)');
  return caller.agentId;
}

/**
 * How an agent's turn may run a tool. `atomic` (the default): its writes commit in the transaction
 * of its tool-ledger row, so it happens exactly once. `startsWork`: it starts durable work in
 * Temporal (a job, a campaign run), which must not start before its rows commit: it runs after its
 * ledger row is marked running, keyed by the call id where it takes a key. `never`: not offered in
 * turns (minting credentials, an agent prompting itself, deliveries until a turn can wait on their
 * own approval).
 */
export type InTurns = 'atomic' | 'startsWork' | 'never';

export interface OperationAccess {
  /** Reads need scope mcp:read and cost 1 MCP credit; writes mcp:write and 2. */
  level: Access;
  /** On MCP, `core` tools are always listed; the others once the team installs their app. */
  app: 'core' | AppSlug;
  /** How an agent's turn runs it (default `atomic`). */
  inTurns?: InTurns;
  /**
   * It starts durable work whatever `inTurns` says (one `never` in turns may still start a workflow):
   * a private warp's tool step runs it outside the step's transaction. `inTurns: 'startsWork'` and
   * `sensitive` imply it.
   */
  startsWork?: true;
  /**
   * A sensitive write, by its warp (a key of `sensitiveWrites`, services/catalog/sensitiveWrites.ts): on
   * MCP and in turns, for an agent in manual mode it waits for a person and answers `pending: true`;
   * its MCP arguments are the warp's. HTTP callers are people and run the handler at once.
   */
  sensitive?: string;
}

type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A JSON body, validated before the handler runs. */
export interface JsonBody<S extends z.ZodType = z.ZodType> {
  schema: S;
  /** An absent body is read as `{}`. */
  optional?: boolean;
  limit?: 'BODY_LIMIT' | 'JOB_BODY_LIMIT';
  /** Runs on the object before `schema`: a refusal more telling than the schema's (an unknown job type). */
  precheck?: (body: Record<string, unknown>) => void;
}

export interface HttpParts<
  P extends z.ZodObject | undefined,
  Q extends z.ZodObject | undefined,
  H extends z.ZodObject | undefined,
  B extends JsonBody | undefined,
> {
  params: P extends z.ZodObject ? z.infer<P> : Record<string, never>;
  query: Q extends z.ZodObject ? z.infer<Q> : Record<string, never>;
  headers: H extends z.ZodObject ? z.infer<H> : Record<string, never>;
  body: B extends JsonBody<infer S> ? z.infer<S> : Record<string, never>;
}

/** What an HTTP face answers besides its output: a status and headers chosen from the result. */
export interface HttpReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface HttpFace<
  I,
  O,
  P extends z.ZodObject | undefined = z.ZodObject | undefined,
  Q extends z.ZodObject | undefined = z.ZodObject | undefined,
  H extends z.ZodObject | undefined = z.ZodObject | undefined,
  B extends JsonBody | undefined = JsonBody | undefined,
> {
  method: HttpMethod;
  /** OpenAPI style, relative to /v1: `/campaigns/{campaignId}`. */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  /** The success status (204 answers no body). */
  status: 200 | 201 | 202 | 204;
  /** What the answer is, for the document: "The campaign". */
  answer: string;
  params?: P;
  query?: Q;
  /** Headers the handler reads (the team header is implied by the access). */
  headers?: H;
  body?: B;
  /** The handler's input from the parsed parts; by default `{ ...params, ...query, ...body }`. */
  input?: (parts: HttpParts<P, Q, H, B>) => I;
  /** The answer's `Location`, from the output (the created resource). */
  location?: (output: O, ctx: AppContext) => string;
  /** Another answer than `status` with the output, chosen from it (documented in `responses`). */
  reply?: (output: O, ctx: AppContext) => HttpReply;
  /** Answers besides `status`, for the document: status → [schema, description]. */
  otherAnswers?: Partial<Record<200 | 201 | 202 | 403 | 409, [z.ZodType, string]>>;
  /** The body schema the document gives for the answer, when it is not `output`. */
  answerSchema?: z.ZodType;
  /**
   * Answers once per `Idempotency-Key`: the route takes the header, a repeat of the same body replays
   * the first response (`Idempotent-Replayed: true`), and the handler gets the key as
   * `caller.idempotencyKey`. The value scopes the stored keys (`contacts.create`): never rename it.
   */
  idempotent?: string;
  /** Error statuses this route adds to those its access, parameters and body imply (services/platform/errorCatalog.ts). */
  errors?: number[];
}

export interface McpFace<I> {
  name: string;
  title: string;
  /** What a model reads to call it right: when to use it, what comes back, what to call next. */
  description: string;
  /** The tool's arguments, when they are not the operation's `input` (an MCP id that HTTP takes in the path). */
  input?: z.ZodType;
  /** The handler's input from the tool's arguments (default: the arguments). */
  toInput?: (args: never, caller: Caller) => I;
  /** What the tool answers, when it is not the handler's output. */
  result?: (output: never) => unknown;
}

export interface Operation<I = unknown, O = unknown> {
  /** `feature.verb`: `campaigns.stats`. Logged, and the key of the catalog. */
  name: string;
  access: OperationAccess;
  /** The handler's input, validated: MCP's arguments; HTTP's come from its parts. */
  input?: z.ZodType;
  /** The answer: OpenAPI describes it, and the handler's return type is checked against it. */
  output?: z.ZodType;
  handler(ctx: AppContext, caller: Caller, input: I): Promise<O>;
  http?: HttpFace<I, O>;
  mcp?: McpFace<I>;
}

type Merged<P, Q, B> = (P extends z.ZodObject ? z.infer<P> : unknown) &
  (Q extends z.ZodObject ? z.infer<Q> : unknown) &
  (B extends JsonBody<infer S> ? z.infer<S> : unknown);

/**
 * Declares an operation. The type parameters make the handler's input the input schema's type
 * (or, for an HTTP-only operation, its parts merged) and its return the output schema's type.
 */
export function defineOperation<
  S extends z.ZodType | undefined = undefined,
  OS extends z.ZodType | undefined = undefined,
  P extends z.ZodObject | undefined = undefined,
  Q extends z.ZodObject | undefined = undefined,
  H extends z.ZodObject | undefined = undefined,
  B extends JsonBody | undefined = undefined,
>(operation: {
  name: string;
  access: OperationAccess;
  input?: S;
  output?: OS;
  handler(ctx: AppContext, caller: Caller, input: InputOf<S, P, Q, B>): Promise<OutputOf<OS>>;
  http?: HttpFace<InputOf<S, P, Q, B>, OutputOf<OS>, P, Q, H, B>;
  mcp?: McpFace<InputOf<S, P, Q, B>>;
}): Operation {
  return operation as unknown as Operation;
}

type InputOf<S, P, Q, B> = S extends z.ZodType ? z.infer<S> : Merged<P, Q, B>;
/** Without an output schema (204), whatever the handler answers is dropped. */
type OutputOf<OS> = OS extends z.ZodType ? z.input<OS> : unknown;

/** A feature's operations, in the order its routes appear in the API document. */
export interface Feature {
  name: string;
  operations: Operation[];
}

/** An MCP argument that names a thing by its id. */
export const id = (what: string) => z.string().min(1).max(100).describe(`The ${what} id`);

export const PENDING_NOTE =
  'When the agent is in manual mode this answers { pending: true, executionId } instead: a person approves or ' +
  'declines it; poll check_warp_executions with the executionId and do not repeat the call.';
