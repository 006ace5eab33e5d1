import { Client, Connection, WorkflowExecutionAlreadyStartedError, type WorkflowOptions } from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import { AppError } from '../services/platform/errors';
import type { AnyWorkflowStart, ArgsOf } from '../workflows/contracts/start';
import {
  AutomationIdKey,
  BusinessIdKey,
  JobTypeKey,
  JourneyStepKey,
  TeamSlugKey,
} from '../workflows/contracts/searchAttributeKeys';

/** gRPC status codes that mean "Temporal did not answer", not "Temporal said no". */
const CANCELLED = 1;
const UNAVAILABLE = 14;
const DEADLINE_EXCEEDED = 4;
/** How close to its deadline a call may be cancelled by the server and still count as timed out. */
const DEADLINE_SLACK_MS = 50;

/**
 * The 503 a request gets when Temporal is down, frozen or too slow; the client retries after
 * `Retry-After`. `details` name what the request already stored (`jobId`, `executionId`).
 */
export const temporalUnavailable = (details?: Record<string, unknown>, neverReached = false) =>
  new TemporalUnavailable(details, neverReached);

export class TemporalUnavailable extends AppError {
  /**
   * @param neverReached true when the call certainly did not reach Temporal (no connection, or
   * refused); false when it ran out of time, so Temporal may still carry it out.
   */
  constructor(
    details: Record<string, unknown> | undefined,
    readonly neverReached: boolean,
  ) {
    super(
      'temporal_unavailable',
      'The workflow service (Temporal) is not answering; retry the request shortly',
      details,
      {
        'Retry-After': '5',
      },
    );
  }
}

type ErrorLike = { code?: unknown; cause?: unknown; message?: unknown };

/** `err` and its causes, the SDK's wrappers first and the gRPC error last (five deep at most). */
function* causeChain(err: unknown): Generator<ErrorLike> {
  for (let e = err as ErrorLike | undefined, depth = 0; e && depth < 5; e = e.cause as ErrorLike, depth++) yield e;
}

const messageMatches = (e: ErrorLike, pattern: RegExp) => typeof e.message === 'string' && pattern.test(e.message);

/** UNAVAILABLE (the SDK itself retries it as safe) or no connection at all: the call never arrived. */
function neverArrived(err: unknown): boolean {
  for (const e of causeChain(err)) {
    if (e.code === UNAVAILABLE || messageMatches(e, /connect ECONNREFUSED/i)) return true;
  }
  return false;
}

/** True when `err` (or one of its causes) is Temporal not answering rather than refusing. */
export function isTemporalUnreachable(err: unknown): boolean {
  for (const e of causeChain(err)) {
    if (e.code === UNAVAILABLE || e.code === DEADLINE_EXCEEDED) return true;
    if (messageMatches(e, /Failed to connect before the deadline|connect ECONNREFUSED|Deadline exceeded/i)) return true;
  }
  return false;
}

/**
 * A call the server cancelled at its deadline. A long poll (a workflow's result) that outlives its
 * deadline sometimes ends in the server resetting the stream (CANCELLED, "Call cancelled") a
 * moment before the client's own timer says DEADLINE_EXCEEDED; about one wait in twenty-five did.
 * It ran out of time all the same: nothing else here cancels a call.
 */
function cancelledAtDeadline(err: unknown, deadline: number): boolean {
  if (Date.now() < deadline - DEADLINE_SLACK_MS) return false;
  for (const e of causeChain(err)) if (e.code === CANCELLED) return true;
  return false;
}

/** What a start site adds to its workflow's declaration: whose it is, and what the Temporal UI says of it. */
export interface StartCall {
  /** Every workflow carries its team's `TeamSlug`. */
  team: { slug: string };
  staticSummary: string;
  staticDetails?: string;
}

/**
 * The options of a start of `start` (a contract's declaration, workflows/contracts/start.ts) with
 * `args`: its id, the task queue, its policies and its search attributes, the team's first.
 */
