import path from 'node:path';
import { z } from 'zod';
import { planLimitsSchema, RateLimitSettings, windowSchema } from './services/platform/rateLimits';

/** `N/S`: at most N per S seconds. */
const windowSetting = z
  .string()
  .regex(/^\d+\/\d+$/, 'write it as <requests>/<seconds>, e.g. 5/900')
  .transform((value) => {
    const [requests, perSeconds] = value.split('/').map(Number);
    return windowSchema.parse({ requests, perSeconds });
  });

/** Every setting the processes read from the environment, parsed once. */
const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  /** Public root of the HTTP API; its path ends in /v1 (spec: {base_url}). Default `$PUBLIC_URL/v1`. */
  BASE_URL: z.string().url().optional(),
  /** The public host of everything the four settings below leave unset. Default `http://localhost:$PORT`. */
  PUBLIC_URL: z.string().url().optional(),
  /** The MCP host (spec: {mcp_url}): `/mcp`, its agent and app endpoints, room streams. */
  MCP_URL: z.string().url().optional(),
  /** The authorization server (spec: {auth_url}): the OAuth issuer, its endpoints and sign-in pages. */
  AUTH_URL: z.string().url().optional(),
  /** The public site (spec: {site_url}): the server card, protected-resource metadata, the console. */
  SITE_URL: z.string().url().optional(),
  DATA_DIR: z.string().default('.data'),
  /** Unset: an embedded Postgres under DATA_DIR. */
  DATABASE_URL: z.string().optional(),
  EMBEDDED_PG_PORT: z.coerce.number().int().default(54329),
  /** Unset: the Temporal CLI dev server that `npm start` runs. */
  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default('team-agent-platform'),
  TEMPORAL_UI_PORT: z.coerce.number().int().default(8233),
  /** How long a request waits on one Temporal call (connect included) before it answers 503 `temporal_unavailable`. */
  TEMPORAL_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5000),
  /**
   * How long a request waits on Postgres (a connection, a pool slot, one statement) before it
   * answers 503 `database_unavailable`; the worker connects within it and, when a statement has
   * waited this long, probes whether the server still answers (db/knex.ts › DatabaseDeadline).
   * Below 5 s so that the answer, the request's own work included, arrives within 5 s.
   */
  DATABASE_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(4000),
  /** A prebuilt workflow bundle (scripts/bundle-workflows.ts); unset: bundled at worker start. */
  WORKFLOW_BUNDLE_PATH: z.string().optional(),
  /** Bearer token that may read the API's /metrics from anywhere; unset: loopback callers only. */
  METRICS_TOKEN: z.string().min(16).optional(),
  /** Where the worker serves Temporal SDK metrics for Prometheus (e.g. 0.0.0.0:9464); unset: off. */
  WORKER_METRICS_BIND: z.string().optional(),
  /**
   * Workflows the worker keeps in memory between their tasks. The SDK's default for a 192 MiB heap
   * is 10 (it reckons 1.7 MiB a workflow; ours take about 90 KiB): with 16 jobs in flight, a job's
   * next task mostly found its workflow evicted and replayed its history (bench (b)).
   */
  WORKER_CACHED_WORKFLOWS: z.coerce.number().int().min(2).default(100),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Rows per contacts.import activity; each batch is one activity with heartbeats. */
  IMPORT_BATCH_SIZE: z.coerce.number().int().min(1).max(5000).default(2000),
  /** Largest JSON body accepted on POST /v1/jobs (imports carry their rows inline). */
  JOB_BODY_LIMIT: z.string().default('64mb'),
  BODY_LIMIT: z.string().default('1mb'),
  /** API requests per team, by the team's plan (JSON: plan → { requests, perSeconds }). */
  RATE_LIMITS: z
    .string()
    .default('{"free":{"requests":600,"perSeconds":60},"pro":{"requests":6000,"perSeconds":60}}')
    .transform((json, ctx) => {
      try {
        return planLimitsSchema.parse(JSON.parse(json));
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: `RATE_LIMITS: ${(err as Error).message}` });
        return z.NEVER;
      }
    }),
  /** MCP credits per billing cycle (a calendar month, UTC), by plan (JSON: plan → credits); an unlisted plan is unmetered. */
  MCP_CREDITS: z
    .string()
    .default('{"free":50,"pro":5000}')
    .transform((json, ctx) => {
      try {
        return z.record(z.string(), z.number().int().min(0)).parse(JSON.parse(json));
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: `MCP_CREDITS: ${(err as Error).message}` });
        return z.NEVER;
      }
    }),
  /** Failed logins at the authorization page, per account and per client address. */
  LOGIN_LIMIT_PER_ACCOUNT: windowSetting.prefault('5/900'),
  LOGIN_LIMIT_PER_ADDRESS: windowSetting.prefault('50/3600'),
  /** Dynamic client registrations per client address. */
  REGISTRATION_LIMIT: windowSetting.prefault('30/600'),
  /** Sign-up form submissions per client address (all forms), and per form (all addresses): docs/FORMS.md. */
  FORM_LIMIT_PER_ADDRESS: windowSetting.prefault('20/600'),
  FORM_LIMIT_PER_FORM: windowSetting.prefault('300/600'),
  /** How long a form's double opt-in confirmation link works. */
  FORM_CONFIRMATION_TTL_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 30)
    .default(72),
  OAUTH_ACCESS_TOKEN_TTL: z.coerce.number().int().min(60).default(3600),
  OAUTH_REFRESH_TOKEN_TTL: z.coerce
    .number()
    .int()
    .min(60)
    .default(30 * 24 * 3600),
  OAUTH_CODE_TTL: z.coerce.number().int().min(10).max(600).default(300),
  /** 32 bytes, base64: encrypts provider secrets and signs approval and media links. Unset: generated once into DATA_DIR/secrets.key. */
  SECRETS_KEY: z.string().optional(),
  /** The domain of the agents' receive-only mailboxes ({inbox_domain}); never a sender. */
  INBOX_DOMAIN: z.string().default('inbox.localhost'),
  /** The inbound SMTP listener of those mailboxes (inbox.ts, docs/INBOX.md); 0: any free port. */
  INBOX_SMTP_PORT: z.coerce.number().int().min(0).max(65535).default(2525),
  INBOX_SMTP_HOST: z.string().default('0.0.0.0'),
  /** Largest inbound message, bytes (advertised as SIZE; larger is refused with 552). */
  INBOX_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(10 * 1024 * 1024),
  /** Largest media upload, bytes. */
  MEDIA_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(25 * 1024 * 1024),
  /** How long a manual-mode approval waits before the execution expires. */
  APPROVAL_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .default(7 * 24 * 3600),
  /** How long a room key (POST /mcp/rooms, POST /v1/rooms) opens its stream; revocable sooner. */
  ROOM_KEY_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .default(7 * 24 * 3600),
  /** How long room stream events are kept, unless the team sets rooms.eventRetentionHours; never under 24. */
  ROOM_EVENT_RETENTION_HOURS: z.coerce
    .number()
    .int()
    .min(24)
    .default(30 * 24),
  /** How long an auto-mode deliver request waits for the send before answering 202 instead of 200. */
  DELIVERY_WAIT_SECONDS: z.coerce.number().int().min(1).max(120).default(25),
  /**
   * Recipients per campaign dispatch activity (at most a minute's sending; it records a chunk per
   * statement and heartbeats). Sends in flight follow the integration's connection pool.
   */
  CAMPAIGN_BATCH_SIZE: z.coerce.number().int().min(1).max(100_000).default(10_000),
  /**
   * The default send rate per provider (JSON: provider → messages per second), for integrations
   * that set no `maxPerSecond`; kept per integration across every worker. Unlisted: no limit.
   */
  CAMPAIGN_RATE_LIMITS: z
    .string()
    .default('{}')
    .transform((json, ctx) => {
      try {
        return z.record(z.string(), z.number().positive()).parse(JSON.parse(json));
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: `CAMPAIGN_RATE_LIMITS: ${(err as Error).message}` });
        return z.NEVER;
      }
    }),
  /** An OpenAI-compatible API (…/v1) that writes aiParams placeholders; unset: an offline, deterministic writer. */
  AI_BASE_URL: z.url().optional(),
  AI_API_KEY: z.string().optional(),
  AI_MODEL: z.string().default('gpt-4o-mini'),
  /**
   * A model call that has not started answering after MODEL_FIRST_TOKEN_SECONDS, or then sends
   * nothing for MODEL_STALL_SECONDS, is retried as stalled (both under the call's 10-minute limit).
   */
  MODEL_FIRST_TOKEN_SECONDS: z.coerce.number().positive().max(540).default(300),
  MODEL_STALL_SECONDS: z.coerce.number().positive().max(540).default(120),
  /** How often a pending WhatsApp template is checked with the provider when no webhook arrives. */
  WHATSAPP_TEMPLATE_REFRESH_SECONDS: z.coerce.number().int().min(1).default(3600),
  /** The Meta app secret that signs WhatsApp webhooks (X-Hub-Signature-256); unset: the webhook is off. */
  WHATSAPP_APP_SECRET: z.string().min(8).optional(),
  /** `production` (the Docker image) turns safe defaults on, e.g. refusing private webhook URLs. */
  NODE_ENV: z.string().optional(),
  /**
   * Whether outbound webhook URLs may resolve to private, loopback or link-local addresses (SSRF
   * guard, docs/EVENTS.md). Unset: refused when NODE_ENV=production, allowed otherwise (local
   * development and tests run receivers on 127.0.0.1).
   */
  WEBHOOK_ALLOW_PRIVATE_URLS: z.enum(['true', 'false', '1', '0']).optional(),
  /**
   * The x402 facilitator that verifies and settles the payments of agents whose payment gate is
   * x402 (docs/AGENTS.md › Outside callers and the payment gate); one per server, never per team.
   */
  X402_FACILITATOR_URL: z.url().default('https://x402.org/facilitator'),
  X402_FACILITATOR_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
  /** Signing secrets of email providers' event webhooks (Svix-style `whsec_…`), JSON: provider → secret. */
  EMAIL_WEBHOOK_SECRETS: z
    .string()
    .default('{}')
    .transform((json, ctx) => {
      try {
        return z.record(z.string(), z.string().min(8)).parse(JSON.parse(json));
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: `EMAIL_WEBHOOK_SECRETS: ${(err as Error).message}` });
        return z.NEVER;
      }
    }),
});

