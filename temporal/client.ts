import { Client, Connection } from '@temporalio/client';

/**
 * The API's lazily opened connection to Temporal. A failed connect is forgotten, so the next
 * request tries again instead of the process staying broken.
 */
export class TemporalGateway {
  private pending?: Promise<Client>;

  constructor(readonly opts: { address: string; namespace: string; taskQueue: string }) {}

  get taskQueue(): string {
    return this.opts.taskQueue;
  }

  client(): Promise<Client> {
    if (!this.pending) {
      this.pending = Connection.connect({ address: this.opts.address, connectTimeout: 5_000 })
        .then((connection) => new Client({ connection, namespace: this.opts.namespace }))
        .catch((err) => {
          this.pending = undefined;
          throw err;
        });
    }
    return this.pending;
  }

  async healthy(): Promise<boolean> {
    try {
      const client = await this.client();
      await (client.connection as Connection).healthService.check({});
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    const pending = this.pending;
    this.pending = undefined;
    if (pending) await (await pending.catch(() => undefined))?.connection.close();
  }
}