export function startOptions<S extends AnyWorkflowStart>(
  start: S,
  args: ArgsOf<S>,
  call: StartCall,
  taskQueue: string,
): WorkflowOptions & { args: [ArgsOf<S>]; typedSearchAttributes: SearchAttributePair[] } {
  const { JobType, BusinessId, AutomationId, JourneyStep } = start.searchAttributes(args);
  const typedSearchAttributes: SearchAttributePair[] = [
    { key: TeamSlugKey, value: call.team.slug },
    { key: JobTypeKey, value: JobType },
    { key: BusinessIdKey, value: BusinessId },
  ];
  if (AutomationId !== undefined) typedSearchAttributes.push({ key: AutomationIdKey, value: AutomationId });
  if (JourneyStep !== undefined) typedSearchAttributes.push({ key: JourneyStepKey, value: JourneyStep });
  return {
    workflowId: start.id(args),
    taskQueue,
    args: [args],
    ...(start.idReusePolicy && { workflowIdReusePolicy: start.idReusePolicy }),
    ...(start.idConflictPolicy && { workflowIdConflictPolicy: start.idConflictPolicy }),
    typedSearchAttributes,
    staticSummary: call.staticSummary,
    ...(call.staticDetails && { staticDetails: call.staticDetails }),
  };
}

/**
 * Starts the workflow, and answers false when Temporal already has its id (running, or closed
 * under `REJECT_DUPLICATE`): a start repeated by a retry, a replay or another worker's pass is
 * harmless. Through `call`, so Temporal away is a 503 `temporal_unavailable`.
 */
export async function startOnce<S extends AnyWorkflowStart>(
  temporal: Pick<TemporalGateway, 'call' | 'taskQueue'>,
  start: S,
  args: ArgsOf<S>,
  call: StartCall,
): Promise<boolean> {
  type Started = (args: ArgsOf<S>) => Promise<unknown>;
  try {
    await temporal.call((client) =>
      client.workflow.start<Started>(start.name, startOptions(start, args, call, temporal.taskQueue)),
    );
    return true;
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw err;
  }
}

export interface TemporalGatewayOptions {
  address: string;
  namespace: string;
  taskQueue: string;
  /** How long one call from a request may take before the request answers 503 (connect included). */
  requestTimeoutMs: number;
}

/**
 * The API's lazily opened connection to Temporal. A failed connect is forgotten, so the next
 * request tries again instead of the process staying broken. Every call made through `call` has
 * a deadline: without one the SDK retries UNAVAILABLE for about 20 s, and waits forever on a
 * frozen server, while the person who sent the request waits too.
 */
export class TemporalGateway {
  private pending?: Promise<Client>;

  private lastUnreachableAt = 0;

  constructor(readonly opts: TemporalGatewayOptions) {}

  get taskQueue(): string {
    return this.opts.taskQueue;
  }

  /** The raw client, without a deadline: for long waits that choose their own (see `call`). */
  client(): Promise<Client> {
    if (!this.pending) {
      this.pending = Connection.connect({
        address: this.opts.address,
        connectTimeout: this.opts.requestTimeoutMs,
        // After an outage, reconnect within a couple of seconds of Temporal coming back, not after
        // gRPC's default backoff (which grows to two minutes) has run out.
        channelArgs: { 'grpc.initial_reconnect_backoff_ms': 250, 'grpc.max_reconnect_backoff_ms': 2_000 },
      })
        .then((connection) => new Client({ connection, namespace: this.opts.namespace }))
        .catch((err) => {
          this.pending = undefined;
          throw err;
        });
    }
    return this.pending;
  }

