import { Agent, errors, request, type Dispatcher } from 'undici';
import { ProviderError } from './types';

const TIMEOUT_MS = 10_000;
/** Sockets one integration keeps to its provider's API; more requests wait their turn. */
export const HTTP_CONNECTIONS_PER_INTEGRATION = 20;

/** One integration's keep-alive connections to its provider's API, at most `connections` at a time. */
export const httpPool = (connections = HTTP_CONNECTIONS_PER_INTEGRATION) =>
  new Agent({ connections, keepAliveTimeout: 30_000, keepAliveMaxTimeout: 60_000 });

/** 408, 429 and 5xx may pass on a retry; other 4xx will not. */
export const retryableStatus = (status: number) => status === 408 || status === 429 || status >= 500;

/**
 * One provider API call: JSON (or form) in, JSON out, errors classed. A hang is cut at 10 s and
 * counts as retryable, as does a network failure.
 */
export async function providerRequest<T>(
  provider: string,
  url: string,
  init: { pool?: Dispatcher; headers: Record<string, string>; json?: unknown; form?: Record<string, string> },
): Promise<T> {
  // undici's request, not fetch: no web streams or abort signals per call, which a bulk send pays per message.
  let status: number;
  let text: string;
  try {
    const res = await request(url, {
      dispatcher: init.pool,
      method: 'POST',
      headers: {
        ...init.headers,
        'content-type': init.form ? 'application/x-www-form-urlencoded' : 'application/json',
      },
      body: init.form ? new URLSearchParams(init.form).toString() : JSON.stringify(init.json),
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
    });
    status = res.statusCode;
    text = await res.body.text();
  } catch (err) {
    const timedOut = err instanceof errors.HeadersTimeoutError || err instanceof errors.BodyTimeoutError;
    throw new ProviderError(
      `${provider}: ${timedOut ? `no answer within ${TIMEOUT_MS} ms` : (err as Error).message}`,
      true,
    );
  }
  if (status < 200 || status >= 300)
    throw new ProviderError(`${provider} answered ${status}: ${text.slice(0, 300)}`, retryableStatus(status), status);
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ProviderError(`${provider} answered ${status} with a body that is not JSON`, true, status);
  }
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
