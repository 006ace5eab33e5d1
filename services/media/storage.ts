import fs from 'node:fs';
import path from 'node:path';

/** Where team media bytes live. Local disk by default; an object store fits the same three calls. */
export interface MediaStorage {
  createWriteStream(key: string): fs.WriteStream;
  createReadStream(key: string): fs.ReadStream;
  remove(key: string): Promise<void>;
}

export class LocalDiskStorage implements MediaStorage {
  constructor(private readonly root: string) {}

  private resolve(key: string): string {
    const full = path.resolve(this.root, key);
    if (!full.startsWith(path.resolve(this.root) + path.sep)) throw new Error(`media key escapes storage: ${key}`);
    return full;
  }

  createWriteStream(key: string): fs.WriteStream {
    const full = this.resolve(key);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    return fs.createWriteStream(full);
  }

  createReadStream(key: string): fs.ReadStream {
    return fs.createReadStream(this.resolve(key));
  }

  async remove(key: string): Promise<void> {
    await fs.promises.rm(this.resolve(key), { force: true });
  }
}
