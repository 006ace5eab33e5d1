import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Db } from '../../db/knex';
import { createLimiter, type RateWindow } from '../platform/rateLimits';

/**
 * The sign-up quotas of docs/FORMS.md: per client address (across forms, so one client cannot
 * spray every form) and per form (across addresses, so a botnet cannot flood one list). Counted
 * in Postgres like the login limits, so every API process shares them.
 */
export interface FormLimitSettings {
  FORM_LIMIT_PER_ADDRESS: RateWindow;
  FORM_LIMIT_PER_FORM: RateWindow;
}

type Limiters = { address: RateLimiterAbstract; form: RateLimiterAbstract };
/** Built once per database handle and settings (a process has one of each; a test may start two APIs). */
const built = new WeakMap<Db, Map<string, Limiters>>();

function limitersOf(db: Db, settings: FormLimitSettings): Limiters {
  const key = JSON.stringify([settings.FORM_LIMIT_PER_ADDRESS, settings.FORM_LIMIT_PER_FORM]);
  const forDb = built.get(db) ?? new Map<string, Limiters>();
  built.set(db, forDb);
  let limiters = forDb.get(key);
  if (!limiters) {
    limiters = {
      address: createLimiter(db, 'form:address', settings.FORM_LIMIT_PER_ADDRESS),
      form: createLimiter(db, 'form:form', settings.FORM_LIMIT_PER_FORM),
    };
    forDb.set(key, limiters);
  }
  return limiters;
}

/**
 * Counts one submission; answers the seconds to wait when a quota is spent, else 0. The address
 * is counted first and a refused one stops there: one noisy client cannot spend a form's quota.
 */
export async function consumeSubmission(
  db: Db,
  settings: FormLimitSettings,
  address: string,
  formId: string,
): Promise<number> {
  const limiters = limitersOf(db, settings);
  try {
    await limiters.address.consume(address);
    await limiters.form.consume(formId);
    return 0;
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    return Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
  }
}
