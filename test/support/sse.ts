import { createParser, EventSourceMessage } from 'eventsource-parser';

export interface StreamEvent {
  id: number;
  type: string;
  data: any;
}

export interface StreamRead {
  status: number;
  events: StreamEvent[];
  /** The raw bytes received (heartbeat comments included). */
  raw: string;
}

/**
 * Reads a room's Server-Sent Events over real HTTP, as a browser's EventSource would, resuming
 * after `lastEventId`, until `until` holds for an event, `maxEvents` arrived, `maxBytes` were read
 * (a cut mid-event) or `timeoutMs` passed; then it drops the connection.
 */
export async function readStream(
  url: string,
  opts: {
    lastEventId?: number;
    until?: (event: StreamEvent) => boolean;
    maxEvents?: number;
    maxBytes?: number;
    timeoutMs?: number;
  } = {},
): Promise<StreamRead> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), opts.timeoutMs ?? 20_000);
  const events: StreamEvent[] = [];
  let raw = '';
  let done = false;
  const parser = createParser({
    onEvent: (message: EventSourceMessage) => {
      if (done) return;
      const event = { id: Number(message.id), type: message.event ?? 'message', data: JSON.parse(message.data) };
      events.push(event);
      if (opts.until?.(event) || (opts.maxEvents !== undefined && events.length >= opts.maxEvents)) done = true;
    },
  });
  try {
    const res = await fetch(url, {
      headers: {
        accept: 'text/event-stream',
        ...(opts.lastEventId !== undefined ? { 'last-event-id': String(opts.lastEventId) } : {}),
      },
      signal: abort.signal,
    });
    if (res.status !== 200 || !res.body) return { status: res.status, events, raw: await res.text() };
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      let text = decoder.decode(chunk, { stream: true });
      if (opts.maxBytes !== undefined && raw.length + text.length > opts.maxBytes) {
        text = text.slice(0, Math.max(0, opts.maxBytes - raw.length));
        done = true;
      }
      raw += text;
      parser.feed(text);
      if (done) break;
    }
    return { status: res.status, events, raw };
  } catch (err) {
    if ((err as Error).name === 'AbortError') return { status: 200, events, raw };
    throw err;
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}
