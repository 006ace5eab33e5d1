import type { RequestHandler } from 'express';
import client from 'prom-client';
import { jobsStartedByType } from '../services/jobs/jobs';

/** Prometheus metrics of the API process: Node defaults plus request counts and latencies by route. */
export const metricsRegistry = new client.Registry();
// The event loop's delay sampled every 100 ms, not prom-client's 10: a timer of its own waking the
// process 100 times a second cost an idle API 7 ms of CPU a second (docs/BENCHMARKS.md, run 48).
client.collectDefaultMetrics({ register: metricsRegistry, eventLoopMonitoringPrecision: 100 });

const httpDuration = new client.Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request latency by method, route pattern and status',
  labelNames: ['method', 'route', 'status'],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [metricsRegistry],
});

// Counted where jobs start (services/jobs/jobs.ts), over HTTP, MCP or a turn; read at each scrape.
new client.Counter({
  name: 'jobs_started_total',
  help: 'Jobs accepted and started as workflows, by type',
  labelNames: ['type'],
  registers: [metricsRegistry],
  collect() {
    this.reset();
    for (const [type, count] of jobsStartedByType()) this.inc({ type }, count);
  },
});

export const mcpToolCalls = new client.Histogram({
  name: 'mcp_tool_call_duration_seconds',
  help: 'MCP tool calls by tool and outcome (ok, pending, or the error code, e.g. credits_exhausted)',
  labelNames: ['tool', 'outcome'],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 30],
  registers: [metricsRegistry],
});

/** Labels by the matched route pattern (never the raw path, so ids do not explode the label set). */
export const measureRequests: RequestHandler = (req, res, next) => {
  const stop = httpDuration.startTimer();
  res.on('finish', () => {
    const route = req.route?.path ? `${req.baseUrl}${req.route.path}` : 'unmatched';
    stop({ method: req.method, route, status: String(res.statusCode) });
  });
  next();
};

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/**
 * Prometheus scrape endpoint. Not public: answered to loopback callers, or to
 * `Authorization: Bearer $METRICS_TOKEN` when that is set; anyone else gets the 404 of an unknown route.
 */
export function metricsRoute(metricsToken: string | undefined): RequestHandler {
  return async (req, res, next) => {
    const allowed = metricsToken ? req.headers.authorization === `Bearer ${metricsToken}` : LOOPBACK.has(req.ip ?? '');
    if (!allowed) return next();
    res.setHeader('Content-Type', metricsRegistry.contentType);
    res.send(await metricsRegistry.metrics());
  };
}