  /**
   * Runs `fn` with a deadline on every Temporal call it makes. Temporal unreachable, frozen or
   * past the deadline → AppError 503 `temporal_unavailable`; any other error (already started,
   * not found, a failed update) passes through unchanged.
   */
  async call<T>(fn: (client: Client) => Promise<T>, timeoutMs = this.opts.requestTimeoutMs): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    try {
      const client = await withTimeout(this.client(), timeoutMs);
      return await client.withDeadline(deadline, () => fn(client));
    } catch (err) {
      if (err instanceof AppError) throw err;
      if (err instanceof ConnectTimeout) {
        this.lastUnreachableAt = Date.now();
        throw temporalUnavailable(undefined, true);
      }
      if (cancelledAtDeadline(err, deadline)) throw temporalUnavailable(undefined, false);
      if (isTemporalUnreachable(err)) {
        this.lastUnreachableAt = Date.now();
        throw temporalUnavailable(undefined, neverArrived(err));
      }
      throw err;
    }
  }

  /**
   * Starts the workflow of a row the caller has just written or moved (`start`: its contract's
   * declaration; `call`: its team and summary): every start made for a request goes through here
   * (jobs, deliveries, warp executions, private warps, sends to a contact, campaign runs, WhatsApp
   * templates, Studio productions). The passes that start what rows left unstarted (hook runs,
   * webhook batches, cohorts) use `startOnce`. A start that Temporal already has counts as done
   * (a repeated request). Any other
   * failure runs `onFailure`, which leaves the row where the same request can be made again (never a
   * state nothing can leave). It is told whether the start certainly never reached Temporal: one
   * that ran out of time may still be carried out, so a row that would then be doubled by a retry
   * (an execution) stays open for the retry to find, and reading it settles it; a campaign or
   * template is put back as it was read either way (its run stands down if it starts late); a job
   * needs nothing (it stays `queued` and is settled on read). Then it throws 503
   * `temporal_unavailable` carrying `details` (the row the client can read) when Temporal did not
   * answer, or the error itself when Temporal refused the start.
   */
  async startTracked<S extends AnyWorkflowStart>(
    start: S,
    args: ArgsOf<S>,
    call: StartCall,
    {
      onFailure,
      details,
    }: { onFailure?: (failure: { neverReached: boolean }) => Promise<unknown>; details?: Record<string, unknown> } = {},
  ): Promise<void> {
    try {
      await startOnce(this, start, args, call);
    } catch (err) {
      const unavailable = err instanceof TemporalUnavailable;
      await onFailure?.({ neverReached: unavailable ? err.neverReached : true });
      throw unavailable ? temporalUnavailable(details ?? err.details, err.neverReached) : err;
    }
  }

  /**
   * Waits up to `timeoutMs` for `fn` (a workflow's result, a query), or answers undefined. The call
   * is cancelled by its deadline rather than raced by a timer, which would leave it running (and
   * long-polling) after the request has answered.
   */
  async waitUpTo<T>(fn: (client: Client) => Promise<T>, timeoutMs: number): Promise<T | undefined> {
    try {
      return await this.call(fn, timeoutMs);
    } catch (err) {
      if (err instanceof TemporalUnavailable) return undefined;
      throw err;
    }
  }

  /** Answers within `timeoutMs` whatever state Temporal is in (down, frozen, slow). */
  async healthy(timeoutMs = 800): Promise<boolean> {
    try {
      await this.call((client) => (client.connection as Connection).healthService.check({}), timeoutMs);
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    // The SDK retries UNAVAILABLE on timers it never cancels, even past a call's deadline; one that
    // fires on a closed channel throws where nothing can catch it. Let them run out first.
    const settleMs = this.lastUnreachableAt + RETRY_TIMERS_SETTLE_MS - Date.now();
    if (settleMs > 0) await new Promise((resolve) => setTimeout(resolve, settleMs));
    const pending = this.pending;
    this.pending = undefined;
    if (pending) await (await pending.catch(() => undefined))?.connection.close();
  }
}

class ConnectTimeout extends Error {}

/** The SDK's longest retry delay (5 s) with its jitter (+20 %), and a margin. */
const RETRY_TIMERS_SETTLE_MS = 6_500;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ConnectTimeout(`no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
