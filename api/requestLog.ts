import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';

declare module 'http' {
  interface IncomingMessage {
    /** This request's logger: its lines carry the request (made on first use). */
    log?: Logger;
  }
}

/** What the line records of a request: pino-http's fields, redacted by `redact`. */
export interface LoggedRequest {
  id: number;
  method: string | undefined;
  url: string;
  query?: unknown;
  params?: unknown;
  headers: Record<string, unknown>;
  remoteAddress: string | undefined;
  remotePort: number | undefined;
}

/**
 * One line per finished request (`request completed`, `request aborted`, or `request errored` with
 * the `err` of a 5xx), with the request, the response's status and headers and `responseTime`:
 * the line pino-http wrote, field for field. pino-http also made a child logger per request and
 * serialized the request into it up front, whether or not anything logged through it, a cost on
 * every request; here the request is serialized once, for the line, and `req.log` is made only
 * when something uses it (an error), with the same bindings.
 */
export function requestLog(
  logger: Logger,
  options: { ignore: (url: string) => boolean; redact: (req: LoggedRequest) => LoggedRequest },
): RequestHandler {
  let lastId = 0;
  return (req, res, next) => {
    const started = Date.now();
    const id = (lastId = (lastId + 1) & 0x7fffffff);
    let record: LoggedRequest | undefined;
    const recorded = () => (record ??= options.redact(describe(req, id)));
    let child: Logger | undefined;
    Object.defineProperty(req, 'log', {
      configurable: true,
      enumerable: false,
      get: () => (child ??= logger.child({ req: recorded() })),
      set: (value: Logger) => {
        child = value;
      },
    });
    // Below `info` (LOG_LEVEL=warn, error, silent) the line is never written: nothing is built for it.
    if (logger.isLevelEnabled('info') && !options.ignore(req.url)) {
      // The request as it arrived (the routers below rewrite req.url on their way).
      recorded();
      const done = (err?: Error) => {
        res.off('close', done);
        res.off('finish', done);
        res.off('error', done);
        const responseTime = Date.now() - started;
        const response = { statusCode: res.headersSent ? res.statusCode : null, headers: res.getHeaders() };
        const failed = err ?? (res.statusCode >= 500 ? new Error(`failed with status code ${res.statusCode}`) : null);
        if (failed) logger.info({ req: recorded(), res: response, err: failed, responseTime }, 'request errored');
        else logger.info({ req: recorded(), res: response, responseTime }, completion(req, res));
      };
      res.on('close', done);
      res.on('finish', done);
      res.on('error', done);
    }
    next();
  };
}

const completion = (req: IncomingMessage, res: ServerResponse) =>
  !req.readableAborted && res.writableEnded ? 'request completed' : 'request aborted';

function describe(req: Parameters<RequestHandler>[0], id: number): LoggedRequest {
  return {
    id,
    method: req.method,
    url: req.originalUrl ?? req.url,
    ...(req.query ? { query: req.query } : {}),
    ...(req.params ? { params: req.params } : {}),
    headers: req.headers,
    remoteAddress: req.socket?.remoteAddress,
    remotePort: req.socket?.remotePort,
  };
}
