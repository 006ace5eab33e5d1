import pg from 'pg';
import type { Logger } from 'pino';
import type { AppContext } from '../platform/context';
import { ROOM_EVENTS_CHANNEL, roomEventNotification, type RoomEvent } from './roomEvents';

/** Called on every event of a room: with the event when its notification carried it. */
type Wake = (event?: RoomEvent) => void;

/** How soon a lost LISTEN connection is opened again. */
const RECONNECT_AFTER_MS = 1_000;

/**
 * One LISTEN connection per process, shared by every stream and waiter of that process: a
 * notification wakes the subscribers of its room, with its event when it carried one (a stream
 * that has sent everything before it sends it as it is; otherwise it reads the table). When the
 * connection drops, everyone is woken once it is back (a notification may have been missed meanwhile).
 */
export class RoomEventHub {
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private readonly subscribers = new Map<string, Set<Wake>>();
  /** What ends each open stream when the process shuts down (an open stream would hold the server open). */
  private readonly onClose = new Set<() => void>();
  private closed = false;

  constructor(
    /** A new connection of its own, outside the query pool (LISTEN holds it for good). */
    private readonly openConnection: () => Promise<pg.Client>,
    private readonly logger: Logger,
  ) {}

  /** Calls `wake` on every event of the room until the answer is called; `onClose` when the hub closes. */
  async subscribe(roomId: string, wake: Wake, onClose?: () => void): Promise<() => void> {
    let wakes = this.subscribers.get(roomId);
    if (!wakes) this.subscribers.set(roomId, (wakes = new Set()));
    wakes.add(wake);
    if (onClose) this.onClose.add(onClose);
    const unsubscribe = () => {
      wakes.delete(wake);
      if (onClose) this.onClose.delete(onClose);
      if (wakes.size === 0 && this.subscribers.get(roomId) === wakes) this.subscribers.delete(roomId);
    };
    if (this.closed) {
      unsubscribe();
      throw new Error('room events: this process is shutting down');
    }
    try {
      await this.connect();
    } catch (err) {
      unsubscribe();
      throw err;
    }
    return unsubscribe;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const end of [...this.onClose]) end();
    await this.client?.end().catch(() => undefined);
  }

  private connect(): Promise<void> {
    if (this.client || this.closed) return Promise.resolve();
    this.connecting ??= (async () => {
      try {
        const client = await this.openConnection();
        client.on('notification', (message) => {
          const told = message.payload ? roomEventNotification(message.payload) : undefined;
          if (told) this.wakeRoom(told.roomId, told.event);
        });
        client.on('error', (err) => this.lost(client, err));
        client.on('end', () => this.lost(client));
        await client.query(`LISTEN ${ROOM_EVENTS_CHANNEL}`);
        if (this.closed) await client.end();
        else this.client = client;
      } finally {
        this.connecting = undefined;
      }
    })();
    return this.connecting;
  }

  private lost(client: pg.Client, err?: Error): void {
    if (this.client !== client) return;
    this.client = undefined;
    if (this.closed) return;
    this.logger.warn({ err }, 'room events: LISTEN connection lost; reconnecting');
    const retry = (): void => {
      this.connect()
        .then(() => this.wakeAll())
        .catch(() => setTimeout(retry, RECONNECT_AFTER_MS).unref());
    };
    setTimeout(retry, RECONNECT_AFTER_MS).unref();
  }

  private wakeRoom(roomId: string, event?: RoomEvent): void {
    for (const wake of this.subscribers.get(roomId) ?? []) wake(event);
  }

  private wakeAll(): void {
    for (const roomId of this.subscribers.keys()) this.wakeRoom(roomId);
  }
}

const hubs = new WeakMap<AppContext, RoomEventHub>();

/** The hub of this process (one per app context: an API process, or each API of a test). */
export function roomEventHub(ctx: AppContext): RoomEventHub {
  let hub = hubs.get(ctx);
  if (!hub) {
    // knex opens it with the pool's own settings (whatever form DATABASE_URL took).
    hub = new RoomEventHub(() => ctx.db.client.acquireRawConnection() as Promise<pg.Client>, ctx.logger);
    hubs.set(ctx, hub);
  }
  return hub;
}

/** Ends the streams and the LISTEN connection of this context (server shutdown); it stays closed. */
export async function closeRoomEventHub(ctx: AppContext): Promise<void> {
  await roomEventHub(ctx).close();
}
