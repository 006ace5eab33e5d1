/**
 * A Postgres server of a test's own, in its own process: `node --import tsx postgresProcess.ts
 * <dataDir> <port>` prints `postgres ready <url>` and stops the server on SIGTERM. (The embedded
 * server's package is an ES module that jest's runtime cannot load, so a test runs it out here.)
 */
import { ensurePostgres } from '../../db/postgres';

async function main() {
  const [dataDir, port] = process.argv.slice(2);
  const handle = await ensurePostgres({ dataDir: dataDir!, port: Number(port), database: 'postgres' });
  process.stdout.write(`postgres ready ${handle.url}\n`);
  process.once('SIGTERM', () => {
    void handle.stop().finally(() => process.exit(0));
  });
}

main().catch((err) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
