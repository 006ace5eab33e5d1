import http from 'node:http';
import { closeRoomEventHub } from './services/rooms/roomEventHub';
import path from 'node:path';
import { createApp } from './api/app';
import { providerPools } from './channels/pools';
import { Config, loadConfig, localAddress, withUrls } from './config';
import { createDb, Db } from './db/knex';
import { ensurePostgres } from './db/postgres';
import { createLogger } from './logger';
import { AppContext, buildAppContext } from './services/platform/context';

/** How long requests in flight (a long poll's wait) may finish when the API stops. */
const SHUTDOWN_GRACE_MS = 10_000;

export interface RunningServer {
  url: string;
  ctx: AppContext;
  close(): Promise<void>;
}

/**
 * Serves the API on `config.PORT` (0: any free port). When PORT is 0, the public addresses not set
 * are taken from the port actually bound. `url` is where this process answers, whatever it advertises.
 */
export async function startServer(config: Config, db: Db): Promise<RunningServer> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(config.PORT, config.HOST, resolve));
  const port = (server.address() as { port: number }).port;
  // A port the system chose: what the public addresses leave unset is this process's own address.
  const effective: Config =
    config.PORT === 0 ? withUrls({ ...config, PORT: port }, `http://127.0.0.1:${port}`) : config;
  const ctx = buildAppContext(effective, db, createLogger(config.LOG_LEVEL, 'api'));
  server.on('request', createApp(ctx));
  return {
    url: `http://${localAddress(config.HOST)}:${port}`,
    ctx,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Open streams end (their clients reconnect elsewhere): they would keep the server from closing.
      await closeRoomEventHub(ctx);
      // A page that polls keeps its keep-alive connection busy, and server.close() waits for it:
      // each connection is closed as soon as it is idle between requests, and whatever is still
      // in flight after the grace period is cut.
      server.closeIdleConnections();
      const idleCloser = setInterval(() => server.closeIdleConnections(), 100);
      const graceOver = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
      await closed;
      clearInterval(idleCloser);
      clearTimeout(graceOver);
      await ctx.temporal.close();
      // Campaign test sends go out from the API process, through its own pools.
      await providerPools.closeAll();
    },
  };
}

async function main(): Promise<void> {
  const config = loadConfig();
  const pg = await ensurePostgres({
    databaseUrl: config.DATABASE_URL,
    dataDir: path.join(config.dataDir, 'pg'),
    port: config.EMBEDDED_PG_PORT,
  });
  const db = createDb(pg.url, { max: 20 }, { kind: 'request', timeoutMs: config.DATABASE_REQUEST_TIMEOUT_MS });
  const running = await startServer(config, db);
  running.ctx.logger.info({ url: `${running.ctx.config.baseUrl}` }, 'API listening');
  const stop = async () => {
    await running.close();
    await db.destroy();
    await pg.stop();
    process.exit(0);
  };
  // A shutdown that fails still ends the process: logged, exit code 1.
  const onSignal = () => {
    stop().catch((err) => {
      console.error(err);
      process.exit(1);
    });
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
