import type { Logger } from 'pino';
import type { Config } from '../config';
import type { Db } from '../db/knex';
import type { TemporalGateway } from '../temporal/client';
import type { RateLimits } from './rateLimits';
import type { SecretBox } from './secretBox';

/** What every service function needs: the read model, Temporal, and settings. */
export interface AppContext {
  db: Db;
  temporal: TemporalGateway;
  config: Config;
  logger: Logger;
  rateLimits: RateLimits;
  /** Encrypts provider secrets; signs approval and download links. */
  secretBox: SecretBox;
}

/** The team a request acts for, resolved from `X-Team-Slug` after authentication. */
export interface TeamRef {
  id: string;
  slug: string;
  plan: string;
}
