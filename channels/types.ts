import { z } from 'zod';

export const channelSchema = z.enum(['email', 'sms', 'whatsapp', 'push']);
export type Channel = z.infer<typeof channelSchema>;

export interface OutboundMessage {
  channel: Channel;
  /** Email address, E.164 phone number, or push device token. */
  to: string;
  from: string | null;
  subject?: string;
  text: string;
  /** An HTML alternative (email only). */
  html?: string;
  /** Extra email headers (List-Unsubscribe). */
  headers?: Record<string, string>;
  /** The same key for every attempt of one message, so a provider (or we) can drop a repeat. */
  idempotencyKey: string;
}

export interface SendResult {
  providerMessageId: string;
}

/** A provider's refusal, classed: retryable (5xx, 429, timeouts, network) or permanent (other 4xx). */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/** One message's answer in a `sendMany`: what `send` resolves with, or the ProviderError it throws. */
export type SendAttempt = SendResult | { error: ProviderError };

export interface ChannelProvider {
  send(message: OutboundMessage): Promise<SendResult>;
  /**
   * Many messages in one call, answered in their order once each has its answer, for adapters
   * whose hand-off costs more per call than per message (SMTP: a hop to the sender thread). It
   * keeps every connection busy by itself; it rejects only when none of them could be tried.
   */
  sendMany?(messages: OutboundMessage[]): Promise<SendAttempt[]>;
  /** Sends in flight that keep every pooled connection busy: what a bulk send runs at, no fewer. */
  readonly concurrency: number;
  /**
   * Resolves when a send would leave at once (SMTP: the sender thread is up). A paced send waits
   * for it before its first slot: sends queued behind a starting thread would leave together.
   */
  ready?(): Promise<void>;
}

/** An adapter that keeps connections open between sends (an SMTP pool, an HTTP keep-alive agent). */
export interface PooledProvider extends ChannelProvider {
  /** Ends its connections once the sends in flight have their answers. */
  close(): Promise<void>;
}
