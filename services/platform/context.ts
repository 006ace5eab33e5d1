import path from 'node:path';
import type { Logger } from 'pino';
import { Config, rateLimitSettings } from '../../config';
import type { Db } from '../../db/knex';
import { TemporalGateway } from '../../temporal/client';
import { RateLimits } from './rateLimits';
import { loadSecretsKey, SecretBox } from './secretBox';
import { LocalDiskStorage, MediaStorage } from '../media/storage';

/** What every service function needs: the read model, Temporal, and settings. */
export interface AppContext {
  db: Db;
  temporal: TemporalGateway;
  config: Config;
  logger: Logger;
  rateLimits: RateLimits;
  /** Encrypts provider secrets; signs approval and download links. */
  secretBox: SecretBox;
  /** Where team media lives. */
  storage: MediaStorage;
}

/** The team a request acts for, resolved from `X-Team-Slug` after authentication. */
export interface TeamRef {
  id: string;
  slug: string;
  plan: string;
}

/** The context of a process (API or worker): a lazy Temporal client, the secrets key, the media store. */
export function buildAppContext(config: Config, db: Db, logger: Logger): AppContext {
  return {
    db,
    temporal: new TemporalGateway({
      address: config.TEMPORAL_ADDRESS,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      requestTimeoutMs: config.TEMPORAL_REQUEST_TIMEOUT_MS,
    }),
    config,
    logger,
    rateLimits: new RateLimits(db, rateLimitSettings(config)),
    secretBox: new SecretBox(loadSecretsKey(config)),
    storage: new LocalDiskStorage(path.join(config.dataDir, 'media')),
  };
}
