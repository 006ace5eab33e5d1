import { createHash } from 'node:crypto';
import type { Db } from '../db/knex';
import { createProvider, ProviderName } from './providers';
import { stopSmtpThread } from './smtpSender';
import {
  ProviderError,
  type ChannelProvider,
  type OutboundMessage,
  type PooledProvider,
  type SendAttempt,
} from './types';

interface Pool {
  key: string;
  fingerprint: string;
  adapter: PooledProvider;
  /** What send paths hold: the adapter, counting its sends in flight. */
  counted: ChannelProvider;
  inFlight: number;
  retired: boolean;
  closed?: Promise<void>;
}

/** Key order must not matter: the same settings are the same pool. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  return value;
}

export const providerFingerprint = (provider: ProviderName, config: unknown, secrets: unknown) =>
  createHash('sha256')
    .update(JSON.stringify(canonical([provider, config ?? {}, secrets ?? {}])))
    .digest('hex');

/**
 * The adapters of this process, one per integration, so sends reuse their connections (an SMTP
 * pool, an HTTP keep-alive agent) instead of opening one per message. A pool is rebuilt when the
 * integration's provider, config or secrets change; the one it replaces is closed once its sends
 * in flight have their answers.
 */
export class ProviderPools {
  private readonly pools = new Map<string, Pool>();
  private readonly retiring = new Set<Pool>();

  adapterFor(
    integration: { agentId: string; channel: string },
    provider: ProviderName,
    config: unknown,
    secrets: unknown,
    context: { db: Db; teamId: string },
  ): ChannelProvider {
    // The sandbox holds no connections, only the caller's database handle, which must not outlive it.
    if (provider === 'sandbox') return createProvider(provider, config, secrets, context);
    const key = `${integration.agentId}:${integration.channel}`;
    const fingerprint = providerFingerprint(provider, config, secrets);
    const current = this.pools.get(key);
    if (current?.fingerprint === fingerprint) return current.counted;
    const pool = this.build(key, fingerprint, createProvider(provider, config, secrets, context));
    this.pools.set(key, pool);
    if (current) this.retire(current);
    return pool.counted;
  }

  /** Closes every pool (the worker is stopping); later sends build new ones. */
  async closeAll(): Promise<void> {
    const all = [...this.pools.values(), ...this.retiring];
    this.pools.clear();
    this.retiring.clear();
    await Promise.all(all.map((pool) => this.close(pool)));
    await stopSmtpThread();
  }

  /** How many pools are open (for tests and logs). */
  get size(): number {
    return this.pools.size;
  }

  private build(key: string, fingerprint: string, adapter: PooledProvider): Pool {
    /**
     * A bulk send holds its adapter for a while: once the settings changed, its next messages go
     * out with the new ones, on the pool that replaced this one. Otherwise `call` runs here,
     * counted as `n` sends in flight.
     */
    const onLivePool = async <T>(n: number, call: (a: ChannelProvider) => Promise<T>): Promise<T> => {
      if (pool.retired) {
        const current = this.pools.get(pool.key);
        if (!current)
          throw new ProviderError("the integration's connections are closed (the process is stopping)", true);
        return call(current.counted);
      }
      pool.inFlight += n;
      try {
        return await call(adapter);
      } finally {
        pool.inFlight -= n;
        if (pool.retired && pool.inFlight === 0) void this.close(pool);
      }
    };
    const pool: Pool = {
      key,
      fingerprint,
      adapter,
      inFlight: 0,
      retired: false,
      counted: {
        concurrency: adapter.concurrency,
        ready: async () => adapter.ready?.(),
        send: (message) => onLivePool(1, (a) => a.send(message)),
        ...(adapter.sendMany
          ? { sendMany: (messages) => onLivePool(messages.length, (a) => sendEach(a, messages)) }
          : {}),
      },
    };
    return pool;
  }

  private retire(pool: Pool): void {
    pool.retired = true;
    if (pool.inFlight === 0) void this.close(pool);
    else this.retiring.add(pool);
  }

  private close(pool: Pool): Promise<void> {
    this.retiring.delete(pool);
    // A pool that cannot close cleanly (its server gone) has nothing left to lose.
    pool.closed ??= pool.adapter.close().catch(() => undefined);
    return pool.closed;
  }
}

/** Many messages through any adapter: in one call when it takes many, else one send each. */
function sendEach(adapter: ChannelProvider, messages: OutboundMessage[]): Promise<SendAttempt[]> {
  if (adapter.sendMany) return adapter.sendMany(messages);
  return Promise.all(
    messages.map((m) =>
      adapter.send(m).catch((err: unknown) => ({
        error: err instanceof ProviderError ? err : new ProviderError((err as Error).message, true),
      })),
    ),
  );
}

/** This process's pools: the worker's sends, and the API's campaign test sends. */
export const providerPools = new ProviderPools();
