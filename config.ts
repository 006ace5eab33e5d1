import path from 'node:path';
import { z } from 'zod';

/** Every setting the processes read from the environment, parsed once. */
const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  /** Public root of the HTTP API; its path ends in /v1 (spec: {base_url}). */
  BASE_URL: z.string().url().optional(),
  /** Public host of MCP, OAuth and the site (spec: {mcp_url}, {auth_url}, {site_url}). */
  PUBLIC_URL: z.string().url().optional(),
  DATA_DIR: z.string().default('.data'),
  /** Unset: an embedded Postgres under DATA_DIR. */
  DATABASE_URL: z.string().optional(),
  EMBEDDED_PG_PORT: z.coerce.number().int().default(54329),
  /** Unset: the Temporal CLI dev server that `npm start` runs. */
  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default('team-agent-platform'),
  TEMPORAL_UI_PORT: z.coerce.number().int().default(8233),
  /** A prebuilt workflow bundle (scripts/bundle-workflows.ts); unset: bundled at worker start. */
  WORKFLOW_BUNDLE_PATH: z.string().optional(),
  /** Bearer token that may read the API's /metrics from anywhere; unset: loopback callers only. */
  METRICS_TOKEN: z.string().min(16).optional(),
  /** Where the worker serves Temporal SDK metrics for Prometheus (e.g. 0.0.0.0:9464); unset: off. */
  WORKER_METRICS_BIND: z.string().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Rows per contacts.import activity; each batch is one activity with heartbeats. */
  IMPORT_BATCH_SIZE: z.coerce.number().int().min(1).max(5000).default(2000),
  /** Largest JSON body accepted on POST /v1/jobs (imports carry their rows inline). */
  JOB_BODY_LIMIT: z.string().default('64mb'),
  BODY_LIMIT: z.string().default('1mb'),
});

export type Config = z.infer<typeof envSchema> & { baseUrl: string; publicUrl: string; dataDir: string };

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.parse(env);
  const publicUrl = (parsed.PUBLIC_URL ?? `http://localhost:${parsed.PORT}`).replace(/\/$/, '');
  const baseUrl = (parsed.BASE_URL ?? `${publicUrl}/v1`).replace(/\/$/, '');
  return { ...parsed, publicUrl, baseUrl, dataDir: path.resolve(parsed.DATA_DIR) };
}
