import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  /** `webhook-id`: the same on every attempt of one delivery. */
  id: string;
  path: string;
  type: string;
  timestamp: string;
  data: any;
  headers: http.IncomingHttpHeaders;
}

/**
 * A webhook receiver over real HTTP, as a team's system would run one: every POST is verified with
 * the `standardwebhooks` library against the secret registered for its path (a bad signature is
 * answered 401 and not recorded). It can be down for a while: answering 503, or not listening at
 * all (connections refused), then back on the same port.
 */
export class FakeWebhookReceiver {
  private server?: http.Server;
  private port = 0;
  private secrets = new Map<string, string>();
  /** Every verified POST answered 2xx, in arrival order (repeats of one webhook-id included). */
  readonly received: ReceivedWebhook[] = [];
  /** How many POSTs were refused (503 while unavailable, 401 on a bad signature). */
  refused = 0;
  /** How long a verified POST waits for its 204 (a receiver doing some work). */
  latencyMs = 0;
  private unavailable = false;

  async start(): Promise<this> {
    await this.listen();
    return this;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** The secret POSTs to `path` are verified with. */
  setSecret(path: string, secret: string): void {
    this.secrets.set(path, secret);
  }

  /** Answer 503 to everything until `recover`. */
  failWith503(): void {
    this.unavailable = true;
  }

  /** Stop listening: connections are refused until `recover`. */
  async goDown(): Promise<void> {
    await this.close();
  }

  async recover(): Promise<void> {
    this.unavailable = false;
    if (!this.server) await this.listen();
  }

  forPath(path: string): ReceivedWebhook[] {
    return this.received.filter((r) => r.path === path);
  }

  distinctIds(path: string): string[] {
    return [...new Set(this.forPath(path).map((r) => r.id))];
  }

  /** Waits until `done` holds (polling), or fails after `timeoutMs`. */
  async waitFor(done: () => boolean, timeoutMs = 30_000, what = 'the webhooks'): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${what}; received ${JSON.stringify(this.received.map((r) => r.id))}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async stop(): Promise<void> {
    await this.close();
  }

  private async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private listen(): Promise<void> {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = (req.url ?? '/').split('?')[0];
        if (this.unavailable) {
          this.refused++;
          res.writeHead(503).end('down for maintenance');
          return;
        }
        const body = Buffer.concat(chunks).toString('utf8');
        const secret = this.secrets.get(path);
        try {
          if (!secret) throw new Error(`no secret for ${path}`);
          const payload = new Webhook(secret).verify(body, req.headers as Record<string, string>) as any;
          this.received.push({
            id: String(req.headers['webhook-id']),
            path,
            type: payload.type,
            timestamp: payload.timestamp,
            data: payload.data,
            headers: req.headers,
          });
          setTimeout(() => res.writeHead(204).end(), this.latencyMs);
        } catch {
          this.refused++;
          res.writeHead(401).end('bad signature');
        }
      });
    });
    this.server = server;
    return new Promise((resolve) =>
      server.listen(this.port, '127.0.0.1', () => {
        this.port = (server.address() as AddressInfo).port;
        resolve();
      }),
    );
  }
}
