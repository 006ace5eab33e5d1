import { RateLimiterAbstract, RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { z } from 'zod';
import type { Db } from '../../db/knex';
import { AppError } from './errors';

/** A window: at most `requests` per `perSeconds`. */
export const windowSchema = z.object({
  requests: z.number().int().positive(),
  perSeconds: z.number().int().positive(),
});
export type RateWindow = z.infer<typeof windowSchema>;

/** API request quotas per team plan; a plan not listed gets `free`'s. */
export const planLimitsSchema = z
  .record(z.string(), windowSchema)
  .refine((plans) => 'free' in plans, 'a "free" plan is required');
export type PlanLimits = z.infer<typeof planLimitsSchema>;

export interface RateLimitSettings {
  plans: PlanLimits;
  /** Failed logins per account (email) and per client address at the authorization page. */
  loginPerAccount: RateWindow;
  loginPerAddress: RateWindow;
  /** Dynamic client registrations per client address. */
  registrationPerAddress: RateWindow;
}

/** The counters live in Postgres (table `rate_limits`), so every API process shares them. */
export function createLimiter(db: Db, keyPrefix: string, window: RateWindow): RateLimiterAbstract {
  return new RateLimiterPostgres({
    storeClient: db,
    storeType: 'knex',
    tableName: 'rate_limits',
    tableCreated: true,
    keyPrefix,
    points: window.requests,
    duration: window.perSeconds,
    // Should Postgres fail, each process keeps counting on its own rather than letting every request through.
    insuranceLimiter: new RateLimiterMemory({ keyPrefix, points: window.requests, duration: window.perSeconds }),
  });
}

export interface RateDecision {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

export const rateLimitHeaders = (d: RateDecision): Record<string, string> => ({
  'RateLimit-Limit': String(d.limit),
  'RateLimit-Remaining': String(d.remaining),
  'RateLimit-Reset': String(d.resetSeconds),
});

export const rateLimited = (d: RateDecision, message: string) =>
  new AppError(
    'rate_limited',
    message,
    { limit: d.limit, retryAfterSeconds: d.resetSeconds },
    {
      ...rateLimitHeaders(d),
      'Retry-After': String(d.resetSeconds),
    },
  );

const decision = (limit: number, res: RateLimiterRes): RateDecision => ({
  limit,
  remaining: Math.max(0, res.remainingPoints),
  resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
});

const planLimitMessage = (window: RateWindow) =>
  `Rate limit of ${window.requests} requests per ${window.perSeconds} s reached for this team; retry later`;

/** Every quota of the service, one place. */
export class RateLimits {
  private readonly plans = new Map<string, { window: RateWindow; limiter: RateLimiterAbstract }>();
  /** Per plan, its window in ms, as JSON for `apiRequestCount` (a plan not listed counts as free). */
  private readonly windowsMs: string;
  private readonly loginAccount: RateLimiterAbstract;
  private readonly loginAddress: RateLimiterAbstract;
  private readonly registration: RateLimiterAbstract;

  constructor(
    db: Db,
    private readonly settings: RateLimitSettings,
  ) {
    for (const [plan, window] of Object.entries(settings.plans))
      this.plans.set(plan, { window, limiter: createLimiter(db, `api:${plan}`, window) });
    this.windowsMs = JSON.stringify(
      Object.fromEntries([...this.plans].map(([plan, { window }]) => [plan, window.perSeconds * 1000])),
    );
    this.loginAccount = createLimiter(db, 'login:account', settings.loginPerAccount);
    this.loginAddress = createLimiter(db, 'login:address', settings.loginPerAddress);
    this.registration = createLimiter(db, 'register:address', settings.registrationPerAddress);
  }

  /** Counts one API request of the team; throws 429 `rate_limited` past the plan's quota. */
  async consumeApiRequest(team: { id: string; plan: string }): Promise<RateDecision> {
    const { window, limiter: planLimiter } = this.plans.get(team.plan) ?? this.plans.get('free')!;
    try {
      return decision(window.requests, await planLimiter.consume(team.id));
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      throw rateLimited(decision(window.requests, rejection), planLimitMessage(window));
    }
  }

  /**
   * `consumeApiRequest` as one statement a query can carry along (a CTE), so that authenticating
   * a request and counting it take one round trip: `from` names a row source, `teamId` and `plan`
   * its columns of the team (null: nothing is counted) and the team's plan. Same table, keys, window and reset rule as
   * the limiter (rate-limiter-flexible's upsert); the statement returns `points` and `expire`,
   * which `apiDecision` turns into the answer.
   */
  apiRequestCount(
    from: string,
    { teamId, plan: planColumn }: { teamId: string; plan: string },
    now = Date.now(),
  ): { sql: string; bindings: (string | number)[] } {
    const windows = this.windowsMs;
    const plan = `CASE WHEN (?::jsonb ->> ${planColumn}) IS NULL THEN 'free' ELSE ${planColumn} END`;
    return {
      sql: `INSERT INTO rate_limits (key, points, expire)
            SELECT 'api:' || ${plan} || ':' || ${teamId}::text, 1, ?::bigint + (?::jsonb ->> ${plan})::bigint
              FROM ${from} WHERE ${teamId} IS NOT NULL
            ON CONFLICT (key) DO UPDATE SET
              points = CASE WHEN rate_limits.expire <= ?::bigint THEN 1 ELSE rate_limits.points + 1 END,
              expire = CASE WHEN rate_limits.expire <= ?::bigint THEN excluded.expire ELSE rate_limits.expire END
            RETURNING points, expire`,
      bindings: [windows, now, windows, windows, now, now],
    };
  }

  /** The decision on a request `apiRequestCount` counted; throws 429 `rate_limited` past the quota. */
  apiDecision(
    plan: string,
    counted: { points: number; expire: number | string | null },
    now = Date.now(),
  ): RateDecision {
    const { window } = this.plans.get(plan) ?? this.plans.get('free')!;
    const expire = counted.expire === null ? null : Number(counted.expire);
    const res = new RateLimiterRes(
      Math.max(window.requests - counted.points, 0),
      expire === null ? -1 : Math.max(expire - now, 0),
      counted.points,
    );
    const made = decision(window.requests, res);
    if (counted.points > window.requests) throw rateLimited(made, planLimitMessage(window));
    return made;
  }

  /** Seconds until a login for this account from this address may be tried again; 0: now. */
  async loginBlockedFor(email: string, address: string): Promise<number> {
    const [account, addr] = await Promise.all([
      this.loginAccount.get(accountKey(email)),
      this.loginAddress.get(address),
    ]);
    const blocked = [
      [account, this.settings.loginPerAccount.requests] as const,
      [addr, this.settings.loginPerAddress.requests] as const,
    ].filter(([res, max]) => res && res.consumedPoints >= max);
    return blocked.length ? Math.max(...blocked.map(([res]) => Math.ceil(res!.msBeforeNext / 1000))) : 0;
  }

  async recordLoginFailure(email: string, address: string): Promise<void> {
    await Promise.all([this.loginAccount.penalty(accountKey(email), 1), this.loginAddress.penalty(address, 1)]);
  }

  async recordLoginSuccess(email: string): Promise<void> {
    await this.loginAccount.delete(accountKey(email));
  }

  /** Counts one client registration from `address`; throws 429 past the quota. */
  async consumeRegistration(address: string): Promise<RateDecision> {
    const window = this.settings.registrationPerAddress;
    try {
      return decision(window.requests, await this.registration.consume(address));
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      throw rateLimited(
        decision(window.requests, rejection),
        'Too many client registrations from this address; retry later',
      );
    }
  }
}

const accountKey = (email: string) => email.trim().toLowerCase();
