import { Agent, fetch, type Dispatcher } from 'undici';
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
  let res: Awaited<ReturnType<typeof fetch>>;
  try {
    res = await fetch(url, {
      dispatcher: init.pool,
      method: 'POST',
      headers: {
        ...init.headers,
        'content-type': init.form ? 'application/x-www-form-urlencoded' : 'application/json',
      },
      body: init.form ? new URLSearchParams(init.form) : JSON.stringify(init.json),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    throw new ProviderError(
      `${provider}: ${(err as Error).name === 'TimeoutError' ? `no answer within ${TIMEOUT_MS} ms` : (err as Error).message}`,
      true,
    );
  }
  const text = await res.text();
  if (!res.ok)
    throw new ProviderError(
      `${provider} answered ${res.status}: ${text.slice(0, 300)}`,
      retryableStatus(res.status),
      res.status,
    );
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ProviderError(`${provider} answered ${res.status} with a body that is not JSON`, true, res.status);
  }
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
