/**
 * The inbound SMTP listener of the agents' receive-only mailboxes as a process of its own
 * (docs/INBOX.md): `npm start` supervises it beside the worker and the API. It needs only
 * Postgres: a message and its `email.received` event are one commit, and the worker's events
 * dispatcher takes the event from there.
 */
import path from 'node:path';
import { loadConfig } from './config';
import { createDb } from './db/knex';
import { ensurePostgres } from './db/postgres';
import { createLogger } from './logger';
import { startInboxListener } from './services/inbox/smtpListener';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL, 'inbox');
  const pg = await ensurePostgres({
    databaseUrl: config.DATABASE_URL,
    dataDir: path.join(config.dataDir, 'pg'),
    port: config.EMBEDDED_PG_PORT,
  });
  const db = createDb(pg.url, { max: 5 });
  const inbox = await startInboxListener(config, db, logger);
  logger.info({ port: inbox.port, domain: config.INBOX_DOMAIN }, 'inbox SMTP listening');
  const stop = async () => {
    await inbox.close();
    await db.destroy();
    await pg.stop();
    process.exit(0);
  };
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