/** The four public addresses of the spec, each without a trailing slash. */
export interface PublicUrls {
  /** {base_url}: the HTTP API root, also the audience (RFC 8707 resource) of API tokens. */
  baseUrl: string;
  /** {mcp_url}: the MCP host. */
  mcpUrl: string;
  /** {mcp_url}/mcp: the MCP endpoint, the resource of its protected-resource metadata and its tokens. */
  mcpEndpoint: string;
  /** {auth_url}: the OAuth issuer. */
  authUrl: string;
  /** {site_url}: the public site. */
  siteUrl: string;
}

export type Config = z.infer<typeof envSchema> & PublicUrls & { dataDir: string };

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.parse(env);
  return withUrls({ ...parsed, dataDir: path.resolve(parsed.DATA_DIR) }, `http://localhost:${parsed.PORT}`);
}

/**
 * The public addresses: each of the four settings when given, else from PUBLIC_URL, else from
 * `fallbackRoot` (the address the process answers on). One process serves all four by default.
 */
export function withUrls<C extends Omit<Config, keyof PublicUrls>>(config: C, fallbackRoot: string): C & PublicUrls {
  const trim = (url: string) => url.replace(/\/$/, '');
  const root = trim(config.PUBLIC_URL ?? fallbackRoot);
  const mcpUrl = trim(config.MCP_URL ?? root);
  return {
    ...config,
    baseUrl: trim(config.BASE_URL ?? `${root}/v1`),
    mcpUrl,
    mcpEndpoint: `${mcpUrl}/mcp`,
    authUrl: trim(config.AUTH_URL ?? root),
    siteUrl: trim(config.SITE_URL ?? root),
  };
}

/** The address to reach a server bound to `host` from this machine. */
export const localAddress = (host: string) =>
  host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;

export function rateLimitSettings(config: Config): RateLimitSettings {
  return {
    plans: config.RATE_LIMITS,
    loginPerAccount: config.LOGIN_LIMIT_PER_ACCOUNT,
    loginPerAddress: config.LOGIN_LIMIT_PER_ADDRESS,
    registrationPerAddress: config.REGISTRATION_LIMIT,
  };
}

/** Whether webhook URLs may point at private or loopback addresses (WEBHOOK_ALLOW_PRIVATE_URLS). */
export function privateWebhookUrlsAllowed(config: Pick<Config, 'NODE_ENV' | 'WEBHOOK_ALLOW_PRIVATE_URLS'>): boolean {
  if (config.WEBHOOK_ALLOW_PRIVATE_URLS !== undefined)
    return config.WEBHOOK_ALLOW_PRIVATE_URLS === 'true' || config.WEBHOOK_ALLOW_PRIVATE_URLS === '1';
  return config.NODE_ENV !== 'production';
}
